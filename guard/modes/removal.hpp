#pragma once

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

// `git guard remove`: save, remove, prune; handles husks and read-only trees.
RemoveResult remove_tree(const std::filesystem::path& start, const std::filesystem::path& tree,
                         const RemoveOptions& options);

} // namespace guard

namespace guard {

// `git guard discard <tree|branch|stranded branch>`: the explicit override that
// destroys without saving. Logged. Returns what was destroyed, for the user.
std::string discard(const std::filesystem::path& start, const std::string& target);

} // namespace guard
