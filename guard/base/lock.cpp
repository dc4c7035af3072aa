#include "guard/base/lock.hpp"

#include "guard/base/error.hpp"
#include "guard/base/file.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <set>
#include <vector>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace guard {

namespace {

struct LockFile {
    std::string key;
    fs::path file;  // holds "<pid> <command line>" of its holder, written through `fd`
    int fd = -1;    // open on `file`, without close-on-exec: the lock outlives exec
};

// Past this many files in `locks/`, a new holder removes the ones nobody holds: a holder
// that exec'd git (the shim) never runs its release, so its file stays.
constexpr size_t k_sweep_above = 32;

// The files this process holds (device, inode): it never sweeps them, since closing any
// descriptor of a file drops this process's lock on it.
std::set<std::pair<dev_t, ino_t>>& held_here()
{
    static std::set<std::pair<dev_t, ino_t>> files;
    return files;
}

// FNV-1a 64: every process and every build maps a key to the same file, unlike std::hash.
std::string key_hash(const std::string& key)
{
    std::uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : key) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return hex;
}

// The command line of `/proc/<proc>/cmdline`, arguments joined by spaces; empty when unknown.
std::string command_line(const std::string& proc)
{
    std::string command = read_bytes("/proc/" + proc + "/cmdline").value_or("");
    std::replace(command.begin(), command.end(), '\0', ' ');
    while (!command.empty() && command.back() == ' ')
        command.pop_back();
    return command;
}

// `<common>/guard/locks`, made below a git dir that exists: a repository deleted while
// a lock was wanted (the watcher reacting to the deletion) is never made again.
void make_locks_dir(const fs::path& locks)
{
    std::error_code ec;
    if (fs::is_directory(locks, ec)) // made before: one stat (a hook takes hundreds of locks)
        return;
    if (!fs::is_directory(locks.parent_path().parent_path(), ec))
        throw Error("cannot lock in " + locks.parent_path().parent_path().string() + ": the git dir is gone");
    fs::create_directory(locks.parent_path(), ec);
    fs::create_directory(locks, ec);
    if (!fs::is_directory(locks, ec))
        throw Error("cannot create " + locks.string() + ": " + ec.message());
}

// A write lock on `fd` without waiting (fcntl, as Boost's file_lock takes it).
bool try_lock(int fd)
{
    struct flock l {};
    l.l_type = F_WRLCK;
    l.l_whence = SEEK_SET;
    return ::fcntl(fd, F_SETLK, &l) == 0;
}

// Whether `fd` is still the file at `file`: a holder removes its file when it releases,
// so a waiter that opened it before may get the lock of a file nobody else will open.
bool is_current(int fd, const fs::path& file)
{
    struct stat open {}, named {};
    return ::fstat(fd, &open) == 0 && ::stat(file.c_str(), &named) == 0 && open.st_dev == named.st_dev &&
           open.st_ino == named.st_ino;
}

// Written into the held file through its own descriptor: no second file per lock (a hook
// takes hundreds), and no other descriptor of it is opened here (closing one would drop the
// lock). A waiter that reads it half-written finds no pid matching the kernel's holder, and
// asks /proc instead (describe_holder).
void record_owner(const LockFile& state)
{
    static const std::string self = command_line("self"); // read once: a hook takes hundreds of locks
    std::string record = std::to_string(::getpid()) + ' ' + self + '\n';
    if (::ftruncate(state.fd, 0) != 0 ||
        ::pwrite(state.fd, record.data(), record.size(), 0) != static_cast<ssize_t>(record.size()))
        spdlog::warn("cannot record the lock owner in {}: {}", state.file.string(), std::strerror(errno));
}

// The kernel knows which process holds the lock, even one that died before recording itself.
// Safe to open and close a descriptor here: this process does not hold the lock.
std::optional<pid_t> holder_pid(const fs::path& file)
{
    int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    struct flock query {};
    query.l_type = F_WRLCK;
    query.l_whence = SEEK_SET;
    bool found = ::fcntl(fd, F_GETLK, &query) == 0 && query.l_type != F_UNLCK && query.l_pid > 0;
    ::close(fd);
    return found ? std::optional<pid_t>(query.l_pid) : std::nullopt;
}

// "pid 123 (git worktree remove ../x)": the owner record when it matches the kernel's holder,
// else what /proc says about that pid. Only a waiter asks: it holds no lock on `file`.
std::string describe_holder(const fs::path& file)
{
    std::string recorded = read_first_line(file);
    auto pid = holder_pid(file);
    auto space = recorded.find(' ');
    if (space != std::string::npos &&
        (!pid || recorded.compare(0, space, std::to_string(*pid)) == 0))
        return "pid " + recorded.substr(0, space) + " (" + recorded.substr(space + 1) + ")";
    if (pid) {
        std::string command = command_line(std::to_string(*pid));
        return "pid " + std::to_string(*pid) + (command.empty() ? "" : " (" + command + ")");
    }
    return "a process that did not record itself in " + file.string();
}

Error timeout_error(const LockFile& state, std::chrono::seconds waited)
{
    std::string seconds = std::to_string(waited.count()) + " s";
    return Error("timed out after " + seconds + " waiting for the lock on '" + state.key +
                 "', held by " + describe_holder(state.file) +
                 "; try again once it has finished, or raise guard.lockTimeout (lock file " +
                 state.file.string() + ")");
}

// Polls rather than blocking in F_SETLKW, which has no timeout. Each try opens the file
// afresh, so a file its holder removed on release is never the one locked.
void wait_for(LockFile& state, std::chrono::seconds timeout)
{
    auto start = std::chrono::steady_clock::now();
    auto deadline = start + timeout;
    std::chrono::steady_clock::duration pause = 10ms;
    for (;;) {
        state.fd = ::open(state.file.c_str(), O_RDWR | O_CREAT, 0666);
        if (state.fd < 0)
            throw Error("cannot create lock file " + state.file.string() + ": " + std::strerror(errno));
        if (try_lock(state.fd) && is_current(state.fd, state.file))
            return;
        ::close(state.fd); // drops a lock on a file that was removed meanwhile
        state.fd = -1;
        auto now = std::chrono::steady_clock::now();
        if (now >= deadline)
            throw timeout_error(state, std::chrono::duration_cast<std::chrono::seconds>(now - start));
        std::this_thread::sleep_for(std::min(pause, deadline - now));
        pause = std::min<std::chrono::steady_clock::duration>(pause * 3 / 2, 100ms);
    }
}

// Removes a lock file with its owner record; the caller holds its lock, so no one else
// holds it, and whoever waits on it finds it gone (is_current) and opens the new one.
void remove_held(const fs::path& file)
{
    std::error_code ec;
    fs::remove(file, ec);
}

// The lock files of `locks` that no process holds, removed under their own lock.
void sweep(const fs::path& locks)
{
    std::error_code ec;
    std::vector<fs::path> files;
    std::vector<fs::path> sidecars; // `<hash>.owner` of versions before 2026-12-06
    for (fs::directory_iterator it(locks, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".lock")
            files.push_back(it->path());
        else if (it->path().extension() == ".owner")
            sidecars.push_back(it->path());
    for (const auto& sidecar : sidecars) // its holder's file gone: nobody reads it any more
        if (!fs::exists(fs::path(sidecar).replace_extension(".lock"), ec))
            fs::remove(sidecar, ec);
    // The files this process holds are never swept: they do not count towards the threshold,
    // or a hook holding a batch of locks would list and stat them all at each new one.
    if (files.size() <= k_sweep_above + held_here().size())
        return;
    for (const auto& file : files) {
        struct stat st {};
        if (::stat(file.c_str(), &st) != 0 || held_here().count({st.st_dev, st.st_ino}))
            continue;
        int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (try_lock(fd) && is_current(fd, file))
            remove_held(file);
        ::close(fd);
    }
}

} // namespace

// The lock is an fcntl record lock (what Boost's file_lock takes on POSIX), on a
// descriptor of our own so that it can be checked against the file's name:
//  - Threads of one process do not exclude each other: a second PathLock on the same key in
//    the same process succeeds at once, and destroying either one releases both. Only
//    separate processes are serialised, which is all the shim, the hook and the CLI need.
//  - Closing any descriptor of the lock file in the holding process drops the lock, so once
//    it is held nothing else here opens `<hash>.lock` (the sweep skips it); the holder
//    writes its name into it through the descriptor it holds.
//  - fork does not hand the lock to the child; execv keeps it (same process, same descriptor).
// The holder removes its file when it releases it, still holding it; a waiter that had
// opened the removed file sees that it is no longer the file at that name and opens the
// new one, so two processes never hold "the same" lock on two files. A holder that exec'd
// leaves its file; sweep removes those once there are many.
struct PathLock::State : LockFile {
    pid_t pid = ::getpid();
    bool held = false;

    explicit State(LockFile f) : LockFile(std::move(f)) {}
    State(const State&) = delete;
    State& operator=(const State&) = delete;

    // A forked child that inherited a copy must not touch its parent's lock or record.
    ~State()
    {
        if (fd < 0 || pid != ::getpid())
            return;
        if (held) {
            // Removed while still held, so it can never delete a successor's file or record.
            struct stat st {};
            if (::fstat(fd, &st) == 0)
                held_here().erase({st.st_dev, st.st_ino});
            remove_held(file);
        }
        ::close(fd);
    }
};

PathLock::PathLock(const fs::path& common_dir, const std::string& key, std::chrono::seconds timeout)
{
    auto dir = common_dir / "guard" / "locks";
    auto hash = key_hash(key);
    make_locks_dir(dir);
    m_state = std::make_unique<State>(LockFile{key, dir / (hash + ".lock")});
    wait_for(*m_state, timeout);
    m_state->held = true;
    struct stat st {};
    if (::fstat(m_state->fd, &st) == 0)
        held_here().insert({st.st_dev, st.st_ino});
    record_owner(*m_state);
    spdlog::debug("locked '{}' ({})", key, m_state->file.string());
    sweep(dir);
}

PathLock::~PathLock() = default;
PathLock::PathLock(PathLock&&) noexcept = default;
PathLock& PathLock::operator=(PathLock&&) noexcept = default;

const fs::path& PathLock::file() const
{
    return m_state->file;
}

} // namespace guard
