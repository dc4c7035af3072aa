#pragma once

#include "guard/repo.hpp"

#include <optional>
#include <string>
#include <vector>

namespace guard {

enum class ChangeKind { modified, staged, deleted, renamed, type_changed, unmerged, untracked, ignored };

const char* to_string(ChangeKind kind);

struct Change {
    std::string path;
    ChangeKind kind = ChangeKind::modified;
    bool in_worktree = false;  // the working file differs from the index: stage it from disk
    bool gone = false;         // ... because the working file was deleted
};

struct Excluded {
    std::string path;
    std::string why;  // "guard.exclude 'tmp/'", "symlink outside the tree"
    bool tracked = false; // saved as HEAD has it
};

enum class Verdict { clean, has_work, cannot_save };

const char* to_string(Verdict verdict);

// What a removal of a tree, or a deletion of a branch, would destroy (DESIGN §4).
struct Work {
    std::string path;                  // the tree's root; empty for a branch
    std::string branch;                // short name; empty when detached
    std::optional<git_oid> head;       // absent: unborn
    std::optional<git_oid> branch_tip; // the tree's branch (also mid-rebase), when it exists
    Verdict verdict = Verdict::clean;
    std::string reason;                // why it cannot be saved
    std::string blocker;               // the path that cannot be saved, relative to `path`
    std::vector<Change> changes;
    std::vector<std::string> commits;  // unique, unpublished commits, newest first
    std::vector<Excluded> excluded;
    bool git_sees_changes = false;     // what plain `git worktree remove` refuses on

    bool has_uncommitted() const { return !changes.empty(); }
};

// Refs that a ref transaction creates, updates or deletes: counted as the
// transaction will leave them.
struct Pending {
    std::vector<std::string> deleted;   // full ref names
    std::vector<git_oid> created;       // new values of created or updated refs
};

// The work in `tree`, opened by open_worktree as `tree_repo`.
Work inspect_tree(git_repository* tree_repo, const Worktree& tree, const Settings& settings);

// The commits that only the admin entry of `tree` still holds, for a tree git
// can no longer read (a husk, or one `git worktree prune` would drop).
Work inspect_admin(git_repository* repo, const Worktree& tree, const Settings& settings);

// The work a deletion of `refs/heads/<branch>` at `tip` would destroy.
Work inspect_branch(git_repository* repo, const std::string& branch, const git_oid& tip,
                    const Settings& settings, const Pending& pending = {});

} // namespace guard

namespace guard {

// `git guard status`: the trees at `paths` (every worktree when both lists are
// empty) and the branches named in `branches`, for the repository around `start`.
std::vector<Work> inspect_paths(const std::filesystem::path& start,
                                const std::vector<std::filesystem::path>& paths,
                                const std::vector<std::string>& branches);

} // namespace guard
