#pragma once
// What install.cpp and uninstall.cpp share: the real git run on the repository being
// (un)installed, and the lock reason that marks the worktree locks install made.
#include "guard/install/install.hpp"
#include "guard/git/process.hpp"

#include <string>
#include <vector>

namespace guard {

inline constexpr const char* k_lock_reason = "git-guard";

// `git --git-dir=<common> args...` with the real git; the cached config is forgotten after,
// since install and uninstall change it.
RunResult git_in(const Installation& ctx, std::vector<std::string> args);

// git_in, throwing Error with git's stderr when git fails.
void git_checked(const Installation& ctx, const std::vector<std::string>& args);

// A manifest copied with the repository (`cp -a`) names the original's files: from now on
// it says whose it is.
void note_copy(Installation& ctx);

} // namespace guard
