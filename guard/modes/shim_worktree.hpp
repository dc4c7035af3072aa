#pragma once

#include "guard/git/gitcall.hpp"

#include <string>

namespace guard {

// `git worktree remove|prune|add` as the front end handed it over (`call`): saves what
// git would destroy (DESIGN §4.1, §6), then execs the real git with the caller's
// arguments unchanged. Returns only on refusal (128) or, for `add`, git's exit status.
int guard_worktree(const GitCall& call);

// git, as the caller ran it (with our hook put back when the caller switched hooks off).
[[noreturn]] void exec_git(const GitCall& call);

// `git config --bool <key>` as the caller's git would read it (its -c, --git-dir, -C).
bool config_true(const GitCall& call, const std::string& key);

} // namespace guard
