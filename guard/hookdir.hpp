#pragma once

#include "guard/manifest.hpp"

#include <git2.h>

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

// Resolves the hooks directories of `repo` with the real git at `git`.
HooksLocation locate_hooks(const std::string& git, git_repository* repo);

// The marker line that tells our hook stubs from anyone else's.
std::string hook_marker(const std::string& hook_name);

// The stub install writes as hook `name`: the template from share/git-guard/hooks with
// the path of the installed `git-guard-hook`. Throws Error when either is missing.
std::string hook_stub(const std::string& name);

// Throws Error when `hooks` comes from global or system config, unless `force`: a hook
// written there would guard every repository of the user.
void check_hooks_scope(const HooksLocation& hooks, bool force);

// Throws Error, before anything is written, when hook `name` in `dir` cannot be chained.
// `root` is the worktree root of a relative core.hooksPath, else "".
void check_hook(const std::string& git, const std::filesystem::path& dir, const std::string& name,
                const std::filesystem::path& root);

// Writes our stub for `name` into `dir`, recording each change in `ctx`'s manifest first;
// a hook that was there runs as `<name>.guard-chained`.
void place_hook(Installation& ctx, const std::filesystem::path& dir, const std::string& name,
                const std::filesystem::path& root);

// Undoes a `hook`, `chain` or `dir` record: removes our stub and puts back the hook it
// chained, or removes a directory install created if it is still empty. Leaves a hook
// that someone else wrote since alone.
void undo_hook(Installation& ctx, const Record& record);

} // namespace guard
