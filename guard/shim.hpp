#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace guard {

// The full shim, reached when the front end saw `worktree remove`, `worktree
// prune` or an alias for them. `args` is git's argv, args[0] == "git". Saves
// what the removal would destroy, then execs the real git with `args` unchanged.
// Returns only on refusal (128) or when git could not be started.
int run_shim(const std::vector<std::string>& args);

// The position of git's subcommand in `argv` (argv[0] is git), past git's global
// options and their values; argv.size() when there is none.
size_t subcommand_index(const std::vector<std::string>& argv);

} // namespace guard
