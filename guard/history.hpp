#pragma once

#include "guard/repo.hpp"

#include <set>
#include <string>
#include <vector>

namespace guard {

// Which refs hold commits, so that the commits only one tip reaches can be found.
// Every ref holds, and so does every other worktree's detached HEAD, except:
struct Holders {
    std::set<std::string> skip;      // refs being inspected or deleted
    bool push_per_worktree = false;  // the tree's own refs/bisect, refs/worktree go with it
    std::string own_path;            // the tree whose HEAD is being inspected
    std::vector<git_oid> created;    // values a pending ref transaction writes: they hold too
};

// Commits reachable from `tip` that no holder reaches, newest first.
std::vector<std::string> unique_commits(git_repository* repo, const git_oid& tip,
                                        const Holders& holders);

// DESIGN §4.2: merging `tip` into some candidate U (the upstream of `branch`,
// refs/remotes/*/<branch>, refs/remotes/*/HEAD, guard.baseRef) leaves U's tree unchanged.
bool is_published(git_repository* repo, const git_oid& tip, const std::string& branch,
                  const Settings& settings);

} // namespace guard
