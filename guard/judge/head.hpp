#pragma once

namespace guard {

class Git;
struct Work;

// HEAD, its tree, its branch and the branch's tip (also mid-rebase or bisect), read
// through the git dir `git` names, into `work`; with `ask_top`, also the root git opens
// the tree at (`work.top`, "" when git cannot say), asked by the same git. One git when
// HEAD resolves to a commit.
void read_head(const Git& git, Work& work, bool ask_top = false);

} // namespace guard
