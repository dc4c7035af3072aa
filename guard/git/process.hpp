#pragma once

// The one door to child processes (STYLE.md, "One door to child processes"): every child
// is an argv vector, never a shell; it dies with us (PR_SET_PDEATHSIG, LESSONS 18); a
// time bound and running in the background are options of the same runner.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace guard {

using TimePoint = std::chrono::steady_clock::time_point;

struct RunOptions {
    std::string cwd;                                          // empty: inherit
    std::string input;                                        // written to the child's stdin
    std::vector<std::pair<std::string, std::string>> env;     // added or replaced
    std::vector<std::string> unset;                           // removed from the child's environment
    bool capture = true;                                      // false: child shares our stdout/stderr
    int timeout_ms = 0;  // > 0: past it the child's whole process group is killed (SIGKILL)
    std::optional<TimePoint> deadline; // the same, as a point in time (the earlier of both holds)
    bool judged = false; // the child is a git call the shim has judged: its own steps are
                         // marked as the front end marks them (GIT_GUARD_HANDLED)
    // A conversation of one turn: once `input` is written, stdin stays open until
    // `reply(stdout so far)` returns the rest to write (then stdin closes); it returns
    // nothing while the answer is still incomplete. Unset: stdin closes after `input`.
    std::function<std::optional<std::string>(const std::string&)> reply;
};

struct RunResult {
    int status = -1; // exit code, or 128 + signal
    std::string out;
    std::string err; // when killed at a bound, names the bound
    bool timed_out = false; // killed at its deadline (RunOptions, or a ChildBound)
};

// Runs `argv` (argv[0] is a path or a name looked up on PATH) without a shell and waits.
RunResult run(const std::vector<std::string>& argv, const RunOptions& options = {});

// A child started in the background, its output gathered in anonymous files, so that one
// inspection can overlap two of git's walks. Its stdin is `input`, put in an anonymous file
// first (so it is never blocked on us), or /dev/null when there is none.
class Job {
public:
    Job() = default;
    Job(Job&& other) noexcept;
    Job& operator=(Job&&) = delete;
    Job(const Job&) = delete;
    Job& operator=(const Job&) = delete;
    ~Job();
    RunResult wait(); // once, killed at its deadline; later calls return an empty failure

private:
    friend Job start(const std::vector<std::string>& argv, const RunOptions& options);
    int m_pid = -1;
    int m_out = -1;
    int m_err = -1;
    std::optional<TimePoint> m_deadline;
    std::string m_why; // why it did not start
};
Job start(const std::vector<std::string>& argv, const RunOptions& options = {});

// Starts `argv` (argv[0] a path) outliving us: its own session, no inherited descriptor (a
// tree lock, git's hook pipes), std fds on /dev/null, cwd `/`, and none of git's per-call
// variables (GIT_DIR, GIT_INDEX_FILE…). Returns once it is started; false when it was not.
bool start_detached(const std::vector<std::string>& argv);

// Replaces this process with `argv`; throws Error only when exec fails.
[[noreturn]] void exec(const std::vector<std::string>& argv);

// The real git: $GIT_GUARD_REAL_GIT, else the first `git` on PATH that is not the
// shim (compared by file identity with the shim next to this binary). Throws when none.
std::string find_real_git();

// find_real_git(), found once per run: every git the run starts is the same one.
const std::string& real_git();

// The absolute path of the running executable.
std::string self_path();

// Process `pid`'s identity: "<pid> <start time in clock ticks since boot>" from /proc, which
// tells it apart from any later process given the same pid; "" when it cannot be read.
std::string process_identity(long pid);

} // namespace guard
