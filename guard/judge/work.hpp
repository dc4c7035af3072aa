#pragma once

#include "guard/git/history.hpp"
#include "guard/git/repo.hpp"
#include "guard/git/site.hpp"
#include "guard/judge/head.hpp"

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
    std::string mode;          // the working file's mode as status read it (mW); "" untracked
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
    std::optional<std::string> head;       // hex id; absent: unborn
    std::optional<std::string> branch_tip; // the tree's branch (also mid-rebase), when it exists
    Verdict verdict = Verdict::clean;
    std::string reason;                // why it cannot be saved
    std::string blocker;               // the path that cannot be saved, relative to `path`
    std::vector<Change> changes;
    std::vector<std::string> commits;  // unique, unpublished commits, newest first
    std::vector<Excluded> excluded;
    bool git_sees_changes = false;     // what plain `git worktree remove` refuses on
    // Whether the index's tree is HEAD's, as status's X column says (no path staged, none
    // unmerged); none when status was not read. Stands in for HEAD's tree when that is
    // unread (head_from_status): status compared the index with that very HEAD.
    std::optional<bool> index_is_head;
    // Status named HEAD "(detached)", which a branch may also be named: taken as detached
    // unless the refs, when next read (collect_commits), hold a branch of that name.
    bool detached_by_status = false;
    std::vector<std::string> nested;   // nested repositories and submodules saved whole
    std::vector<std::string> hidden;   // skip-worktree / assume-unchanged edits (status hides them)
    std::vector<std::string> unmerged; // paths with conflict stages in the index
    std::vector<std::pair<std::string, std::string>> own_refs; // per-worktree refs at risk: id, name
    std::vector<std::string> reflog;   // commits only its HEAD reflog names (head_reflog.hpp)
    std::string git_dir;               // the tree's own git dir ("" for a branch)
    std::string root;                  // where its files are ("" = path; a tree moved aside)
    std::string note;                  // said to the user, never a reason to refuse
    std::string head_tree;             // HEAD's tree, read with HEAD ("" when unborn or not read)
    std::string top;                   // the root git opened the tree at (inspect_tree's proof)
    bool attributes = false;           // the index holds a .gitattributes, or a sparse directory

    bool has_uncommitted() const { return !changes.empty(); }
};

// Refs that a ref transaction creates, updates or deletes: counted as the
// transaction will leave them.
struct Pending {
    std::vector<std::string> deleted;   // full ref names
    std::vector<std::string> created;   // new values (hex) of created or updated refs
};

// What one decision reads of the repository once, for every tree it judges (issue 20:
// a list and a refs walk per tree made many trees cost O(trees^2)): git's worktree list,
// as the caller read it, and every ref (read on first use, from `trees`).
struct Listing {
    std::vector<Worktree> trees;
    std::optional<std::vector<RefValue>> refs;
};

// The work in `tree` (DESIGN §4.1), asked of git: status, the index's hidden
// edits, nested repositories and submodules, and the commits only the tree
// holds. Any error while deciding is work (verdict has_work, reason says why),
// never "clean". Throws Error only when `tree` cannot be read as itself.
// `listing`: the worktrees and refs read for this decision (none: read here).
// `use`: `act` for a tree about to be destroyed or saved (HEAD and its tree asked of git
// with the root git opens it at, the proof that git reads it as itself), `report` for
// `git guard status` (HEAD as `tree` lists it: no git per tree beyond status and the
// index listing; the save paths never take this).
enum class Use { act, report };
Work inspect_tree(const Worktree& tree, const Settings& settings, Listing* listing = nullptr, Use use = Use::act);

// The commits that only the admin entry of `tree` still holds, for a tree git
// can no longer read (a husk, or one `git worktree prune` would drop).
Work inspect_admin(const std::filesystem::path& common, const Worktree& tree,
                   const Settings& settings, Listing* listing = nullptr);

// The work a deletion of `refs/heads/<branch>` at `tip` would destroy.
Work inspect_branch(const std::filesystem::path& common, const std::string& branch,
                    const std::string& tip, const Settings& settings, const Pending& pending = {});

// `git guard status`: the trees at `paths` (every worktree when both lists are
// empty) and the branches named in `branches`, for the repository the first path names
// (site_named), else `here`'s.
std::vector<Work> inspect_paths(const Site& here,
                                const std::vector<std::filesystem::path>& paths,
                                const std::vector<std::string>& branches);

} // namespace guard
