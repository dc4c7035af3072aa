#pragma once

#include "guard/git/trailers.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

// One path a save holds, and how it differed in the tree: "staged", "modified", "deleted",
// "untracked", "nested" (the kinds of `git guard status` where they mean the same).
struct SavedChange {
    std::string path;
    std::string kind;
};

struct SaveContents {
    std::vector<SavedChange> changes;
    std::vector<std::string> commits;   // on no ref but saves, newest first (at most 100)
};

// What `save` holds, by git's own diffs: HEAD to the index record (staged), the index record
// to the working state (modified, deleted, untracked), and its commits.
SaveContents save_contents(const std::filesystem::path& git_dir, const SaveLayout& save);

} // namespace guard
