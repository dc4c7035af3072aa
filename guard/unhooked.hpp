#pragma once

#include "guard/gitcall.hpp"

namespace guard {

// branch -d|-D|--delete is the hook's to guard (DESIGN §6). When no git-guard hook runs
// from git's hooks directory for this tree (core.hooksPath moved since install, a hook
// manager replaced the hook), nothing would see the deletion: the shim judges and saves
// the branches first, as the hook would. `git guard doctor` names what to repair.
// Returns 0 to let git run, or 128 after saying why a save failed.
int guard_unhooked_deletion(const GitCall& call);

} // namespace guard
