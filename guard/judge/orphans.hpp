#pragma once

#include "guard/git/arguments.hpp"
#include "guard/judge/destroyed.hpp"
#include "guard/git/gitcall.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace guard {

// Whether `tip` has commits that `target` (if any) and every ref but the `moved` ones
// ("HEAD", "refs/heads/x": the refs the command moves away) leave on no ref; reflogs do
// not count. In doubt (git fails), it has.
bool leaves_behind(const GitCall& call, const std::string& tip, const std::optional<std::string>& target,
                   const std::vector<std::string>& moved);

// HEAD's commits that a move to `target` leaves on no ref: `moves_branch` when the branch
// moves with HEAD (a reset); otherwise only a detached HEAD's commits can go. Sets
// `d.left_behind` to HEAD when there is one, or when git cannot say.
void find_left_behind(const GitCall& call, const std::optional<std::string>& target,
                      bool moves_branch, Destroyed& d);

// The same for `branch` put onto `start` (checkout -B, switch -C, branch -f, branch -M):
// sets `d.left_behind` to its old tip and `d.left_behind_branch` to it. `moves_head`: HEAD
// follows the branch, so it holds nothing either.
void find_overwritten_branch(const GitCall& call, const std::string& branch, const std::string& start,
                             bool moves_head, Destroyed& d);

// branch -f, branch -M|-C (and -m|-c with -f): what the branch put elsewhere held alone.
Destroyed branch_move(const GitCall& call);
// The local branches `git branch -d|-D|--delete` names; none for any other form (and for
// -r, whose deletions are remote-tracking refs).
std::vector<std::string> deleted_branches(const GitCall& call);
// git branch's options, as branch_move reads them (and -q with them).
std::span<const OptionSpec> branch_options();

// stash drop [<stash>], stash clear: the stash commits let go.
Destroyed stash_drop(const GitCall& call);

} // namespace guard
