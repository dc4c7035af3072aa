// The watcher's life without a service manager, as git's fsmonitor daemon lives: a lock
// says whether one runs (the kernel drops a flock with its holder, so kill -9 leaves
// nothing that blocks the next one), a status file says what it does, and whoever needs
// one starts it detached.
#include "guard/install/watch.hpp"

#include "guard/base/clock.hpp"
#include "guard/base/file.hpp"
#include "guard/base/manifest.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <thread>

namespace fs = std::filesystem;

namespace guard {

fs::path watch_dir() { return registry_file().parent_path() / "watch"; }

namespace {

// Whether some process holds the watcher's lock (probing takes it for an instant).
bool lock_held()
{
    int fd = ::open((watch_dir() / "lock").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0;
    ::close(fd);
    return held;
}

// `key=value` lines; `repo=` repeats, one per watched repository.
std::map<std::string, std::string> read_status_file(std::vector<std::string>& repos)
{
    std::map<std::string, std::string> fields;
    std::ifstream in(watch_dir() / "status");
    for (std::string line; std::getline(in, line);)
        if (auto eq = line.find('='); eq != std::string::npos)
            line.starts_with("repo=") ? repos.push_back(line.substr(5))
                                      : void(fields[line.substr(0, eq)] = line.substr(eq + 1));
    return fields;
}

// Starts `git-guard watch --foreground` detached: a new session, no inherited descriptor
// (a shim's tree lock, git's hook pipes), cwd `/`, so that no tree stays busy and no
// caller waits for it.
void spawn()
{
    // The full binary: a process that links the library under another name (the unit
    // tests) starts the git-guard beside it, or none.
    fs::path self = self_path();
    if (self.filename() != "git-guard")
        self = self.parent_path() / "git-guard";
    if (::access(self.c_str(), X_OK) != 0)
        return;
    start_detached({self.string(), "watch", "--foreground"});
}

bool registry_names_repositories()
{
    struct stat st{};
    return ::stat(registry_file().c_str(), &st) == 0 && st.st_size > 0;
}

fs::path reread_file() { return registry_file().parent_path() / "watch-reread"; }

// Whether the running watcher watches fewer repositories than the registry names (one it
// dropped may be back), and it was not asked to read them again within the last 2 s.
bool watches_fewer()
{
    std::vector<std::string> repos;
    read_status_file(repos);
    if (repos.size() >= read_registry(registry_file()).size())
        return false;
    std::error_code ec;
    auto asked = fs::last_write_time(reread_file(), ec);
    return ec || fs::file_time_type::clock::now() - asked > std::chrono::seconds(2);
}

} // namespace

WatchStatus watch_status()
{
    WatchStatus s;
    s.running = lock_held();
    if (!s.running)
        return s;
    auto f = read_status_file(s.repos);
    auto number = [&](const char* key) { return std::atoll(f[key].c_str()); };
    s.pid = static_cast<long>(number("pid"));
    s.repositories = static_cast<int>(number("repositories"));
    s.last_event = f["last_event"];
    s.last_snapshot = f["last_snapshot"];
    s.polling = f["polling"];
    if (f.count("snapshot_interval"))
        s.snapshot_interval = number("snapshot_interval");
    return s;
}

std::optional<long> start_watcher(const fs::path& common, std::string& why)
{
    if (!registry_names_repositories()) {
        why = "no guarded repository is registered in " + registry_file().string();
        return std::nullopt;
    }
    if (stopped_by_user()) {
        why = "you stopped it with 'git guard watch --stop'; 'git guard watch' starts it again";
        return std::nullopt;
    }
    if (!watch_status().running)
        spawn();
    else if (!common.empty())
        poke_watcher(); // it may have dropped `common` (deleted, then made again)
    // It writes its status once every repository is read and watched; a running one
    // reads the registry again when it changes.
    for (int i = 0; i < 1000; ++i) {
        auto s = watch_status();
        bool watches = common.empty() || std::find(s.repos.begin(), s.repos.end(), common.string()) != s.repos.end();
        if (s.running && s.pid > 0 && ::kill(static_cast<pid_t>(s.pid), 0) == 0 && watches)
            return s.pid;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    why = "it did not report within 10 s (see " + (watch_dir() / "watch.log").string() + ")";
    return std::nullopt;
}

void poke_watcher()
{
    write_bytes(reread_file(), utc_millis("%Y-%m-%dT%H:%M:%S") + "\n");
}

void revive_watcher() noexcept
{
    try {
        if (!registry_names_repositories() || stopped_by_user())
            return;
        if (!lock_held())
            spawn();
        else if (watches_fewer())
            poke_watcher();
    } catch (...) {
        // Reviving is a courtesy of the guarded call: it never fails that call.
    }
}

fs::path stop_marker() { return watch_dir() / "stopped"; }

bool stopped_by_user()
{
    std::error_code ec;
    return fs::exists(stop_marker(), ec);
}

void clear_stop()
{
    std::error_code ec;
    fs::remove(stop_marker(), ec);
}

bool stop_watcher()
{
    // The user's stop lasts: no guarded call or install revives it until `git guard watch`.
    std::error_code ec;
    fs::create_directories(watch_dir(), ec);
    write_bytes(stop_marker(), "stopped by 'git guard watch --stop' at " + utc_millis("%Y-%m-%dT%H:%M:%S") + "\n");
    auto s = watch_status();
    if (!s.running)
        return false;
    if (s.pid > 0)
        ::kill(static_cast<pid_t>(s.pid), SIGTERM);
    for (int i = 0; i < 1000 && lock_held(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return !lock_held();
}

long long snapshot_interval(const fs::path& common)
{
    long long interval = 60;
    for (const auto& [key, value] : guard_config(common))
        if (key == "guard.snapshotinterval" && !value.empty() &&
            value.find_first_not_of("0123456789") == std::string::npos && value.size() < 10)
            interval = std::stoll(value);
    return interval;
}

} // namespace guard
