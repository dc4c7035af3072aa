// The watcher's loop: one inotify instance over every registered repository, a read of
// a repository when its ref store or worktrees changed, snapshots when they are due, and
// an end when the registry is gone or names nothing. Idle, it sleeps in poll(2).
#include "guard/modes/watch_loop.hpp"

#include "guard/git/quiet.hpp"

#include "guard/install/watch.hpp"

#include "guard/base/clock.hpp"
#include "guard/base/error.hpp"
#include "guard/base/manifest.hpp"
#include "guard/git/repo.hpp"
#include "guard/save/snapshot.hpp"
#include "guard/modes/watch_events.hpp"
#include "guard/modes/watch_repo.hpp"
#include "guard/modes/watch_snapshot.hpp"

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace guard {

namespace {

constexpr const char* k_registry_key = "\x01registry";
constexpr char k_tree_key = '\x02';     // "\x02<common>\n<id>": a working tree's directories
constexpr size_t k_tree_dirs = 4096;    // more directories than this: checked by git each interval

// Trees may use half of the user's inotify watches: the ref stores, which no poll of the
// files replaces, keep the rest.
size_t tree_watch_budget()
{
    std::ifstream in("/proc/sys/fs/inotify/max_user_watches");
    size_t max = 8192;
    in >> max;
    return max / 2;
}

class Watcher {
public:
    int run();

private:
    void reload();
    void drop(const std::string& name, const std::string& why);
    bool arm(RepoWatch& repo);
    void arm_trees(const RepoWatch& repo);
    void prune(const RepoWatch& repo);
    void arm_tree(const std::string& common, const std::string& id, const fs::path& root);
    void tree_changed(const std::string& key);
    void rewalk();
    void read(const std::string& key);
    void write_status();
    std::chrono::milliseconds next_wake() const;

    Inotify m_inotify;
    std::map<std::string, std::unique_ptr<RepoWatch>> m_repos;
    Snapshots m_snapshots;
    std::string m_last_event;
    std::string m_status; // the status file as last written
    Clock::time_point m_next_poll = Clock::now();
    std::set<std::string> m_armed;  // "<common>\n<id>\n<path>": trees whose directories were walked
    std::set<std::string> m_rewalk; // tree keys with events since their last walk
    Clock::time_point m_next_rewalk = Clock::now();
    size_t m_tree_budget = tree_watch_budget();
};

// Returns whether it watches a directory it did not before.
bool Watcher::arm(RepoWatch& repo)
{
    size_t before = m_inotify.watches();
    for (const auto& dir : repo.watched_dirs())
        if (!m_inotify.watch(dir, repo.common().string()))
            break;
    return m_inotify.watches() > before;
}

// Watches every directory of each tree (not .git, not a nested repository's .git) so that
// an unchanged tree is known without git; a tree with too many directories, or one the
// kernel's watch limit cuts short, is left to git's check at each interval.
void Watcher::arm_tree(const std::string& common, const std::string& id, const fs::path& root)
{
    std::string key = k_tree_key + common + "\n" + id;
    std::error_code ec;
    bool all = !m_inotify.limit_reached() && m_inotify.watch_files(root, key);
    size_t dirs = 1;
    for (fs::recursive_directory_iterator it(root, ec), end; all && !ec && it != end; it.increment(ec)) {
        if (it->path().filename() == ".git") {
            it.disable_recursion_pending();
            continue;
        }
        if (it->is_directory(ec) && !it->is_symlink(ec))
            all = ++dirs <= k_tree_dirs && m_inotify.watches() < m_tree_budget &&
                  m_inotify.watch_files(it->path(), key);
    }
    if (!all || ec)
        m_inotify.forget(key);
    m_snapshots.watched(common, id, all && !ec);
}

void Watcher::arm_trees(const RepoWatch& repo)
{
    if (snapshot_interval(repo.common()) <= 0)
        return; // no snapshots: nothing to know about the files
    for (const auto& [id, tree] : repo.trees())
        if (m_armed.insert(repo.common().string() + "\n" + id + "\n" + tree.path.string()).second)
            arm_tree(repo.common().string(), id, tree.path);
}

// A tree the repository no longer has (or has at another path) is forgotten whole: its
// walk, so that one made again with the same name is walked anew, and its snapshot state
// and files. Before arm_trees: the walk of a moved tree is made again under its new path.
void Watcher::prune(const RepoWatch& repo)
{
    std::string prefix = repo.common().string() + "\n";
    for (auto it = m_armed.lower_bound(prefix); it != m_armed.end() && it->starts_with(prefix);) {
        std::string id = it->substr(prefix.size(), it->rfind('\n') - prefix.size());
        auto tree = repo.trees().find(id);
        if (tree != repo.trees().end() && *it == prefix + id + "\n" + tree->second.path.string()) {
            ++it;
            continue;
        }
        m_inotify.forget(k_tree_key + prefix + id);
        it = m_armed.erase(it);
    }
    m_snapshots.prune(repo);
}

// An event in a tree: it is checked at its next interval, and walked again (at most once a
// second, a build's burst of events costs one walk) so that a directory made since is
// watched too. A walk leaves the tree changed: what happened in a directory before it was
// watched is seen by the next check.
void Watcher::tree_changed(const std::string& key)
{
    auto nl = key.find('\n');
    m_snapshots.changed(key.substr(1, nl - 1), key.substr(nl + 1));
    m_rewalk.insert(key);
}

void Watcher::rewalk()
{
    if (m_rewalk.empty() || Clock::now() < m_next_rewalk)
        return;
    for (const auto& key : m_rewalk) {
        auto nl = key.find('\n');
        std::string common = key.substr(1, nl - 1), id = key.substr(nl + 1);
        auto repo = m_repos.find(common);
        if (repo == m_repos.end())
            continue;
        if (auto tree = repo->second->trees().find(id); tree != repo->second->trees().end())
            arm_tree(common, id, tree->second.path);
        m_snapshots.changed(common, id);
    }
    m_rewalk.clear();
    m_next_rewalk = Clock::now() + std::chrono::seconds(1);
}

// The registry (contract C5) names the repositories; one no longer named, or no longer
// readable, leaves the watch with a log line.
void Watcher::reload()
{
    auto listed = read_registry(registry_file());
    std::set<std::string> names(listed.begin(), listed.end());
    for (auto it = m_repos.begin(); it != m_repos.end();) {
        std::string name = it->first;
        ++it;
        if (!names.count(name))
            drop(name, "left the registry");
        else if (!m_repos[name]->same_repository())
            drop(name, "was deleted and made again at its path: watched anew");
    }
    for (const auto& name : names) {
        if (m_repos.count(name))
            continue;
        auto repo = std::make_unique<RepoWatch>(name);
        if (!repo->scan()) {
            spdlog::warn("watch: cannot read {}: not watched", name);
            continue;
        }
        arm(*repo);
        prune(*repo); // what a watcher before this one kept of trees gone since
        arm_trees(*repo);
        m_repos[name] = std::move(repo);
    }
    m_inotify.watch(registry_file().parent_path(), k_registry_key);
}

// Forgets a repository whole: its watches, its trees' walks and snapshot state, so that
// one made again at the same path (or registered again) is armed from scratch.
void Watcher::drop(const std::string& name, const std::string& why)
{
    spdlog::info("watch: {} {}", name, why);
    m_inotify.forget(name);
    std::string prefix = name + "\n";
    for (auto it = m_armed.begin(); it != m_armed.end();)
        it = it->starts_with(prefix) ? (m_inotify.forget(k_tree_key + it->substr(0, it->rfind('\n'))), m_armed.erase(it))
                                     : std::next(it);
    m_snapshots.forget(name);
    m_repos.erase(name);
}

void Watcher::read(const std::string& key)
{
    auto it = m_repos.find(key);
    if (it == m_repos.end())
        return;
    if (!it->second->same_repository() || !it->second->scan()) {
        drop(key, "cannot be read any more (deleted, unmounted or unreadable): dropped from the watch until "
                  "it is installed or used again");
        reload(); // made again already: watched anew at once
        return;
    }
    // Directories made since (refs/heads/a/ for a branch a/b, a new admin entry): what
    // changed in them before they were watched is read once more.
    for (int i = 0; i < 3 && arm(*it->second); ++i)
        it->second->scan();
    prune(*it->second);
    m_snapshots.learn(*it->second); // a write to its config is an event in its git dir
    arm_trees(*it->second);
}

// Written when what it says changed, never at a wake that changed nothing.
void Watcher::write_status()
{
    std::ostringstream text;
    text << "pid=" << ::getpid() << "\nrepositories=" << m_repos.size() << "\nlast_event=" << m_last_event
         << "\nlast_snapshot=" << m_snapshots.last() << "\nsnapshot_interval=" << m_snapshots.interval()
         << "\npolling=" << m_inotify.polling() << "\nwatches=" << m_inotify.watches() << "\n";
    for (const auto& [name, repo] : m_repos)
        text << "repo=" << name << "\n";
    if (text.str() == m_status)
        return;
    fs::path file = watch_dir() / "status";
    fs::path tmp = watch_dir() / ("status." + std::to_string(::getpid()) + ".tmp");
    std::ofstream(tmp, std::ios::trunc) << text.str();
    std::error_code ec;
    fs::rename(tmp, file, ec);
    if (!ec)
        m_status = text.str();
}

std::chrono::milliseconds Watcher::next_wake() const
{
    auto now = Clock::now();
    auto wake = now + std::chrono::hours(1);
    if (m_inotify.limit_reached())
        wake = std::min(wake, m_next_poll);
    wake = std::min(wake, m_snapshots.due());
    for (const auto& [name, repo] : m_repos)
        if (auto retry = repo->next_retry())
            wake = std::min(wake, *retry);
    if (!m_rewalk.empty())
        wake = std::min(wake, m_next_rewalk);
    // Rounded up: a wake a fraction of a millisecond early finds nothing due and sleeps again.
    return std::chrono::ceil<std::chrono::milliseconds>(std::max(wake - now, Clock::duration::zero()));
}

// The registry as this watcher last read it, for the shim's probe (front/revive.c): a
// watcher that ends finding none of its repositories is not started again by every git
// call while the registry stays as it is ("<size> <mtime s> <mtime ns>").
void mark_idle()
{
    struct stat st {};
    if (::stat(registry_file().c_str(), &st) != 0 || st.st_size == 0)
        return;
    std::ofstream(watch_dir() / "idle") << st.st_size << ' ' << st.st_mtim.tv_sec << ' ' << st.st_mtim.tv_nsec << '\n';
}

int Watcher::run()
{
    reload();
    m_snapshots.learn_interval(m_repos);
    write_status(); // install waits for this: it watches now; the first snapshots follow
    spdlog::info("watch: watching {} repositories", m_repos.size());
    m_snapshots.take(m_repos);
    write_status();
    while (!m_inotify.stopped()) {
        std::error_code ec;
        if (!fs::exists(registry_file(), ec) || m_repos.empty()) {
            spdlog::info("watch: no guarded repository is left to watch: exiting");
            mark_idle();
            break;
        }
        auto changed = m_inotify.wait(next_wake());
        if (m_inotify.stopped())
            break;
        if (changed.erase(k_registry_key))
            reload();
        for (auto key = changed.begin(); key != changed.end();)
            if (!key->empty() && (*key)[0] == k_tree_key) {
                tree_changed(*key);
                key = changed.erase(key);
            } else {
                ++key;
            }
        if (m_inotify.limit_reached() && Clock::now() >= m_next_poll) {
            reload(); // the registry is not watched either
            for (const auto& [name, repo] : m_repos)
                changed.insert(name);
            m_next_poll = Clock::now() + std::chrono::seconds(std::max<long long>(m_snapshots.interval(), 1));
        }
        for (const auto& [name, repo] : m_repos)
            if (auto retry = repo->next_retry(); retry && *retry <= Clock::now())
                changed.insert(name); // a save that failed is due again
        for (const auto& key : changed)
            read(key);
        if (!changed.empty())
            m_last_event = utc_millis("%Y-%m-%dT%H:%M:%S");
        rewalk();
        m_snapshots.take(m_repos);
        write_status();
    }
    std::error_code gone;
    fs::remove(watch_dir() / "status", gone);
    return 0;
}

// Stale temporary files of a killed watcher; the lock is the kernel's and went with it.
void sweep_stale(const fs::path& dir)
{
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().extension() == ".tmp")
            fs::remove(entry.path(), ec);
}

} // namespace

int run_watcher()
{
    fs::path dir = watch_dir();
    std::error_code ec;
    fs::create_directories(dir, ec);
    int fd = ::open((dir / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    // A shim's or doctor's probe holds the lock for an instant (front/revive.c): only a
    // lock still held after half a second is another watcher's.
    bool locked = fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    for (int i = 0; fd >= 0 && !locked && i < 50; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        locked = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    }
    if (!locked) {
        std::fprintf(stderr, "git-guard: a watcher runs already (pid %ld)\n", watch_status().pid);
        return 1;
    }
    sweep_stale(dir);
    fs::remove(dir / "idle", ec); // watching again: a later end marks it anew
    act_unattended(); // it runs nothing of any repository's (DESIGN §15): guard/git/quiet.hpp
    fs::remove(dir / "status", ec);
    try {
        auto log = spdlog::rotating_logger_mt("watch", (dir / "watch.log").string(), 1 << 20, 2);
        log->flush_on(spdlog::level::info);
        spdlog::set_default_logger(log);
    } catch (const std::exception&) {
        // No log is no reason not to watch.
    }
    try {
        return Watcher().run();
    } catch (const std::exception& e) {
        spdlog::error("watch: {}", e.what());
        std::fprintf(stderr, "git-guard: watch: %s\n", e.what());
        return 1;
    }
}

} // namespace guard
