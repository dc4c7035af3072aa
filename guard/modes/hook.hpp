#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

// `git-guard hook reference-transaction <state> [<hook path>]`, stdin as git
// gave it. Saves each branch the transaction deletes, runs the chained hook
// with the same input, and returns the exit code git should see.
int run_hook(const std::vector<std::string>& args);

// The hook's judgement and saves for a deletion of `branches` (short names) that no hook
// will see, made before git runs: what the hook does in `prepared`. Returns 0, or 1 after
// saying why a save failed. `inherited`: the shim found the repository guarded through
// the one around it (a submodule's), whose own guard.enabled is unset.
int guard_branch_deletions(const std::filesystem::path& git_dir, const std::filesystem::path& common,
                           const std::vector<std::string>& branches, bool inherited = false);

} // namespace guard
