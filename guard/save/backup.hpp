#pragma once

#include "guard/save/journal.hpp"

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace guard {

// The guard.* keys the records need (DESIGN §9, §13), read through git.
struct RecordSettings {
    std::string on_save;             // guard.onSave: a command, run with `sh -c` as git runs hooks
    int on_save_timeout_s = 10;      // guard.onSaveTimeout
    std::string backup_remote;       // guard.backupRemote: a remote name or URL
    int backup_timeout_s = 30;       // guard.backupTimeout
};

// In a process that acts on no user command's behalf (act_unattended: the watcher),
// guard.onSave and guard.onSaveTimeout are read from the user's global and system config
// only, never from the repository's own (DESIGN §15: it runs nothing of the repository's).
RecordSettings read_record_settings(const std::filesystem::path& common_dir);

// The real git with every hook mechanism off (core.hooksPath, and git >= 2.54's configured
// reference-transaction and pre-push hooks), for ref writes and pushes of our own.
std::vector<std::string> git_without_hooks(const std::filesystem::path& common_dir);

// "<ref> <commit>" for every save that the journal records as pushed to `remote`.
std::set<std::string> backed_up(const std::vector<JournalEntry>& journal, const std::string& remote);

struct PushResult {
    std::vector<std::string> pushed;   // refs backed up by this run
    std::vector<std::string> failed;   // refs still not backed up
    std::string error;                 // why (empty when nothing failed)
};

// Pushes every save not yet backed up to guard.backupRemote, in one bounded push with no hook
// of ours (or any) running, and journals each ref's outcome. Never throws; does nothing when
// no remote is configured.
PushResult push_pending(const std::filesystem::path& common_dir);

// push_pending in a detached `git-guard -C <common_dir> push` (own session, stdio on
// /dev/null, no inherited descriptor such as a tree's lock), so a slow remote never holds
// the operation; in a process that is not git-guard itself (the unit tests), synchronously.
// Does nothing when no backup remote is configured.
void push_in_background(const std::filesystem::path& common_dir);

} // namespace guard
