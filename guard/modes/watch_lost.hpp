#pragma once
// What the watcher saves after the fact (DESIGN §15): tips and detached HEADs that lost
// their last name, and the HEAD and index of a vanished admin entry (the sweep before gc
// is watch_sweep.hpp).

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

// One tip that lost its last name.
struct LostTip {
    std::string ref;                // refs/heads/x, or "" for a tree's HEAD
    std::string oid;                // "" for an unborn tree
    std::string now;                // the ref's or HEAD's new value when it moved ("" when gone)
    std::string path;               // the tree's root, for a tree's HEAD or a vanished entry
    std::string branch_ref;         // the tree's branch ("" when detached)
    bool gone = false;              // the admin entry vanished: its index copy is saved too
    std::filesystem::path index;    // the copy of that index
    bool retry = false;             // an earlier save of it failed (journaled then, not again)
    std::string seen;               // UTC (journal format) of the read that last saw it alive
};

// What the watcher's last read of the repository named: every ref's and worktree HEAD's
// oid, and whether any ref is a remote-tracking one. The judgement of a lost tip starts
// from it instead of listing the refs again, so a save follows its event by one walk.
struct KnownRefs {
    std::vector<std::string> holders;   // oids that some ref or HEAD holds now
    bool remotes = false;               // refs/remotes/* exist: the published check has candidates
};

// Judges `lost` as the hook judges deletions (§4.2) and saves what is at risk under
// refs/heads/stranded/, reason k_watch_reason, under the hook's and the shim's locks.
// What a git-guard save already holds, or `git guard discard` let go, is not saved.
// Never throws: a save that fails (a full disk, an unwritable ref store) is logged and, on
// its first try, journaled as a refusal. Returns the indexes in `lost` whose save failed:
// the caller tries them again later.
std::vector<size_t> save_vanished(const std::filesystem::path& common, const std::vector<LostTip>& lost,
                                  const KnownRefs& known);

// Whether some ref points at `oid` now (read again under a lock: the sweep or the hook
// may have saved it meanwhile).
bool named_now(const std::filesystem::path& common, const std::string& oid);

} // namespace guard
