#pragma once

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
    std::string head;              // HEAD's id as git lists it ("" when unborn)
    std::string branch_ref;        // refs/heads/<x> when on a branch, "" when detached
};

// The repository-local guard.* keys (DESIGN §9).
struct Settings {
    bool enabled = false;
    std::vector<std::string> exclude;
    std::vector<std::string> keep_ignored;
    std::vector<std::string> base_refs;
    std::string identity = "git-guard <git-guard@localhost>";
    std::chrono::seconds lock_timeout{60};
    bool lock_worktrees = false;   // guard.lockWorktrees, set by install --lock-worktrees
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

// The guard.* keys of the repository whose git dir (or common dir) is `git_dir`,
// read by git (so includes, conditional includes and every format work).
Settings read_settings(const std::filesystem::path& git_dir);

// The guard.* and hook.* entries of `git_dir`'s configuration as git lists them (keys as
// `config --get-regexp` prints them), read once per process while the repository's config
// files stay as they are: one save reads the settings, the hooks to turn off and
// guard.onSave. forget_config() drops what was read (after install changes them).
using ConfigEntries = std::vector<std::pair<std::string, std::string>>;
const ConfigEntries& guard_config(const std::filesystem::path& git_dir);
void forget_config();

// Every worktree of the repository at `common`, the main one first, as
// `git worktree list` reports it (relative worktrees included). Throws Error
// when git cannot list them.
std::vector<Worktree> list_worktrees(const std::filesystem::path& common);

// The registered worktree whose root is exactly `path`, if any.
std::optional<Worktree> find_worktree(const std::filesystem::path& common,
                                      const std::filesystem::path& path);

// The registered worktree whose root is exactly `path`. Throws Error, naming the
// enclosing tree when there is one, for anything else: a git call "in" a
// subdirectory or a husk would answer for the wrong tree.
Worktree resolve_worktree(const std::filesystem::path& common, const std::filesystem::path& path);

// Opens the repository that contains `start` (any path inside it, or a git dir).
// Refuses, with the reason, repositories libgit2 cannot serve (reftable, SHA-256).
// (Left for the in-place stash saves and the journal's refusal records.)
Repository open_repository(const std::filesystem::path& start);

std::filesystem::path common_dir(git_repository* repo);

// Throws Error when `common_dir`'s config declares a format we cannot serve.
void check_supported(const std::filesystem::path& common_dir);

Settings read_settings(git_repository* repo);

// Proves that `tree` is readable by git as itself (DESIGN LESSONS 6): `.git`
// exists and git's top level is exactly the tree's root. Throws Error otherwise.
void check_readable(const Worktree& tree);

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
