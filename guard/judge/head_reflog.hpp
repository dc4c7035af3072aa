#pragma once
// A linked tree's HEAD reflog as work (DESIGN §4.1): `worktree remove` and `prune` delete
// worktrees/<id>/logs/HEAD, and with it the last name of a commit that a clean `switch`
// left behind on a detached HEAD (git 2.39 runs no hook when HEAD turns symbolic).
#include "guard/git/worktree_list.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace guard {

// Every commit id the HEAD reflog of the linked tree `tree` names (old and new values,
// newest last); nothing for the main tree, whose reflog no removal deletes. Read from the
// files backend's log, or asked of git where the refs live in reftable. Throws Error when
// git cannot read it.
std::vector<std::string> head_reflog(const Worktree& tree);

// Of `logged`, the tips whose commits no other tip of `logged` or `head` reaches, given
// `unique` (unique_commits of them all): the fewest commits that keep every one reachable.
std::vector<std::string> reflog_tips(const std::vector<std::string>& logged, const std::string& head,
                                     const std::map<std::string, std::vector<std::string>>& unique);

} // namespace guard
