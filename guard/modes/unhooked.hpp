#pragma once

#include "guard/git/gitcall.hpp"

#include <optional>
#include <string>
#include <vector>

namespace guard {

// The argv to exec git with for `call`: the caller's own; or, when the caller switched
// hooks off for this call (`call.hooks_off`) and git would then run no git-guard hook
// here, the same call with `-c core.hooksPath=<common>/guard/hooks-only` added last, a
// directory holding only git-guard's reference-transaction hook (DESIGN §2.4).
std::vector<std::string> git_argv(const GitCall& call);

// Ref packing (`pack-refs`, `refs optimize`, `gc` but not `gc --auto`) moves no ref: git
// prunes each packed loose ref in a transaction of its own and starts the
// reference-transaction hook for each (2 per ref on git 2.39, 3 on 2.55), so even a no-op
// hook makes `pack-refs --all` 14-30x slower (bench/pack_refs.sh). When no hook but ours
// would run for `call`, the argv that runs git with hooks off; otherwise nothing, and git
// runs as git_argv says (a caller's hooks-off call: with our hook alone).
std::optional<std::vector<std::string>> packing_argv(const GitCall& call);

// branch -d|-D|--delete is the hook's to guard (DESIGN §6). When the repository's own
// configuration runs no git-guard hook for this tree (core.hooksPath moved since install,
// a hook manager replaced the hook), nothing would see the deletion: the shim judges and
// saves the branches first, as the hook would. `git guard doctor` names what to repair.
// Returns 0 to let git run, or 128 after saying why a save failed.
int guard_unhooked_deletion(const GitCall& call);

} // namespace guard
