#pragma once

#include "guard/git/site.hpp"
#include "guard/save/snapshot.hpp"

#include <filesystem>
#include <optional>
#include <string>

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
// the shim's `git worktree remove` holds it across its exec of git, `git guard remove` until
// it has removed the tree. A racer waits, then finds the tree gone, instead of judging a tree
// another removal has already saved (and calling its removal its own).
std::string removal_lock_key(const std::filesystem::path& tree);

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
