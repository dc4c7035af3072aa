#pragma once

#include "guard/git/site.hpp"
#include "guard/save/snapshot.hpp"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace guard {

enum class DeleteBranch { no, yes };
enum class Discard { no, yes };

struct RemoveOptions {
    DeleteBranch delete_branch = DeleteBranch::no;
    Discard discard = Discard::no;
};

enum class Outcome { removed, moved, kept };

struct RemoveResult {
    Outcome outcome = Outcome::kept;
    std::string message;                  // what happened, truthfully
    std::vector<Saved> saved;
    std::filesystem::path moved_to;       // for Outcome::moved
};

// The lock a removal of `tree` (absolute) holds from before its save until the tree is gone:
// the shim's `git worktree remove` until its git child is done, `git guard remove` until it
// has removed the tree. A racer waits, then finds the tree gone, instead of judging a tree
// another removal has already saved (and calling its removal its own).
std::string removal_lock_key(const std::filesystem::path& tree);

// What a removal holds from before its save until git has removed the tree (DESIGN §15,
// issue 38 item 13), so that the save is all the tree ever held:
// - git's own lock files of the tree's admin entry (`index.lock`, `HEAD.lock`, and the
//   reftable stack's `tables.list.lock`), taken as git takes them: created exclusively,
//   waited for (up to `wait`) while a git in flight holds one. While they exist no git can
//   stage in the tree or move its HEAD: a commit either landed before the save or fails.
// - with `move_aside`, for a removal that deletes the tree whatever it holds, the tree
//   itself, renamed in one step to a hidden sibling whose `.git` still points at the admin
//   entry (the engine saves a moved-aside tree from there): a write that would land after
//   the save finds no file to write to.
// The end of scope releases the locks still in place and moves the tree back, unless
// removed() says git removed the admin entry (the moved copy is then deleted).
// SIGINT, SIGTERM, SIGHUP and SIGQUIT (a Ctrl-C at the terminal; one the caller ignores stays
// ignored) are held meanwhile, so the tree is never left aside: interrupted() tells the
// caller to stop before git runs, and the end of scope, its work done, raises the signal
// again. Only SIGKILL leaves the tree aside
// (`.<name>.git-guard-removing-<pid>`, whole) and git's lock files in its admin entry.
class RemovalHold {
public:
    RemovalHold(const Worktree& tree, bool move_aside, std::chrono::seconds wait);
    ~RemovalHold();
    RemovalHold(const RemovalHold&) = delete;
    RemovalHold& operator=(const RemovalHold&) = delete;

    // Where the tree is now: aside, or where it was (the move was not possible).
    bool moved() const { return !m_aside.empty(); }
    // A signal that would have ended the removal arrived: nothing more should start.
    bool interrupted() const;
    // git removed the tree's admin entry: the moved copy goes too, moved whole under
    // `common` (`moved_to`) when it cannot be deleted, as `git guard remove` does;
    // Outcome::kept (`moved_to`: where its files are left) when neither was possible.
    Outcome removed(const std::filesystem::path& common, std::filesystem::path& moved_to);

private:
    struct Held {
        std::filesystem::path file;
        dev_t dev;
        ino_t ino;
    };
    std::vector<Held> m_locks;
    std::vector<std::pair<int, struct sigaction>> m_signals; // the actions held, as they were
    std::filesystem::path m_tree;  // where the tree was
    std::filesystem::path m_aside; // where it is while held ("" when not moved)
};

// `git guard remove`: save, remove, prune; handles husks and read-only trees. The tree
// names its own repository when git can read it; else it is `here`'s (the caller's).
RemoveResult remove_tree(const Site& here, const std::filesystem::path& tree,
                         const RemoveOptions& options);

} // namespace guard

namespace guard {

// `git guard discard <tree|branch|stranded branch>`: the explicit override that
// destroys without saving. Logged. Returns what was destroyed, for the user. A tree
// names its own repository; a branch or a save is `here`'s.
std::string discard(const Site& here, const std::string& target);

} // namespace guard
