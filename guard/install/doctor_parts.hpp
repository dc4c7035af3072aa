#pragma once
// What doctor's check files share (doctor.cpp runs the checks; doctor_hooks.cpp judges the
// hooks): the repository under examination and the two ways a check ends.
#include "guard/install/doctor.hpp"

#include "guard/git/repo.hpp"
#include "guard/git/site.hpp"
#include "guard/judge/work.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

inline constexpr const char* k_reinstall =
    "reinstall git-guard (installer/install.sh, or cmake --install)";

Check passed(std::string name, std::string detail);
Check failed(std::string name, std::string detail, std::string fix);

// What every repository check reads: the repository as git reports it (no libgit2, so
// SHA-256, reftable and relative-worktree repositories are examined like any other).
struct Patient {
    std::string git;
    Site site;
    std::filesystem::path common;
    Settings settings;
};

// "hooks_path", then "hook" (and "lock_hook" with --lock-worktrees) for every hooks
// directory git runs hooks from.
void hook_checks(std::vector<Check>& checks, const Patient& p);

} // namespace guard
