// inotify through the kernel API: no library's abstraction is needed for "a directory
// changed", and the kernel's own limit (ENOSPC) must be seen to fall back to polling.
#include "guard/modes/watch_events.hpp"

#include "guard/base/error.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr uint32_t k_mask = IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE |
                            IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

} // namespace

Inotify::Inotify()
{
    m_fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (m_fd < 0) {
        m_limit = true;
        m_why = errno == EMFILE ? "no inotify instance can be had (fs.inotify.max_user_instances is reached)"
                                : std::string("inotify is not available: ") + std::strerror(errno);
    }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    ::sigprocmask(SIG_BLOCK, &set, nullptr);
    m_signals = ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

Inotify::~Inotify()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (m_signals >= 0)
        ::close(m_signals);
}

bool Inotify::watch(const fs::path& dir, const std::string& key)
{
    if (m_fd < 0)
        return false;
    if (add(dir, key, k_mask) || errno != ENOSPC)
        return true; // missing or unreadable: nothing to watch there yet
    if (!m_limit) {
        m_limit = true;
        m_why = "the inotify watch limit (fs.inotify.max_user_watches) is reached";
    }
    return false;
}

bool Inotify::watch_files(const fs::path& dir, const std::string& key)
{
    return m_fd >= 0 && add(dir, key, k_mask | IN_MODIFY | IN_ATTRIB);
}

// False (errno set) when the kernel refuses the watch.
bool Inotify::add(const fs::path& dir, const std::string& key, uint32_t mask)
{
    if (m_dirs.count(dir))
        return true;
    int wd = ::inotify_add_watch(m_fd, dir.c_str(), mask);
    if (wd < 0)
        return false;
    m_keys[wd] = key;
    m_dirs[dir] = wd;
    return true;
}

void Inotify::forget(const std::string& key)
{
    for (auto it = m_dirs.begin(); it != m_dirs.end();) {
        if (m_keys[it->second] == key) {
            ::inotify_rm_watch(m_fd, it->second);
            m_keys.erase(it->second);
            it = m_dirs.erase(it);
        } else {
            ++it;
        }
    }
}

std::set<std::string> Inotify::wait(std::chrono::milliseconds timeout)
{
    std::set<std::string> changed;
    pollfd fds[2] = {{m_fd, POLLIN, 0}, {m_signals, POLLIN, 0}};
    int ms = static_cast<int>(std::min<long long>(timeout.count(), 1 << 30));
    // After the first event, a short wait gathers the rest of git's burst (lock, rename,
    // reflog) into one answer: one read of the repository, not five.
    while (::poll(fds, 2, ms) > 0) {
        if (fds[1].revents & POLLIN) {
            m_stopped = true;
            return changed;
        }
        alignas(inotify_event) char buf[16384];
        for (ssize_t n; m_fd >= 0 && (n = ::read(m_fd, buf, sizeof buf)) > 0;) {
            for (char* p = buf; p < buf + n;) {
                auto* e = reinterpret_cast<inotify_event*>(p);
                if (auto it = m_keys.find(e->wd); it != m_keys.end()) {
                    changed.insert(it->second);
                    if (e->mask & IN_IGNORED) { // the directory itself went
                        for (auto d = m_dirs.begin(); d != m_dirs.end(); ++d)
                            if (d->second == e->wd) {
                                m_dirs.erase(d);
                                break;
                            }
                        m_keys.erase(it);
                    }
                }
                p += sizeof(inotify_event) + e->len;
            }
        }
        ms = 5;
    }
    return changed;
}

} // namespace guard
