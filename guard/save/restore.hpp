#pragma once

#include "guard/git/site.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

struct RestoreOptions {
    std::filesystem::path path;   // where the tree goes; empty: where it came from
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

} // namespace guard
