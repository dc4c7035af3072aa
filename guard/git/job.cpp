// The runner's background jobs (process.hpp): output in anonymous files, bounded like run().
#include "guard/git/child.hpp"

#include "guard/base/error.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace guard {

namespace {

std::string drain(int fd)
{
    std::string text;
    if (fd < 0)
        return text;
    // Read in place, sized once: a 100,000-entry index listing is 7 MB, and growing a
    // string chunk by chunk copies it over and over.
    struct stat st {};
    size_t size = ::fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0;
    text.resize(size);
    size_t got = 0;
    for (ssize_t n; got < size && (n = ::pread(fd, text.data() + got, size - got, static_cast<off_t>(got))) > 0;)
        got += static_cast<size_t>(n);
    text.resize(got);
    ::close(fd);
    return text;
}

// An anonymous file for a job's output. Memory first (memfd): the answer must land
// here or nowhere, whatever /tmp is (read-only, full, missing); then an unnamed file in
// $TMPDIR or /tmp. -1, with `why` said, when there is none: the job does not start.
int output_file(std::string& why)
{
    int fd = ::memfd_create("git-guard-job", MFD_CLOEXEC);
    if (fd >= 0)
        return fd;
    why = std::string("no memory file (") + std::strerror(errno) + ")";
    std::vector<std::string> dirs{"/tmp"};
    if (const char* tmpdir = std::getenv("TMPDIR"); tmpdir && *tmpdir && std::string(tmpdir) != "/tmp")
        dirs.insert(dirs.begin(), tmpdir);
    for (const auto& dir : dirs) {
        fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0)
            return fd;
        why += ", no file in " + dir + " (" + std::strerror(errno) + ")";
    }
    return -1;
}

// An anonymous file holding `input`, read from its start: a job's stdin. -1 (and `why`)
// when none can be made or written whole.
int given_input(const std::string& input, std::string& why)
{
    int fd = output_file(why);
    if (fd < 0)
        return -1;
    size_t written = 0;
    while (written < input.size()) {
        ssize_t n = ::write(fd, input.data() + written, input.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            why = std::string("cannot write its input (") + std::strerror(errno) + ")";
            ::close(fd);
            return -1;
        }
        written += static_cast<size_t>(n);
    }
    ::lseek(fd, 0, SEEK_SET);
    return fd;
}

} // namespace

Job start(const std::vector<std::string>& argv, const RunOptions& options)
{
    Job job;
    std::string what = argv.size() > 1 ? argv[0] + " " + argv[1] : argv.empty() ? "" : argv[0];
    std::string why;
    job.m_out = output_file(why);
    job.m_err = job.m_out < 0 ? -1 : output_file(why);
    int null = options.input.empty() ? ::open("/dev/null", O_RDONLY | O_CLOEXEC) : given_input(options.input, why);
    if (job.m_out < 0 || job.m_err < 0 || null < 0) { // it would answer on our own stdout: not at all
        job.m_why = what + " could not be started: nowhere to keep its output or input: " + why;
        if (null >= 0)
            ::close(null);
        return job;
    }
    job.m_deadline = deadline_of(options);
    const int fds[3] = {null, job.m_out, job.m_err};
    try {
        job.m_pid = fork_child(argv, options, fds, job.m_deadline.has_value());
    } catch (const Error& e) {
        job.m_why = what + " could not be started: " + e.what();
    }
    ::close(null);
    return job;
}

Job::Job(Job&& other) noexcept
    : m_pid(other.m_pid), m_out(other.m_out), m_err(other.m_err), m_deadline(other.m_deadline),
      m_why(std::move(other.m_why))
{
    other.m_pid = other.m_out = other.m_err = -1;
}

Job::~Job()
{
    if (m_pid > 0)
        wait();
    for (int fd : {m_out, m_err})
        if (fd >= 0)
            ::close(fd);
}

RunResult Job::wait()
{
    RunResult result;
    if (m_pid <= 0) {
        result.err = m_why.empty() ? "the job could not be started" : m_why;
        return result;
    }
    result.status = reap(m_pid, m_deadline, result.timed_out);
    m_pid = -1;
    result.out = drain(m_out);
    result.err = drain(m_err);
    m_out = m_err = -1;
    if (result.timed_out)
        result.err = bound_name({}, *m_deadline) + (result.err.empty() ? "" : ": " + result.err);
    return result;
}

} // namespace guard
