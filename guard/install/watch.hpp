#pragma once
// The backstop's watcher (DESIGN §15): one per user, over every repository in the install
// registry. Its lifecycle needs no service manager: install starts it, a guarded git call
// restarts it, and it ends by itself when no guarded repository is left.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace guard {

// The Stranded-Reason of a save the watcher made: no git-guard code ran when it was lost.
inline constexpr const char* k_watch_reason = "vanished (no git hook ran)";
// The Stranded-Reason of a save the sweep before gc made: a tip the watcher once knew.
inline constexpr const char* k_sweep_reason = "unreachable before gc (no git hook ran)";

// `~/.local/share/git-guard/watch/`: the lock, the status file and the log, beside the
// registry it serves.
std::filesystem::path watch_dir();

// What a running watcher last wrote about itself.
struct WatchStatus {
    bool running = false;      // a process holds the lock
    long pid = 0;
    int repositories = 0;
    std::string last_event;    // UTC ISO 8601, "" when none yet
    std::string last_snapshot; // likewise
    std::string polling;       // why it polls instead of watching ("" when it watches)
    long long snapshot_interval = 60;
    std::vector<std::string> repos; // the common dirs it watches
};
WatchStatus watch_status();

// Starts the watcher in the background unless one runs, and waits (bounded) until it
// watches `common` (any repository, when empty). Returns its pid, or nothing (and `why`)
// when it could not be started.
std::optional<long> start_watcher(const std::filesystem::path& common, std::string& why);

// For the shim's slow path and the hook: starts a watcher without waiting when the registry
// names repositories and none runs; asks a running one to read the registry again when it
// watches fewer repositories than the registry names (at most every 2 s). Costs a stat, a
// lock probe and two small reads otherwise; never throws.
void revive_watcher() noexcept;

// Asks the running watcher to read the registry again (a file beside it, which it watches):
// a repository it dropped (deleted, unreadable) and that is back is then watched anew.
void poke_watcher();

// Asks the running watcher to end and waits until it has. False when none ran. The stop
// lasts (a marker in watch_dir()): neither install nor a guarded call starts it again
// until the user does (`git guard watch`, which calls clear_stop()).
bool stop_watcher();
bool stopped_by_user();
void clear_stop();

// guard.snapshotInterval of the repository at `common` in seconds (DESIGN §9, default 60):
// 0 turns snapshots off; a value that is no plain number keeps the default.
long long snapshot_interval(const std::filesystem::path& common);

} // namespace guard
