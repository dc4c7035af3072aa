#pragma once

#include "guard/gitcall.hpp"

namespace guard {

// Before git runs `call` (reset, checkout, switch, restore, clean, stash): if the
// repository is guarded and the command would destroy something, saves exactly that
// under refs/stranded/ and prints one line on stderr naming the save. Returns 0 to go
// on and exec git, or 128 after printing a refusal (the save failed; git must not run).
// Outside guarded repositories it asks git one question and touches nothing.
int guard_in_place(const GitCall& call);

} // namespace guard
