#pragma once
// The working state of one checkout (tree_state.cpp): a tree, or a nested repository.
#include "guard/judge/work.hpp"

#include <filesystem>
#include <functional>

namespace guard {

// The git dir that `dir`'s `.git` (a directory, or a `gitdir:` file) names, or "".
std::filesystem::path git_dir_of(const std::filesystem::path& dir);

// The working state of the repository whose git dir is `git_dir` checked out at
// `root` (a tree, or a nested repository): `Work` without commits. `meanwhile` runs
// while git's status and index listing run (HEAD is read by then): the commits' walk
// costs no wall time of its own. `ask_top`: also the root git opens it at (`work.top`).
// `listed`: HEAD as git's worktree list gave it for this tree (head_as_listed), for a
// report; none: HEAD read by git here, from status itself when there is no `meanwhile` and
// no `ask_top` (head_from_status; rev-parse for an unborn or detached HEAD). The index
// listing is the one kept for the index's bytes when there is one (index_listing.hpp).
Work inspect_checkout(const std::filesystem::path& git_dir, const std::filesystem::path& root,
                      const Settings& settings, const std::function<void(Work&)>& meanwhile = {},
                      bool ask_top = false, const Worktree* listed = nullptr);

} // namespace guard
