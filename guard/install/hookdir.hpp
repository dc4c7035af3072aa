#pragma once

#include "guard/base/manifest.hpp"
#include "guard/git/repo.hpp"
#include "guard/git/site.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

struct Installation;

// Where git runs hooks from, as `git rev-parse --git-path hooks` resolves it in
// each worktree: `<common>/hooks`, an absolute core.hooksPath, or, for a relative
// core.hooksPath, that path under each worktree's root (git runs hooks from there).
struct HooksLocation {
    std::vector<std::filesystem::path> dirs;  // one per worktree only when the value is relative
    std::vector<std::filesystem::path> roots; // the worktree root of each dir ("" unless relative)
    std::string value;                        // core.hooksPath as configured, "" when unset
    std::string scope;                        // where it is set: "local", "global", "system", ...
    std::string origin;                       // the file that sets it, as git --show-origin says
};

// Resolves the hooks directories of the repository at `site` with the real git at `git`.
HooksLocation locate_hooks(const std::string& git, const Site& site);

// The front end's name, and the sidecar naming the full binary beside a copy of it (C5).
inline constexpr const char* k_hook_front = "git-guard-hook";
inline constexpr const char* k_hook_sidecar = "git-guard.path";

// The hook's name for a file that may carry a manager's suffix (`post-checkout.legacy`).
std::string base_hook_name(const std::filesystem::path& file);

// The marker line that tells our hook stubs from anyone else's.
std::string hook_marker(const std::string& hook_name);

// The stub install writes as hook `name`: the template from share/git-guard/hooks with
// the path of the installed `git-guard-hook`. Throws Error when either is missing.
std::string hook_stub(const std::string& name);

// Whether install places `reference-transaction` as the front end itself (contract C5: a
// symlink to git-guard-hook, or a copy with a `git-guard.path` sidecar), rather than a
// stub that runs it: when git-guard is installed (the front end is in libexec/git-guard/)
// and the front end knows that form.
bool hook_is_front_end();

// Whether `file` is git-guard's hook `name` ("post-checkout", "reference-transaction"),
// wherever it now lies: our stub (its marker), a link to git-guard-hook, or a copy of it.
bool is_guard_hook(const std::filesystem::path& file, const std::string& name);

// Whether `file` is exactly what this installation would place as hook `name`.
bool is_current_hook(const std::filesystem::path& file, const std::string& name);

// Whether git, running hooks from `dir` for the worktree at `root` ("" when bare), runs
// git-guard's reference-transaction hook: ours at its slot and executable, or lefthook's
// with our job in `root`'s local config. A hook of another installation counts.
bool guard_hook_runs(const std::filesystem::path& dir, const std::filesystem::path& root);

// Where our hook `name` goes in `dir`: `dir/name`, or `dir/name.legacy` when pre-commit's
// hook is `dir/name` (pre-commit runs `.legacy` first, and keeps it on reinstall).
std::filesystem::path hook_slot(const std::filesystem::path& dir, const std::string& name);

// Where install keeps the hook it found at `dir/name` and runs after ours: `name.guard-chained`.
std::filesystem::path chained_hook(const std::filesystem::path& dir, const std::string& name);

// The names hook managers rename a hook they did not write to: lefthook `.old`,
// pre-commit `.legacy`.
std::vector<std::filesystem::path> renamed_copies(const std::filesystem::path& hook);

// Keeps `file`, which install added inside the worktree at `root`, out of `git status`
// (an info/exclude line, recorded first), unless git ignores it already.
void keep_out_of_status(Installation& ctx, const std::filesystem::path& root,
                        const std::filesystem::path& file);

// Throws Error when `hooks` comes from global or system config, unless `force`: a hook
// written there would guard every repository of the user.
void check_hooks_scope(const HooksLocation& hooks, bool force);

// Throws Error, before anything is written, when hook `name` in `dir` cannot be chained.
// `root` is the worktree root of a relative core.hooksPath, else "".
void check_hook(const std::string& git, const std::filesystem::path& dir, const std::string& name,
                const std::filesystem::path& root);

// Places our hook `name` in `dir` (at hook_slot), recording each change in `ctx`'s
// manifest first; a hook that was there runs as `<name>.guard-chained`.
void place_hook(Installation& ctx, const std::filesystem::path& dir, const std::string& name,
                const std::filesystem::path& root);

// Undoes a `hook`, `chain`, `sidecar` or `dir` record: removes our hook, also where a hook
// manager moved it (`.old`, `.legacy`), and puts back the hook it chained in the place our
// hook had then; removes a directory install created if it is still empty. Leaves a hook
// that someone else wrote since alone. One line per file.
void undo_hook(Installation& ctx, const Record& record);

} // namespace guard
