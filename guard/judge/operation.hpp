#pragma once

#include "guard/judge/destroyed.hpp"
#include "guard/git/gitcall.hpp"

namespace guard {

// merge --abort, and rebase, cherry-pick, revert or am --abort|--skip: every staged and
// unstaged change when git's state files show the operation under way; nothing otherwise
// (git refuses).
Destroyed operation_end(const GitCall& call);

} // namespace guard
