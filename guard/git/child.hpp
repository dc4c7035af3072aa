#pragma once

// A child process of the runner (process.hpp): how it is forked, bounded and reaped.
// Only the runner (process.cpp, job.cpp) uses what is below ChildBound.

#include "guard/git/process.hpp"

#include <sys/types.h>

namespace guard {

// While one lives, every child this process starts (run, start, and so every Git call) is
// killed at `deadline` unless its own bound is earlier, and its result's `err` names
// `what` (the hook: "guard.hookTimeout (30s)"). Nested bounds hold the earlier one.
class ChildBound {
public:
    ChildBound(TimePoint deadline, std::string what);
    ~ChildBound();
    ChildBound(const ChildBound&) = delete;
    ChildBound& operator=(const ChildBound&) = delete;

private:
    std::optional<TimePoint> m_outer;
    std::string m_outer_what;
};

// `argv` as execv takes it (pointing into `argv`).
std::vector<char*> c_argv(const std::vector<std::string>& argv);

// The earliest of `options`' own bounds and the live ChildBound's; none: unbounded.
std::optional<TimePoint> deadline_of(const RunOptions& options);

// What a child killed at `deadline` was stopped by, for its result's `err`.
std::string bound_name(const RunOptions& options, TimePoint deadline);

// Forks `argv` with `fds` as its stdin, stdout and stderr (-1: ours), tied to our life;
// `bounded`: it leads its own process group, so that reap can kill all it started.
// Throws Error when fork fails.
pid_t fork_child(const std::vector<std::string>& argv, const RunOptions& options, const int fds[3], bool bounded);

// Milliseconds left until `deadline` (0 once it passed).
int remaining_ms(TimePoint deadline);

// Waits for `pid`; at `deadline` its whole group is killed first (`timed_out` set).
// Returns its exit code, or 128 + the signal.
int reap(pid_t pid, const std::optional<TimePoint>& deadline, bool& timed_out);

} // namespace guard
