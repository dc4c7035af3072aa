#pragma once
// One guarded repository as the watcher knows it (DESIGN §15, event layer): each branch
// tip, each worktree's HEAD and a copy of its index, so that what loses its last name
// through a tool no git-guard code sees is saved after the fact.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace guard {

struct KnownRefs;

// A worktree as last seen.
struct KnownTree {
    std::filesystem::path path;     // its root
    std::filesystem::path git_dir;  // its admin entry (the common dir for the main tree)
    std::string head;               // "" when unborn
    std::string branch_ref;         // "" when detached
    std::string index_stamp;        // the index file's identity when it was copied
};

class RepoWatch {
public:
    explicit RepoWatch(std::filesystem::path common);

    // Reads the refs and trees again and saves what lost its last name since the last
    // scan (judged like the hook's deletions, §4.2). The first scan only learns. False
    // when the repository cannot be read (deleted, unmounted, permissions).
    bool scan();

    const std::filesystem::path& common() const { return m_common; }
    // Whether `common` is still the git dir this watch was made for (LESSONS 31: a path is
    // not an identity): false once it was deleted and made again, even at the same path.
    bool same_repository() const;
    const std::map<std::string, KnownTree>& trees() const { return m_trees; }
    // The directories whose changes can change a tip or a tree: the ref store (loose refs,
    // packed-refs, reftable) and worktrees/ with each admin entry.
    std::vector<std::filesystem::path> watched_dirs() const;

    // When a save that failed (a full disk) is due to be tried again, if any.
    std::optional<std::chrono::steady_clock::time_point> next_retry() const;

private:
    // One thing that lost its last name: a branch tip (`ref` set), a detached HEAD, or a
    // whole admin entry (`gone`), whose HEAD and copied index are then saved.
    struct Lost {
        std::string ref;    // refs/heads/x, or "" for a tree's HEAD
        std::string oid;    // the tip or HEAD ("" for an unborn tree)
        std::string now;    // its new value when it moved, "" when it is gone
        std::string id;     // the admin entry ("" for the main tree)
        KnownTree tree;
        bool gone = false;  // the admin entry vanished
    };
    // A save that failed, tried again after `backoff`, doubled at each failure.
    struct Pending {
        Lost lost;
        std::chrono::steady_clock::time_point next;
        std::chrono::seconds backoff;
    };
    void save_lost(const std::vector<Lost>& lost, const KnownRefs& known);
    void add_due_retries(std::vector<Lost>& lost);
    void copy_indexes();
    std::set<std::string> held(std::set<std::string> more) const;
    void hold_and_save(const std::vector<Lost>& lost, const KnownRefs& known, const std::set<std::string>& published);
    void load();
    void store() const;
    std::filesystem::path m_common;
    std::string m_identity;                      // the common dir's device and inode
    std::map<std::string, std::string> m_tips;   // refs/heads/* (no saves) -> oid
    std::map<std::string, KnownTree> m_trees;    // admin entry name ("" main) -> tree
    std::map<std::string, Pending> m_pending;    // "<ref>\n<oid>\n<id>" -> a failed save
    bool m_learned = false;
    std::string m_seen_at;      // UTC of this scan's read (journal format); "" before the first
    std::string m_seen_before;  // of the read before it: what vanished now was alive then
};

// `<common>/guard/watch/`: the watcher's copies of the indexes and its record of tips.
std::filesystem::path repo_watch_dir(const std::filesystem::path& common);

// Makes repo_watch_dir(`common`) while the repository is still there; false (and nothing
// made) once `common` is gone, so a repository deleted under the watcher is never
// recreated as a directory of state files.
// True while the repository's `objects` and `HEAD` are there.
bool repo_alive(const std::filesystem::path& common);
bool make_watch_dir(const std::filesystem::path& common);

// The watcher's copy of admin entry `id`'s index ("" for the main tree), taken whenever git
// rewrote it.
std::filesystem::path index_copy(const std::filesystem::path& common, const std::string& id);

// The tips and detached HEADs the watcher last knew, as (oid, branch ref or tree path),
// from `<common>/guard/watch/tips`: a restarted watcher starts from them, and the sweep
// finds what vanished while none ran.
std::vector<std::pair<std::string, std::string>> known_tips(const std::filesystem::path& common);

} // namespace guard
