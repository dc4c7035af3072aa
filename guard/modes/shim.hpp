#pragma once

#include "guard/git/gitcall.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace guard {

// The full shim, reached from the front end (front/shim.c) with its parse of the call:
//   git --guard-call=N <real git> <cwd> <G> <globals…> <W> <words…> -- <caller's argv[1..]>
// In a guarded repository (asked of git before anything else), saves what
// `worktree remove|prune` would destroy, or hands an in-place destroyer to
// guard_in_place; then execs the real git with the caller's arguments unchanged.
// Returns only on refusal (128) or when git could not be started.
int run_shim(const std::vector<std::string>& args);

// Decodes the front end's handoff in `args` (args[0] == "git"). Throws UsageError when
// it is not one.
GitCall decode_call(const std::vector<std::string>& args);

// The position of git's subcommand in `argv` (argv[0] is git), past git's global
// options and their values, by the front end's own option table; argv.size() when there
// is none.
size_t subcommand_index(const std::vector<std::string>& argv);

} // namespace guard
