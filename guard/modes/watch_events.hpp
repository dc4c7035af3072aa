#pragma once
// The kernel's change notification (inotify), straight: what changed is only a hint to
// read the repository again, so the watcher needs no more than "which key, now".

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>

namespace guard {

class Inotify {
public:
    // Without an inotify instance (fs.inotify.max_user_instances reached), it watches
    // nothing and `polling()` says why: the watcher then polls.
    Inotify();
    ~Inotify();
    Inotify(const Inotify&) = delete;
    Inotify& operator=(const Inotify&) = delete;

    // Watches `dir` for entries created, deleted, renamed or rewritten, reported under
    // `key`. A missing directory is skipped. False when the kernel's watch limit
    // (fs.inotify.max_user_watches) is reached, or there is no instance;
    // `limit_reached()` then stays true.
    bool watch(const std::filesystem::path& dir, const std::string& key);
    // The same for a working tree's directory (file writes too): a watch the kernel
    // refuses is only false here, never a reason to poll the ref store.
    bool watch_files(const std::filesystem::path& dir, const std::string& key);
    // Forgets every watch of `key`.
    void forget(const std::string& key);

    // Waits up to `timeout` (or until SIGTERM/SIGINT) and returns the keys
    // whose directories changed, gathering a burst of events into one answer.
    std::set<std::string> wait(std::chrono::milliseconds timeout);

    bool limit_reached() const { return m_limit; }
    const std::string& polling() const { return m_why; } // why it cannot watch ("" when it can)
    bool stopped() const { return m_stopped; }  // SIGTERM or SIGINT arrived
    size_t watches() const { return m_dirs.size(); }

private:
    bool add(const std::filesystem::path& dir, const std::string& key, uint32_t mask);
    int m_fd = -1;
    int m_signals = -1;  // a signalfd: a stop request wakes the wait, never races it
    bool m_limit = false;
    std::string m_why;
    bool m_stopped = false;
    std::map<int, std::string> m_keys;                    // watch descriptor -> key
    std::map<std::filesystem::path, int> m_dirs;          // watched directory -> descriptor
};

} // namespace guard
