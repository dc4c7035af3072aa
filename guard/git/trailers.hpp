#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

// `git --git-dir=<git_dir> <args>`'s stdout; throws Error with git's first error line.
std::string git_out(const std::filesystem::path& git_dir, std::vector<std::string> args);

// A nested repository or submodule recorded by a save (`Stranded-Nested*` trailers).
struct SavedNested {
    std::string commit;   // N: a save of the same layout, or the nested HEAD when it had no work
    std::string path;     // relative to the tree root
    std::string head;     // the nested HEAD ("" when unborn or not recorded)
    std::string branch;   // the nested branch ("" when detached or not recorded)
};

// What a save commit records, read with git (contract C1), by trailers, never by position.
struct SaveLayout {
    std::string commit;        // S
    int layout = 0;            // 2, 1 (no Stranded-Layout trailer), 0: a plain commit
    std::string tree;          // the working state: S's tree
    std::string head;          // the tree's HEAD ("" when unborn)
    std::string index_tree;    // the tree of its index
    std::string index_commit;  // I, when recorded as a commit of its own
    std::string from;          // Stranded-From
    std::string branch;        // Stranded-Branch ("" for "detached")
    std::string reason;        // Stranded-Reason
    std::string identity;      // S's committer, "Name <email>": who claims to have made it
    std::string branch_tip;    // Stranded-Branch-Tip: HEAD had moved off the branch
    std::vector<std::string> unmerged;
    std::vector<std::pair<std::string, std::string>> unsaved; // Stranded-Unsaved: (why, path) not in the save
    std::vector<SavedNested> nested;
    std::vector<std::pair<std::string, std::string>> own_refs; // Stranded-Ref: per-worktree (name, id)
};

// Reads `commit` in the repository at `git_dir`. Throws Error when git cannot read it.
SaveLayout read_layout(const std::filesystem::path& git_dir, const std::string& commit);

// Throws Error naming what is missing unless every object the save needs to be restored is
// in the object store: the commits, their trees and blobs, nested saves recursively.
void verify_layout(const std::filesystem::path& git_dir, const SaveLayout& save);

// A path as git writes it in trailers: C-quoted ("a\tb", octal bytes) when it needed quoting.
std::string unquote_path(const std::string& text);

} // namespace guard
