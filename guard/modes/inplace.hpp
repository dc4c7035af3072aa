#pragma once

#include "guard/git/gitcall.hpp"

namespace guard {

// Before git runs `call` (reset, checkout, switch, restore, clean, stash) in a guarded
// repository (the shim has asked git that already): if the command would destroy
// something, saves exactly that under refs/stranded/ and prints one line on stderr naming
// the save. Returns 0 to go on and exec git, or 128 after printing a refusal (the save
// failed; git must not run).
int guard_in_place(const GitCall& call);

} // namespace guard
