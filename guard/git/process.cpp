#include "guard/git/process.hpp"

#include "guard/base/error.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <unistd.h>

extern char** environ;

namespace guard {

namespace {

std::vector<char*> c_argv(const std::vector<std::string>& argv)
{
    std::vector<char*> out;
    for (const auto& a : argv)
        out.push_back(const_cast<char*>(a.c_str()));
    out.push_back(nullptr);
    return out;
}

void close_pair(int fds[2])
{
    for (int i = 0; i < 2; ++i)
        if (fds[i] >= 0)
            ::close(fds[i]);
}

// In the child: wire the pipes, apply cwd and env, exec. Never returns.
[[noreturn]] void start_child(const std::vector<std::string>& argv, const RunOptions& options,
                              int in[2], int out[2], int err[2], pid_t parent)
{
    // A child never outlives git-guard (LESSONS 18): a killed hook or shim takes its git along.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent)
        _exit(137);
    ::dup2(in[0], 0);
    if (options.capture) {
        ::dup2(out[1], 1);
        ::dup2(err[1], 2);
    }
    close_pair(in);
    close_pair(out);
    close_pair(err);
    // A bounded child leads its own process group, so a timeout also ends what it started.
    if (options.timeout_ms > 0)
        ::setpgid(0, 0);
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0)
        _exit(127);
    for (const auto& [key, value] : options.env)
        ::setenv(key.c_str(), value.c_str(), 1);
    if (options.judged) // front/shim.c: "<pid that runs git> 0"
        ::setenv("GIT_GUARD_HANDLED", (std::to_string(::getpid()) + " 0").c_str(), 1);
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

int remaining_ms(std::chrono::steady_clock::time_point deadline)
{
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    return static_cast<int>(std::max<long long>(0, left.count()));
}

// Feeds `input` and drains both outputs together so no pipe fills up and blocks.
// With `timeout_ms` > 0, gives up at the deadline (result.timed_out) and closes the pipes.
void pump(const std::string& input, int in_fd, int out_fd, int err_fd, RunResult& result,
          std::optional<std::chrono::steady_clock::time_point> deadline)
{
    size_t written = 0;
    if (input.empty()) {
        ::close(in_fd);
        in_fd = -1;
    }
    while (in_fd >= 0 || out_fd >= 0 || err_fd >= 0) {
        pollfd fds[3] = {{in_fd, POLLOUT, 0}, {out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
        int wait = deadline ? remaining_ms(*deadline) : -1;
        if (wait == 0) {
            result.timed_out = true;
            for (int fd : {in_fd, out_fd, err_fd})
                if (fd >= 0)
                    ::close(fd);
            return;
        }
        if (::poll(fds, 3, wait) < 0) {
            if (errno == EINTR)
                continue;
            throw Error(std::string("poll: ") + std::strerror(errno));
        }
        if (in_fd >= 0 && fds[0].revents) {
            // At most PIPE_BUF: POLLOUT promises that much room, and a blocking write of more
            // waits for the child to read all of it while the child waits for us to read.
            ssize_t n = ::write(in_fd, input.data() + written, std::min<size_t>(input.size() - written, PIPE_BUF));
            if (n > 0)
                written += static_cast<size_t>(n);
            if (n < 0 || written == input.size()) {
                ::close(in_fd);
                in_fd = -1;
            }
        }
        int* read_fds[2] = {&out_fd, &err_fd};
        std::string* sinks[2] = {&result.out, &result.err};
        for (int i = 0; i < 2; ++i) {
            if (*read_fds[i] < 0 || !fds[i + 1].revents)
                continue;
            char chunk[65536];
            ssize_t n = ::read(*read_fds[i], chunk, sizeof chunk);
            if (n > 0)
                sinks[i]->append(chunk, static_cast<size_t>(n));
            else if (n == 0 || errno != EINTR) {
                ::close(*read_fds[i]);
                *read_fds[i] = -1;
            }
        }
    }
}

} // namespace

RunResult run(const std::vector<std::string>& argv, const RunOptions& options)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    if (::pipe2(in, O_CLOEXEC) != 0 ||
        (options.capture && (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)))
        throw Error(std::string("pipe: ") + std::strerror(errno));
    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0)
        throw Error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0)
        start_child(argv, options, in, out, err, parent);
    if (options.timeout_ms > 0)
        ::setpgid(pid, pid); // as the child does: whichever runs first, kill(-pid) reaches it
    ::close(in[0]);
    if (options.capture) {
        ::close(out[1]);
        ::close(err[1]);
    }
    auto old_pipe = ::signal(SIGPIPE, SIG_IGN);
    RunResult result;
    std::optional<std::chrono::steady_clock::time_point> deadline;
    if (options.timeout_ms > 0)
        deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.timeout_ms);
    pump(options.input, in[1], options.capture ? out[0] : -1, options.capture ? err[0] : -1,
         result, deadline);
    ::signal(SIGPIPE, old_pipe);
    // The pipes are closed; a bounded child still gets only the rest of its time to exit.
    while (deadline && !result.timed_out && !exited(pid)) {
        if (remaining_ms(*deadline) == 0)
            result.timed_out = true;
        else
            ::usleep(10000);
    }
    if (result.timed_out)
        ::kill(-pid, SIGKILL); // the whole group: what the child started goes with it
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

void exec(const std::vector<std::string>& argv)
{
    auto args = c_argv(argv);
    ::execv(args[0], args.data());
    throw Error("cannot run " + argv[0] + ": " + std::strerror(errno));
}

std::string self_path()
{
    std::error_code ec;
    auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        throw Error("cannot find the running executable: " + ec.message());
    return path.string();
}

std::string find_real_git()
{
    if (const char* forced = std::getenv("GIT_GUARD_REAL_GIT"); forced && *forced)
        return forced;
    struct stat shim {};
    bool have_shim = false;
    // The shim is next to git-guard in the build tree, in libexec/git-guard/ when installed.
    auto dir = std::filesystem::path(self_path()).parent_path();
    for (const auto& at : {dir / "git-guard-shim", dir.parent_path() / "libexec/git-guard/git-guard-shim"})
        have_shim = have_shim || ::stat(at.c_str(), &shim) == 0;
    struct stat self {};
    ::stat("/proc/self/exe", &self);
    const char* path = std::getenv("PATH");
    std::string rest = path ? path : "/usr/bin:/bin";
    for (size_t start = 0; start <= rest.size();) {
        size_t end = rest.find(':', start);
        if (end == std::string::npos)
            end = rest.size();
        std::string candidate = rest.substr(start, end - start);
        candidate = (candidate.empty() ? "." : candidate) + "/git";
        start = end + 1;
        struct stat st {};
        bool found = ::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
                     ::access(candidate.c_str(), X_OK) == 0;
        bool is_shim = found && have_shim && st.st_dev == shim.st_dev && st.st_ino == shim.st_ino;
        bool is_self = found && st.st_dev == self.st_dev && st.st_ino == self.st_ino;
        if (found && !is_shim && !is_self)
            return candidate;
        // A system install's /usr/bin/git is the shim (or, broken, missing); the distribution's
        // git is beside it (docs/install.md, "System install").
        if (std::string diverted = candidate + ".distrib";
            ::stat(diverted.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(diverted.c_str(), X_OK) == 0)
            return diverted;
    }
    throw Error("no real git found on PATH (only the git-guard shim); set GIT_GUARD_REAL_GIT");
}

} // namespace guard
