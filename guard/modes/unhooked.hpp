#pragma once

#include "guard/git/gitcall.hpp"

#include <string>
#include <vector>

namespace guard {

// The argv to exec git with for `call`: the caller's own; or, when the caller switched
// hooks off for this call (`call.hooks_off`) and git would then run no git-guard hook
// here, the same call with `-c core.hooksPath=<common>/guard/hooks-only` added last, a
// directory holding only git-guard's reference-transaction hook (DESIGN §2.4).
std::vector<std::string> git_argv(const GitCall& call);

// branch -d|-D|--delete is the hook's to guard (DESIGN §6). When the repository's own
// configuration runs no git-guard hook for this tree (core.hooksPath moved since install,
// a hook manager replaced the hook), nothing would see the deletion: the shim judges and
// saves the branches first, as the hook would. `git guard doctor` names what to repair.
// Returns 0 to let git run, or 128 after saying why a save failed.
int guard_unhooked_deletion(const GitCall& call);

} // namespace guard
