#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace guard {

// One event of the audit record (DESIGN §13, contract C3).
struct JournalEvent {
    std::string kind;      // "save", "refusal", "discard", "drop", "restore", "push", "notify"
    std::string ref;       // "" when none
    std::string commit;    // "" when none
    std::string path;      // source tree path ("" for a branch)
    std::string branch;    // branch short name ("" when detached/none)
    std::string reason;    // the operation ("worktree remove", "branch delete", "reset --hard", …)
    std::string detail;    // free text (refusal message, diffstat, error)
    std::string remote;    // push: the backup remote ("" otherwise)
    bool ok = true;        // push, notify: whether it worked
};

struct Work;

// The record of a refusal (DESIGN §8): `work`'s path and branch, `reason` the operation,
// `message` the refusal text. `common_dir` empty: the repository of `work.path`. Never throws.
void journal_refusal(const std::filesystem::path& common_dir, const Work& work,
                     const std::string& message, const std::string& reason);

// The save record of a ref pointed at an existing commit (no save commit made): `name` is
// the branch for a branch deletion, else the tree's name.
JournalEvent tip_save_event(const std::string& ref, const std::string& commit,
                            const std::string& name, const std::string& reason);

// One line of the journal as read back.
struct JournalEntry {
    JournalEvent event;
    std::string time;      // UTC, ISO 8601 to the millisecond: 2026-12-01T07:30:00.123Z
    long long pid = 0;
    std::string op;        // the invocation that wrote it ("" in records older than the field)
};

// The operation id this process writes with each record: one per invocation, so the saves
// one destroyer made (a removal and its branch, 300 branches of one `branch -D`, a reset's
// tree and commits) share it and `git guard undo` takes them back together. A process that
// has written nothing for k_op_idle_seconds starts a new one (the watcher lives for days).
// It is handed to child processes in GIT_GUARD_OP: a hook git runs for this process's git
// (its parent or grandparent) writes under the same id. docs/decisions.md "Operation ids".
std::string journal_operation();
inline constexpr long long k_op_idle_seconds = 10;

// `<common_dir>/guard/journal.jsonl`.
std::filesystem::path journal_path(const std::filesystem::path& common_dir);

// Appends one JSON line to the journal (append-only, oldest first, never truncated or
// rotated), and, for kind == "save", runs guard.onSave and the guard.backupRemote push
// (both bounded, never fatal). Never throws: a journal that cannot be written is logged.
void journal_record(const std::filesystem::path& common_dir, const JournalEvent& event);

// Only the append, without the save's follow-ups. Returns the line written ("" on failure).
std::string journal_append(const std::filesystem::path& common_dir, const JournalEvent& event);

// Every readable line, oldest first (a torn or foreign line is skipped and logged).
std::vector<JournalEntry> read_journal(const std::filesystem::path& common_dir);

// The records of a journal's text, as read_journal reads them: its parser, for a caller
// that holds the bytes already.
std::vector<JournalEntry> parse_journal(std::string_view text);

// The JSON line of `entry`: time, kind, ref, commit, path, branch, reason, detail, remote,
// ok, pid, op; absent values are null.
std::string journal_json(const JournalEntry& entry);

// While one is alive in this process, saves are journaled and notified but their backup
// push waits for its destruction, which pushes once: for callers that save many refs at
// once (the hook deleting 800 branches), so there is one push instead of 800.
class DeferBackup {
public:
    explicit DeferBackup(std::filesystem::path common_dir);
    ~DeferBackup();
    DeferBackup(const DeferBackup&) = delete;
    DeferBackup& operator=(const DeferBackup&) = delete;

private:
    std::filesystem::path m_common_dir;
};

} // namespace guard
