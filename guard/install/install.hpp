#pragma once

#include "guard/install/hookdir.hpp" // HooksLocation, locate_hooks, hook_marker, hook_stub
#include "guard/base/manifest.hpp"
#include "guard/git/repo.hpp"

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

// One run of install or uninstall, shared with the hooks directory it places stubs in:
// the repository it changes, the manifest that records each change, what it reports.
// The repository is what git reports (no libgit2), so every format git reads is guarded.
struct Installation {
    std::string git; // the real git
    Site site; // site.common is the repository it changes
    Manifest manifest;
    InstallReport report;

    void say(std::string line, bool changed = true);

    // Records `r` on disk before the change it describes is made.
    void record(Record r);

    // `path` relative to the directory that holds `common`, when it lies inside it.
    std::string display(const std::filesystem::path& path) const;
};

// Guards the repository containing `start` (a linked worktree acts on the common
// dir): sets guard.enabled, installs the reference-transaction hook (chaining an
// existing one), links the shim into the shim dir, and records a manifest under
// `<common git dir>/guard/`. Idempotent. Throws Error on a refusal.
InstallReport install(const Site& here, const InstallOptions& options);

// Restores the hooks and config from the manifest, byte for byte. Never touches
// stranded branches; keeps the shared shim while another guarded repository uses it.
InstallReport uninstall(const Site& here);

// The `git-guard-hook` or `git-guard-shim` front end installed next to this binary.
std::filesystem::path front_end(const char* name);

// `git --version` of `git` as {major, minor}; {0, 0} when it cannot be read.
std::pair<int, int> git_version(const std::string& git);

// The PATH of whoever ran git-guard: $GIT_GUARD_CALLER_PATH when the front end passes it,
// else PATH without the exec-path entry git puts first for the commands it starts.
std::string caller_path();

// The first executable `git` on `path` (a PATH value), or "" when there is none.
std::filesystem::path first_git_on_path(const std::string& path);

// Guards the worktree `tree` that `git worktree add` has just made in a guarded repository:
// the hooks a relative core.hooksPath (husky's .husky/_) needs in it, git-guard's lefthook
// job, and its lock under --lock-worktrees. Recorded in the manifest, so uninstall undoes it.
// Never throws: a failure is printed, and the tree is as git made it.
void guard_new_worktree(const std::filesystem::path& tree);

// The default shim directory for this user.
std::filesystem::path default_shim_dir();

// The shim link that install recorded for the repository at `common`, if any.
std::filesystem::path installed_shim_link(const std::filesystem::path& common);

} // namespace guard
