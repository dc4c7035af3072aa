// The runner's children: forked tied to our life, bounded, reaped (see child.hpp).
#include "guard/git/child.hpp"

#include "guard/base/error.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace guard {

namespace {

// The bound every child of this process is under while a ChildBound lives.
std::optional<TimePoint> s_bound;
std::string s_bound_what;

// In the child: wire the fds, apply cwd and env, exec. Never returns.
[[noreturn]] void start_child(const std::vector<std::string>& argv, const RunOptions& options,
                              const int fds[3], bool bounded, pid_t parent)
{
    // A child never outlives git-guard (LESSONS 18): a killed hook or shim takes its git along.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent)
        _exit(137);
    for (int fd = 0; fd < 3; ++fd)
        if (fds[fd] >= 0)
            ::dup2(fds[fd], fd);
    // A bounded child leads its own process group, so a timeout also ends what it started.
    if (bounded)
        ::setpgid(0, 0);
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0)
        _exit(127);
    for (const auto& name : options.unset)
        ::unsetenv(name.c_str());
    for (const auto& [key, value] : options.env)
        ::setenv(key.c_str(), value.c_str(), 1);
    if (options.judged) { // front/steps.c: "<pid that runs git> <hash of an alias's words>"
        // The mark the front end left for this process names the alias git expands: it
        // passes to the git that now runs in its place (its steps are this call's).
        const char* mark = std::getenv("GIT_GUARD_HANDLED");
        char* rest = nullptr;
        std::string words = mark && std::strtol(mark, &rest, 10) == static_cast<long>(parent) && *rest == ' '
                                ? std::string(rest + 1)
                                : "0";
        ::setenv("GIT_GUARD_HANDLED", (std::to_string(::getpid()) + " " + words).c_str(), 1);
    }
    ::signal(SIGPIPE, SIG_DFL);
    auto args = c_argv(argv);
    ::execvp(args[0], args.data());
    _exit(127);
}

// Whether `pid` has exited, leaving it to be reaped.
bool exited(pid_t pid)
{
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
           info.si_pid != 0;
}

// Until `pid` has exited (left to be reaped) or `deadline` has passed (then `timed_out`).
// On the child's pidfd, so the wait ends as the child does: its pipes close a moment before
// it has exited, and the 10 ms naps this waited in before cost a bounded git (every git of
// the hook's judgement and saves) up to 10 ms each. Without pidfds (Linux < 5.3): 1 ms naps.
void await_exit(pid_t pid, TimePoint deadline, bool& timed_out)
{
    // glibc 2.36's <sys/pidfd.h> declares pidfd_open without C linkage: the system call.
    int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    while (!exited(pid)) {
        int left = remaining_ms(deadline);
        if (left == 0) {
            timed_out = true;
            break;
        }
        pollfd ready{fd, POLLIN, 0};
        if (fd < 0 || (::poll(&ready, 1, left) < 0 && errno != EINTR)) {
            if (fd >= 0)
                ::close(fd);
            fd = -1;
            ::usleep(1000);
        }
    }
    if (fd >= 0)
        ::close(fd);
}

} // namespace

std::vector<char*> c_argv(const std::vector<std::string>& argv)
{
    std::vector<char*> out;
    for (const auto& a : argv)
        out.push_back(const_cast<char*>(a.c_str()));
    out.push_back(nullptr);
    return out;
}

std::optional<TimePoint> deadline_of(const RunOptions& options)
{
    std::optional<TimePoint> at = options.deadline;
    auto earlier = [&](TimePoint t) { at = at ? std::min(*at, t) : t; };
    if (options.timeout_ms > 0)
        earlier(std::chrono::steady_clock::now() + std::chrono::milliseconds(options.timeout_ms));
    if (s_bound)
        earlier(*s_bound);
    return at;
}

std::string bound_name(const RunOptions& options, TimePoint deadline)
{
    bool process_bound = s_bound && *s_bound == deadline && (!options.deadline || *options.deadline != deadline);
    return "stopped at the time bound (" + (process_bound ? s_bound_what : std::string("its own")) + ")";
}

pid_t fork_child(const std::vector<std::string>& argv, const RunOptions& options, const int fds[3], bool bounded)
{
    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0)
        throw Error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0)
        start_child(argv, options, fds, bounded, parent);
    if (bounded)
        ::setpgid(pid, pid); // as the child does: whichever runs first, kill(-pid) reaches it
    return pid;
}

int remaining_ms(TimePoint deadline)
{
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    return static_cast<int>(std::clamp<long long>(left.count(), 0, 1 << 30));
}

int reap(pid_t pid, const std::optional<TimePoint>& deadline, bool& timed_out)
{
    if (deadline && !timed_out)
        await_exit(pid, *deadline, timed_out);
    if (timed_out)
        ::kill(-pid, SIGKILL); // the whole group: what the child started goes with it
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

ChildBound::ChildBound(TimePoint deadline, std::string what) : m_outer(s_bound), m_outer_what(s_bound_what)
{
    if (!s_bound || deadline < *s_bound) {
        s_bound = deadline;
        s_bound_what = std::move(what);
    }
}

ChildBound::~ChildBound()
{
    s_bound = m_outer;
    s_bound_what = m_outer_what;
}

} // namespace guard
