#pragma once

#include "guard/git/config.hpp"
#include "guard/git/libgit2.hpp"

#include <chrono>
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

// Where a repository lives, as git itself reports it (no libgit2).
struct Location {
    std::filesystem::path git_dir;  // the tree's own git dir (admin entry for linked trees)
    std::filesystem::path common;   // the common dir
};

// The repository around `start` (any path inside a tree, or a git dir), asked
// of git. Throws Error when `start` is in no repository.
Location locate(const std::filesystem::path& start);

// What install, uninstall and doctor need besides `locate`, also asked of git.
struct Site {
    Location where;
    std::filesystem::path top; // the tree's root; "" in a bare repository or inside a git dir
    bool bare = false;         // git calls it bare: a relative core.hooksPath is under `common`
};

// The repository around `start`, as git reports it (so every object format, ref backend
// and worktree extension git reads works). Throws Error as `locate` does.
Site locate_site(const std::filesystem::path& start);

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

// Opens the repository that contains `start` (any path inside it, or a git dir).
// Refuses, with the reason, repositories libgit2 cannot serve (reftable, SHA-256).
// (Left for the in-place stash saves and the journal's refusal records.)
Repository open_repository(const std::filesystem::path& start);

std::filesystem::path common_dir(git_repository* repo);

// Throws Error when `common_dir`'s config declares a format we cannot serve.
void check_supported(const std::filesystem::path& common_dir);

Settings read_settings(git_repository* repo);

// Proves that `tree` is readable by git as itself (DESIGN LESSONS 6): `.git`
// exists and git's top level (`top_seen`, when git has already said it) is exactly the
// tree's root. Throws Error otherwise.
void check_readable(const Worktree& tree, const std::optional<std::string>& top_seen = std::nullopt);

// The first line of `file`, without its newline ("" when it cannot be read).
std::string read_first_line(const std::filesystem::path& file);

// A path git wrote into `file` (a worktree's `gitdir`, a `.git` file): all of it less
// the one newline git ends it with, since a path may hold newlines (LESSONS 23).
std::string read_path_file(const std::filesystem::path& file);

// A path git printed as the whole of `out` (`rev-parse --show-toplevel`): `out` less
// its final newline, never cut at an inner one.
std::string output_path(const std::string& out);

// Absolute, normalised, symlinks resolved as far as the path exists.
std::filesystem::path absolute_path(const std::filesystem::path& path);

} // namespace guard
