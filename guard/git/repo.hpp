#pragma once

#include "guard/base/file.hpp"
#include "guard/git/config.hpp"
#include "guard/git/libgit2.hpp"
#include "guard/git/worktree_list.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace guard {

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

// A path git wrote into `file` (a worktree's `gitdir`, a `.git` file): all of it less
// the one newline git ends it with, since a path may hold newlines (LESSONS 23).
std::string read_path_file(const std::filesystem::path& file);

// A path git printed as the whole of `out` (`rev-parse --show-toplevel`): `out` less
// its final newline, never cut at an inner one.
std::string output_path(const std::string& out);

// Absolute, normalised, symlinks resolved as far as the path exists.
std::filesystem::path absolute_path(const std::filesystem::path& path);

} // namespace guard
