#pragma once
// Where a run happens (STYLE.md "one Site"): asked of one git by each mode's entry and
// handed down, so no layer below asks "where is the repository" again.

#include <filesystem>
#include <string>

namespace guard {

struct GitCall;

struct Site {
    std::filesystem::path dir;     // where git was asked (the caller's directory)
    std::filesystem::path common;  // the repository's common git dir; "" outside one
    std::filesystem::path git_dir; // the tree's own git dir (its admin entry for a linked tree)
    std::filesystem::path hooks;   // where git looks for hooks (`--git-path hooks`: core.hooksPath)
    std::filesystem::path top;     // the tree's root; "" in a bare repository or a git dir
    bool bare = false;             // git calls it bare: a relative core.hooksPath is under `common`
    std::string why;               // why `top` (git's words) or everything (the Error) is empty

    // `common`. Throws Error naming `dir` (`why`) outside a repository.
    const std::filesystem::path& repository() const;
    // `top`. Throws Error with git's reason where there is no tree (bare, a git dir).
    const std::filesystem::path& tree() const;
};

// The repository around `start` (any path inside a tree, or a git dir), asked of one
// `git -C <start> rev-parse` (so every object format, ref backend and worktree extension
// git reads works). Throws Error when `start` is in no repository git can read.
Site site_at(const std::filesystem::path& start);

// The repository `path` names: its own when it is a directory git can read (so
// `git guard status <tree>` works from any directory), else `here`'s. Asks git only when
// `path` is neither `here.dir` nor `here.top`.
Site site_named(const Site& here, const std::filesystem::path& path);

// Where `call` runs, as the caller's git sees it (its globals, its directory): asked of
// git the first time a layer needs it and kept in `call`, never asked again for this
// call; a run that needs none never asks. Never throws: outside a repository every path
// is empty and `why` says why. Takes the front end's config listing (`call.config`) as
// the repository's settings, so no layer reads them again.
const Site& site_of(const GitCall& call);

// The name its saves go under (`refs/stranded/<name>/<stamp>`): the tree's directory
// name; in a bare repository, the repository's directory name less ".git".
std::string tree_name(const Site& site);

} // namespace guard
