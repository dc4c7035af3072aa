#pragma once
// A repository's worktrees as git lists them (worktree_list.cpp).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace guard {

// One checkout registered with a repository.
struct Worktree {
    std::filesystem::path path;    // root of the working tree, as registered
    std::filesystem::path git_dir; // its admin dir (the common dir for the main tree)
    std::string name;              // admin entry name ("" for the main tree)
    bool is_main = false;
    bool locked = false;
    std::string lock_reason;
    bool prunable = false;         // registered, but its directory or .git is gone
    bool git_prunable = false;     // ... as git itself says (`prunable` in its listing)
    std::string head;              // HEAD's id as git lists it ("" when unborn)
    std::string branch_ref;        // refs/heads/<x> when on a branch, "" when detached
};

// Every worktree of the repository at `common`, the main one first, as
// `git worktree list` reports it (relative worktrees included). Throws Error
// when git cannot list them.
std::vector<Worktree> list_worktrees(const std::filesystem::path& common);

// The one reader of `git worktree list --porcelain -z` (`listing`) of the repository at
// `common`: what list_worktrees returns, for a listing asked some other way.
std::vector<Worktree> parse_worktrees(const std::string& listing, const std::filesystem::path& common);

// The registered worktree whose root is exactly `path`, if any (in `trees`, a list
// this decision read already, or asked of git).
std::optional<Worktree> find_worktree(const std::filesystem::path& common,
                                      const std::filesystem::path& path);
std::optional<Worktree> find_worktree(const std::vector<Worktree>& trees, const std::filesystem::path& path);

// The registered worktree whose root is exactly `path`. Throws Error, naming the
// enclosing tree when there is one, for anything else: a git call "in" a
// subdirectory or a husk would answer for the wrong tree.
Worktree resolve_worktree(const std::filesystem::path& common, const std::filesystem::path& path);
Worktree resolve_worktree(const std::vector<Worktree>& trees, const std::filesystem::path& common,
                          const std::filesystem::path& path);

} // namespace guard
