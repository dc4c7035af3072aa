#pragma once

#include <string>
#include <utility>
#include <vector>

namespace guard {

struct RunOptions {
    std::string cwd;                                          // empty: inherit
    std::string input;                                        // written to the child's stdin
    std::vector<std::pair<std::string, std::string>> env;     // added or replaced
    bool capture = true;                                      // false: child shares our stdout/stderr
    int timeout_ms = 0;  // > 0: past it the child's whole process group is killed (SIGKILL)
    bool judged = false; // the child is a git call the shim has judged: its own steps are
                         // marked as the front end marks them (GIT_GUARD_HANDLED)
};

struct RunResult {
    int status = -1; // exit code, or 128 + signal
    std::string out;
    std::string err;
    bool timed_out = false; // killed at RunOptions::timeout_ms
};

// Runs `argv` (argv[0] is a path or a name looked up on PATH) without a shell and waits.
RunResult run(const std::vector<std::string>& argv, const RunOptions& options = {});

// Replaces this process with `argv`; throws Error only when exec fails.
[[noreturn]] void exec(const std::vector<std::string>& argv);

// The real git: $GIT_GUARD_REAL_GIT, else the first `git` on PATH that is not the
// shim (compared by file identity with the shim next to this binary). Throws when none.
std::string find_real_git();

// The absolute path of the running executable.
std::string self_path();

} // namespace guard
