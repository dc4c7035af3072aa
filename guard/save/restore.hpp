#pragma once

#include "guard/git/site.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

struct RestoreOptions {
    std::filesystem::path path;   // where the tree goes; empty: where it came from
    // The tree's branch, when it no longer exists, made again at the saved HEAD (undo: the
    // destroyer deleted it too); otherwise HEAD is left detached with a note.
    bool recreate_branch = false;
};

struct Restored {
    std::string ref;
    std::string commit;
    std::string kind;                 // "worktree" or "branch"
    std::filesystem::path path;       // the new worktree ("" for a branch)
    std::string branch;               // checked out or created ("" when detached)
    std::string head;                 // the restored HEAD
    std::vector<std::string> notes;   // each way the result differs from the original
};

// `git guard restore` (DESIGN §13): puts the save `ref` back. A tree save becomes a linked
// worktree with the saved HEAD, branch (when it exists and is free), index, files and nested
// repositories; a save of a deleted branch becomes that branch again. It never overwrites:
// an existing path or branch, or a save that no longer verifies, throws Error before
// anything changes. Saves of layout 1 and 2 and commit-only saves are all read. The save is
// `here`'s repository's; a relative target path is taken from `here.dir`.
Restored restore_save(const Site& here, const std::string& ref,
                      const RestoreOptions& options);

// The same for a save already found (undo finds all of a destroyer's saves in one listing).
struct Save;
Restored restore_save(const Site& here, const Save& save, const RestoreOptions& options);

// `git guard restore --in-place` and `git guard undo`: puts an in-place save (made before
// reset --hard, checkout --, a forced branch move, stash drop, ...) back into the tree it
// came from: its HEAD (the branch moved back), index and files; a save of commits only
// moves its branch back; a stash save becomes a stash entry again. It never overwrites:
// uncommitted changes in the tree, a file in the way whose content differs, a branch
// moved elsewhere or a HEAD only this move would let go throw Error before anything
// changes, naming each.
Restored restore_in_place(const Site& here, const std::string& ref);
Restored restore_in_place(const Site& here, const Save& save);

// What is in the way of putting the save `ref` back where it came from (restore_save with
// no path, or restore_in_place for an in-place save), one line each; empty when nothing
// is. Throws Error when the save cannot be read.
std::vector<std::string> restore_obstacles(const Site& here, const std::string& ref);
std::vector<std::string> restore_obstacles(const Site& here, const Save& save);

} // namespace guard
