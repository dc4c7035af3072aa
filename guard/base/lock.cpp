#include "guard/base/lock.hpp"

#include "guard/base/error.hpp"

#include <boost/interprocess/exceptions.hpp>
#include <boost/interprocess/sync/file_lock.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
namespace bip = boost::interprocess;
using namespace std::chrono_literals;

namespace guard {

namespace {

struct LockFile {
    std::string key;
    fs::path file;
    fs::path owner; // `<hash>.owner`: "<pid> <command line>" of the holder
    bip::file_lock lock;
};

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
    std::ifstream in("/proc/" + proc + "/cmdline", std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    std::string command = s.str();
    std::replace(command.begin(), command.end(), '\0', ' ');
    while (!command.empty() && command.back() == ' ')
        command.pop_back();
    return command;
}

bip::file_lock open_lock(const fs::path& file)
{
    // `<common>/guard/locks`, made below a git dir that exists: a repository deleted while
    // a lock was wanted (the watcher reacting to the deletion) is never made again.
    std::error_code ec;
    fs::path locks = file.parent_path();
    if (!fs::is_directory(locks.parent_path().parent_path(), ec))
        throw Error("cannot lock in " + locks.parent_path().parent_path().string() + ": the git dir is gone");
    fs::create_directory(locks.parent_path(), ec);
    fs::create_directory(locks, ec);
    if (!fs::is_directory(locks, ec))
        throw Error("cannot create " + file.parent_path().string() + ": " + ec.message());
    // Boost's file_lock only opens an existing file. This descriptor is closed before the
    // lock is taken, so closing it cannot drop anything.
    int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        throw Error("cannot create lock file " + file.string() + ": " + std::strerror(errno));
    ::close(fd);
    try {
        return bip::file_lock(file.c_str());
    } catch (const bip::interprocess_exception& e) {
        throw Error("cannot open lock file " + file.string() + ": " + e.what());
    }
}

// Boost 1.74 opens the file with a plain open(O_RDWR), so its descriptor is inherited by
// execv, but file_lock does not expose that descriptor. Should a later Boost add O_CLOEXEC,
// the lock would silently end when the shim execs git; so find the descriptor through
// /proc/self/fd and clear the flag.
void keep_across_exec(const fs::path& file)
{
    struct stat target {};
    if (::stat(file.c_str(), &target) != 0)
        return;
    std::error_code ec;
    for (fs::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) {
        struct stat st {};
        if (::stat(it->path().c_str(), &st) != 0 || st.st_dev != target.st_dev ||
            st.st_ino != target.st_ino)
            continue;
        int fd = std::atoi(it->path().filename().c_str());
        int flags = ::fcntl(fd, F_GETFD);
        if (flags >= 0 && (flags & FD_CLOEXEC) != 0)
            ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
    }
}

// Written to a temporary name and renamed, so a waiter never reads half a record.
void record_owner(const fs::path& owner)
{
    fs::path temporary = owner;
    temporary += "." + std::to_string(::getpid());
    {
        std::ofstream out(temporary, std::ios::trunc);
        out << ::getpid() << ' ' << command_line("self") << '\n';
    }
    std::error_code ec;
    fs::rename(temporary, owner, ec);
    if (ec) {
        spdlog::warn("cannot record the lock owner in {}: {}", owner.string(), ec.message());
        fs::remove(temporary, ec);
    }
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
// else what /proc says about that pid.
std::string describe_holder(const fs::path& file, const fs::path& owner)
{
    std::ifstream in(owner);
    std::string recorded;
    std::getline(in, recorded);
    auto pid = holder_pid(file);
    auto space = recorded.find(' ');
    if (space != std::string::npos &&
        (!pid || recorded.compare(0, space, std::to_string(*pid)) == 0))
        return "pid " + recorded.substr(0, space) + " (" + recorded.substr(space + 1) + ")";
    if (pid) {
        std::string command = command_line(std::to_string(*pid));
        return "pid " + std::to_string(*pid) + (command.empty() ? "" : " (" + command + ")");
    }
    return "a process that did not record itself in " + owner.string();
}

Error timeout_error(const LockFile& state, std::chrono::seconds waited)
{
    std::string seconds = std::to_string(waited.count()) + " s";
    return Error("timed out after " + seconds + " waiting for the lock on '" + state.key +
                 "', held by " + describe_holder(state.file, state.owner) +
                 "; try again once it has finished, or raise guard.lockTimeout (lock file " +
                 state.file.string() + ")");
}

// Polls rather than blocking in F_SETLKW, which has no timeout.
void wait_for(LockFile& state, std::chrono::seconds timeout)
{
    auto start = std::chrono::steady_clock::now();
    auto deadline = start + timeout;
    std::chrono::steady_clock::duration pause = 10ms;
    try {
        while (!state.lock.try_lock()) {
            auto now = std::chrono::steady_clock::now();
            if (now >= deadline)
                throw timeout_error(state,
                                    std::chrono::duration_cast<std::chrono::seconds>(now - start));
            std::this_thread::sleep_for(std::min(pause, deadline - now));
            pause = std::min<std::chrono::steady_clock::duration>(pause * 3 / 2, 100ms);
        }
    } catch (const bip::interprocess_exception& e) {
        throw Error("cannot lock " + state.file.string() + " for '" + state.key + "': " + e.what());
    }
}

} // namespace

// Boost's file_lock is an fcntl record lock, and such a lock belongs to the process:
//  - Threads of one process do not exclude each other: a second PathLock on the same key in
//    the same process succeeds at once, and destroying either one releases both. Only
//    separate processes are serialised, which is all the shim, the hook and the CLI need.
//  - Closing any descriptor of the lock file in the holding process drops the lock, so once
//    it is held nothing else here opens `<hash>.lock`; the holder's name goes to the sidecar
//    `<hash>.owner` instead.
//  - fork does not hand the lock to the child; execv keeps it (same process, same descriptor).
// Lock files are never deleted: a waiter blocked on an unlinked file would not exclude a
// newcomer who created a fresh one under the same name.
struct PathLock::State : LockFile {
    pid_t pid = ::getpid();
    bool held = false;

    explicit State(LockFile f) : LockFile(std::move(f)) {}
    State(const State&) = delete;
    State& operator=(const State&) = delete;

    // A forked child that inherited a copy must not touch its parent's lock or record.
    ~State()
    {
        if (!held || pid != ::getpid())
            return;
        try {
            // Removed while still held, so it can never delete a successor's record.
            std::error_code ec;
            fs::remove(owner, ec);
            lock.unlock();
        } catch (const std::exception& e) {
            spdlog::warn("unlocking '{}' ({}): {}", key, file.string(), e.what());
        } catch (...) {
        }
    }
};

PathLock::PathLock(const fs::path& common_dir, const std::string& key, std::chrono::seconds timeout)
{
    auto dir = common_dir / "guard" / "locks";
    auto hash = key_hash(key);
    auto file = dir / (hash + ".lock");
    m_state =
        std::make_unique<State>(LockFile{key, file, dir / (hash + ".owner"), open_lock(file)});
    wait_for(*m_state, timeout);
    m_state->held = true;
    keep_across_exec(m_state->file);
    record_owner(m_state->owner);
    spdlog::debug("locked '{}' ({})", key, file.string());
}

PathLock::~PathLock() = default;
PathLock::PathLock(PathLock&&) noexcept = default;
PathLock& PathLock::operator=(PathLock&&) noexcept = default;

const fs::path& PathLock::file() const
{
    return m_state->file;
}

} // namespace guard
