#pragma once

#include <string>

namespace guard {

class Git;
struct Work;

// HEAD, its tree, its branch and the branch's tip (also mid-rebase or bisect), read
// through the git dir `git` names, into `work`; with `ask_top`, also the root git opens
// the tree at (`work.top`, "" when git cannot say), asked by the same git. One git when
// HEAD resolves to a commit.
void read_head(const Git& git, Work& work, bool ask_top = false);

// HEAD as git's worktree list gave it (`head`, `branch_ref`), for a report over many
// trees: no git of its own unless the listing named no commit (unborn: read_head) or a
// rebase or bisect in progress names a branch. HEAD's tree is left unread.
void head_as_listed(const Git& git, Work& work, const std::string& head, const std::string& branch_ref);

// HEAD and its branch as `git status --porcelain=v2 -z --branch` gave them (`status_out`):
// the commit status compared the index with, read in the same moment. False, leaving
// `work` alone, unless status named a commit: unborn ("(initial)"), "(unknown)", or a HEAD
// naming a ref outside refs/heads are left to read_head. A "(detached)" HEAD is taken as
// detached and marked (Work::detached_by_status): a branch may bear that very name, which
// settle_detached then asks about. HEAD's tree is left unread.
bool head_from_status(const Git& git, Work& work, const std::string& status_out);

// Settles Work::detached_by_status: when `maybe_branch` (a branch named "(detached)" exists,
// or nobody has read the refs), HEAD and its branch are asked of git again.
void settle_detached(const Git& git, Work& work, bool maybe_branch);

} // namespace guard
