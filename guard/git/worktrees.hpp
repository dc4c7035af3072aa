#pragma once

#include "guard/git/gitcall.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"
#include "guard/git/site.hpp"

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace guard {

// git's own list of a repository's worktrees (`git worktree list --porcelain -z`), read
// through the caller's call, so it holds for every format and extension the real git
// supports (SHA-256, reftable, relative worktrees), which libgit2 1.5 may not; parsed by
// the one reader of that listing (parse_worktrees). `name` is the admin entry's id.
using ListedTree = Worktree;

// Runs the real git as the caller would have (`call`'s globals, in `call.cwd`), plus `args`,
// with `input` on its stdin. Its messages are git's English ones (LC_ALL=C, LANGUAGE=C),
// whatever the caller's locale: some are read by their words (`clean -n`, `worktree prune -n`).
RunResult ask_git(const GitCall& call, const std::vector<std::string>& args, const std::string& input = "");
RunResult ask_git(const GitCall& call, std::initializer_list<std::string> rest);

// Every worktree git lists, the main one first.
std::vector<ListedTree> list_trees(const GitCall& call);

// The tree `git worktree remove <arg>` means among `trees` (list_trees), as git's
// find_worktree finds it: a unique path suffix, else the path itself. Nothing when git
// would not find one.
std::optional<ListedTree> find_listed(const std::vector<ListedTree>& trees, const GitCall& call,
                                      const std::string& arg);

// The trees `git worktree prune <call's options>` would prune, by git's own dry run.
std::vector<ListedTree> prune_candidates(const GitCall& call);

} // namespace guard
