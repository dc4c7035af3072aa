#pragma once
// The time layer (DESIGN §15): each live worktree of a watched repository is saved when it
// changed, at most every guard.snapshotInterval seconds, into the in-place namespace.

#include "guard/save/snapshot.hpp"
#include "guard/modes/watch_repo.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace guard {

class Snapshots {
public:
    // Snapshots every tree whose interval has passed and that changed since its last
    // snapshot; an unchanged tree costs a status-like comparison and writes nothing. The
    // trees of one interval are due together, on one grid (one wake for all of them).
    void take(const std::map<std::string, std::unique_ptr<RepoWatch>>& repos);
    // Reads each repository's guard.snapshotInterval for interval(), without snapshotting.
    void learn_interval(const std::map<std::string, std::unique_ptr<RepoWatch>>& repos);
    // Reads `repo`'s guard.snapshotInterval again (its config may have changed); a new
    // value puts its trees on that interval's grid.
    void learn(const RepoWatch& repo);
    // The files of tree `id` of `common` changed (an inotify event in its directories).
    void changed(const std::string& common, const std::string& id) { m_dirty.insert(common + "\n" + id); }
    // Whether every directory of that tree is watched: only then does an unchanged tree
    // (no event, same HEAD, same index) cost no git at all.
    void watched(const std::string& common, const std::string& id, bool all)
    {
        all ? void(m_watched.insert(common + "\n" + id)) : void(m_watched.erase(common + "\n" + id));
    }
    // Forgets every tree of `common` (dropped from the watch).
    void forget(const std::string& common);
    // Forgets the trees of `repo` that it no longer has, and removes their kept snapshot
    // index and state (`<common>/guard/watch/snapshot-{index,state}-<id>`): a tree name's
    // files go with the tree, also those a watcher that ran before this one left.
    void prune(const RepoWatch& repo);
    std::chrono::steady_clock::time_point due() const { return m_due; }
    std::string last() const { return m_last; }                 // UTC of the last snapshot
    long long interval() const; // the shortest the repositories use (60 s when none)

private:
    bool snapshot_tree(const std::filesystem::path& common, const std::string& id, const KnownTree& tree);
    long long interval_of(const RepoWatch& repo);
    void erase_trees(const std::function<bool(const std::string&)>& gone);
    std::chrono::steady_clock::time_point tick_after(std::chrono::steady_clock::time_point now, long long interval) const;
    std::chrono::steady_clock::time_point m_epoch = std::chrono::steady_clock::now(); // the grids' origin
    std::chrono::steady_clock::time_point m_due = std::chrono::steady_clock::now() + std::chrono::hours(24);
    std::map<std::string, long long> m_intervals; // common -> its guard.snapshotInterval
    std::map<std::string, std::chrono::steady_clock::time_point> m_next; // "<common>\n<id>" -> due
    std::map<std::string, std::string> m_states;  // "<common>\n<id>" -> "HEAD index work" last saved
    std::set<std::string> m_dirty;                // trees whose files changed since their last check
    std::set<std::string> m_watched;              // trees whose every directory is watched
    std::map<std::string, std::string> m_seen;    // "<common>\n<id>" -> "HEAD index-stamp" at the last check
    bool unchanged(const std::string& key, const KnownTree& tree);
    std::string m_last;
};

// THE one place a snapshot commit `commit` of the tree named `name` becomes a save (an
// in-place save today; the per-tree chain where it exists). Returns the verified save.
Saved keep_snapshot(const std::filesystem::path& common, const std::string& name, const std::string& commit,
                    const SaveOptions& options);

} // namespace guard
