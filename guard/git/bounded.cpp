// Running git from the hook: bounded by a deadline, and tied to our life.
#include "guard/git/bounded.hpp"

#include "guard/base/error.hpp"
#include "guard/git/process.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace guard {

namespace {

[[noreturn]] void start_git(const std::string& git, const fs::path& git_dir,
                            const std::vector<std::string>& args, int in, int out, int err, pid_t parent)
{
    // Why: a killed hook must leave no worker (LESSONS 18): we die, so does this git.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent)
        _exit(137);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err >= 0 ? err : ::open("/dev/null", O_WRONLY), 2);
    // Why: attributes and merge drivers must not change the published test (§4.2).
    ::setenv("GIT_ATTR_NOSYSTEM", "1", 1);
    std::vector<std::string> argv{git};
    if (!git_dir.empty())
        argv.push_back("--git-dir=" + git_dir.string());
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c;
    for (auto& a : argv)
        c.push_back(a.data());
    c.push_back(nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::execv(c[0], c.data());
    _exit(127);
}

int remaining_ms(Clock::time_point deadline)
{
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return left.count() <= 0 ? 0 : static_cast<int>(std::min<long long>(left.count(), 1 << 30));
}

} // namespace

std::optional<Bounded> run_git_bounded(const fs::path& git_dir, const std::vector<std::string>& args,
                                       const std::string& input, Clock::time_point deadline)
{
    static const std::string git = find_real_git();
    // A git that exits before reading all its input must not kill us with SIGPIPE.
    ::signal(SIGPIPE, SIG_IGN);
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
        throw Error("cannot run git " + (args.empty() ? "" : args[0]) + ": " + std::strerror(errno));
    // A file, not a pipe: git's few warnings never need a reader while it runs.
    int err = ::memfd_create("git-guard-stderr", MFD_CLOEXEC);
    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid == 0)
        start_git(git, git_dir, args, in[0], out[1], err, parent);
    ::close(in[0]);
    ::close(out[1]);
    if (pid < 0) {
        ::close(in[1]);
        ::close(out[0]);
        if (err >= 0)
            ::close(err);
        throw Error(std::string("cannot start git: ") + std::strerror(errno));
    }
    Bounded result;
    size_t written = 0;
    int to_child = in[1];
    if (input.empty()) {
        ::close(to_child);
        to_child = -1;
    }
    bool timed_out = false;
    for (;;) {
        pollfd fds[2] = {{out[0], POLLIN, 0}, {to_child, POLLOUT, 0}};
        int ready = ::poll(fds, to_child >= 0 ? 2 : 1, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            timed_out = true;
            break;
        }
        if (to_child >= 0 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n = ::write(to_child, input.data() + written, std::min<size_t>(input.size() - written, 65536));
            written += n > 0 ? static_cast<size_t>(n) : 0;
            if (n < 0 || written == input.size()) {
                ::close(to_child);
                to_child = -1;
            }
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            char buf[65536];
            ssize_t n = ::read(out[0], buf, sizeof buf);
            if (n <= 0)
                break;
            result.out.append(buf, static_cast<size_t>(n));
        }
    }
    if (to_child >= 0)
        ::close(to_child);
    ::close(out[0]);
    if (timed_out)
        ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (err >= 0) {
        char buf[4096];
        ssize_t n = 0;
        for (off_t at = 0; (n = ::pread(err, buf, sizeof buf, at)) > 0 && result.err.size() < 65536; at += n)
            result.err.append(buf, static_cast<size_t>(n));
        ::close(err);
    }
    if (timed_out)
        return std::nullopt;
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

} // namespace guard
