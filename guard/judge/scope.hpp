#pragma once

#include "guard/judge/destroyed.hpp"

#include <optional>
#include <string>
#include <vector>

namespace guard {

// What a form of a command loses: which versions, where, and over which untracked files.
struct Scope {
    std::vector<std::string> pathspec;       // the caller's, relative to its cwd; empty: all
    bool worktree = false;                   // working versions that differ from the index
    bool index = false;                      // staged versions that differ from HEAD
    std::optional<std::string> overwrite;    // a commit whose files replace untracked ones
    bool any_untracked = false;              // that commit is unknown: every untracked file
    bool ignored = true;                     // ignored files go too (kept: guard.keepIgnored)
};

// Asks git what `scope` covers in `call`'s tree: the tracked paths whose working or
// staged version differs (status), and the untracked files (and guard.keepIgnored
// ignored ones) that `scope.overwrite` would replace. Throws Error when git fails.
Destroyed ask_scope(const GitCall& call, const Scope& scope, const std::string& reason);

// The commit `rev` names in `call`'s repository ("-" is the previous branch), if any.
std::optional<std::string> resolve(const GitCall& call, const std::string& rev);

// guard.keepIgnored, as git reads it.
std::vector<std::string> keep_ignored(const GitCall& call);

} // namespace guard
