#pragma once

#include <git2.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace guard {

struct InstallOptions {
    std::filesystem::path
        shim_dir; // empty: ~/.local/share/git-guard/bin, or /usr/local/lib/git-guard/bin as root
    bool lock_worktrees = false; // also lock every worktree, old and new, with reason "git-guard"
    bool force = false;          // write into a global core.hooksPath; accept git < 2.38
};

// What install or uninstall did, one line per action, ready to print.
struct InstallReport {
    std::vector<std::string> lines;
    bool changed = false;
};

// Guards the repository containing `start` (a linked worktree acts on the common
// dir): sets guard.enabled, installs the reference-transaction hook (chaining an
// existing one), links the shim into the shim dir, and records a manifest under
// `<common git dir>/guard/`. Idempotent. Throws Error on a refusal.
InstallReport install(const std::filesystem::path& start, const InstallOptions& options);

// Restores the hooks and config from the manifest, byte for byte. Never touches
// stranded branches; keeps the shared shim while another guarded repository uses it.
InstallReport uninstall(const std::filesystem::path& start);

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

// The `git-guard-hook` or `git-guard-shim` front end installed next to this binary.
std::filesystem::path front_end(const char* name);

// `git --version` of `git` as {major, minor}; {0, 0} when it cannot be read.
std::pair<int, int> git_version(const std::string& git);

// The default shim directory for this user.
std::filesystem::path default_shim_dir();

// The shim link that install recorded for the repository at `common`, if any.
std::filesystem::path installed_shim_link(const std::filesystem::path& common);

} // namespace guard
