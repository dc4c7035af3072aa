// The one runner (process.hpp): run() with its pipes; start() is job.cpp's, the
// child's fork, bound and reaping child.cpp's.
#include "guard/git/child.hpp"

#include "guard/base/error.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

namespace guard {

namespace {

void close_pair(int fds[2])
{
    for (int i = 0; i < 2; ++i)
        if (fds[i] >= 0)
            ::close(fds[i]);
}

// Feeds `input` and drains both outputs together so no pipe fills up and blocks.
// With a deadline, gives up there (result.timed_out) and closes the pipes.
// With a `reply`, stdin is held open (and not polled) once `input` is written, until the
// reply to stdout gives the rest.
void pump(const RunOptions& options, int in_fd, int out_fd, int err_fd, RunResult& result,
          std::optional<TimePoint> deadline)
{
    std::string input = options.input;
    bool awaiting = static_cast<bool>(options.reply) && out_fd >= 0;
    size_t written = 0;
    bool nonblocking = false;
    if (input.empty() && !awaiting) {
        ::close(in_fd);
        in_fd = -1;
    } else if (input.size() > PIPE_BUF) {
        // Our end never blocks, so each POLLOUT writes all the pipe takes: a megabyte of ids
        // went in 4 KiB writes, each waking git (a fifth of `drop --published` at 20,000).
        nonblocking = ::fcntl(in_fd, F_SETFL, ::fcntl(in_fd, F_GETFL) | O_NONBLOCK) == 0;
        ::fcntl(in_fd, F_SETPIPE_SZ, 1 << 20); // as large as allowed; the default 64 KiB else
    }
    while (in_fd >= 0 || out_fd >= 0 || err_fd >= 0) {
        bool held = awaiting && written == input.size(); // all written: waiting for the answer
        pollfd fds[3] = {{held ? -1 : in_fd, POLLOUT, 0}, {out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
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
            // Blocking (small input): at most PIPE_BUF, the room POLLOUT promises; a blocking
            // write of more waits for the child to read all of it while the child waits for
            // us to read. Non-blocking: what fits.
            size_t most = nonblocking ? input.size() - written : std::min<size_t>(input.size() - written, PIPE_BUF);
            ssize_t n = ::write(in_fd, input.data() + written, most);
            if (n > 0)
                written += static_cast<size_t>(n);
            bool again = n < 0 && (errno == EAGAIN || errno == EINTR);
            if ((n < 0 && !again) || (written == input.size() && !awaiting)) {
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
        if (awaiting && written == input.size() && in_fd >= 0) {
            // The answer is in, or will never come (stdout closed): write the rest, or end.
            std::optional<std::string> rest = options.reply(result.out);
            if (rest || out_fd < 0) {
                awaiting = false;
                input += rest.value_or("");
                if (written == input.size()) {
                    ::close(in_fd);
                    in_fd = -1;
                }
            }
        }
    }
}

} // namespace

RunResult run(const std::vector<std::string>& argv, const RunOptions& options)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    if (::pipe2(in, O_CLOEXEC) != 0 ||
        (options.capture && (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0))) {
        int saved = errno;
        close_pair(in);
        close_pair(out);
        throw Error(std::string("pipe: ") + std::strerror(saved));
    }
    std::optional<TimePoint> deadline = deadline_of(options);
    const int fds[3] = {in[0], out[1], err[1]};
    pid_t pid = fork_child(argv, options, fds, deadline.has_value());
    ::close(in[0]);
    if (options.capture) {
        ::close(out[1]);
        ::close(err[1]);
    }
    // A child that exits before reading all its input must not kill us with SIGPIPE.
    auto old_pipe = ::signal(SIGPIPE, SIG_IGN);
    RunResult result;
    pump(options, in[1], options.capture ? out[0] : -1, options.capture ? err[0] : -1, result, deadline);
    ::signal(SIGPIPE, old_pipe);
    // The pipes are closed; a bounded child still gets only the rest of its time to exit.
    result.status = reap(pid, deadline, result.timed_out);
    if (result.timed_out)
        result.err = bound_name(options, *deadline) + (result.err.empty() ? "" : ": " + result.err);
    return result;
}

void exec(const std::vector<std::string>& argv)
{
    auto args = c_argv(argv);
    ::execv(args[0], args.data());
    throw Error("cannot run " + argv[0] + ": " + std::strerror(errno));
}

} // namespace guard
