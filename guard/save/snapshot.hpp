#pragma once

#include "guard/judge/work.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace guard {

struct SaveOptions {
    std::string reason = "save";                     // Stranded-Reason: the operation that forced the save
    std::string ref_prefix = "refs/heads/stranded";  // or "refs/stranded" for in-place saves (C1)
    // What the caller knows already, each sparing a git call in save_existing: the commit's
    // tree, and the tree's absolute path and branch ("" when detached) for the journal,
    // which otherwise reads them from the commit's trailers.
    std::string tree;
    std::string path;
    std::string branch;
    // save_path: git stages the tree beside the inspection (EarlyStaging), for callers
    // that expect work (an explicit save, a destroyer that found some). A clean tree then
    // costs a `git add -A` for nothing, so removals leave it off.
    bool stage_early = false;
    // When set, only the nested repositories and submodules at these paths (relative to
    // the tree's root) are saved; the others stay out of the save (an in-place destroyer
    // that leaves them alone). Unset: every one is saved.
    std::optional<std::vector<std::string>> nested_saved;
    // The decision's refs walk, under the tree's lock, found no save of this name: no
    // earlier save can hold the same work, so none is looked for.
    bool no_earlier_save = false;
    // The larger of the two save ref counts (refs/heads/stranded/… and refs/stranded/…,
    // chains not counted) the decision read already: while one more keeps both within
    // guard.keepBranches, nothing can be due for folding and git is not asked. Unset: asked.
    std::optional<std::size_t> saves_of_kind;
    // A save ref name the same walk found free (no ref of that name, none in its way):
    // the save and its ref are then written by one git (write_save_at). Empty: unknown.
    std::string free_ref;
};

// A verified save.
struct Saved {
    std::string ref;        // <ref_prefix>/<name>/<stamp>[-N]
    std::string commit;     // hex
    std::string tree;       // hex
    std::string base;       // the commit the work sits on ("" when none)
    std::string diffstat;   // one-line summary against `base`
    bool made_commit = false;
    bool existing = false;  // an earlier save already held exactly this work
};

// Saves `work` (as inspect_tree, inspect_admin or inspect_checkout found it) in
// the repository at `common` (DESIGN §5, layout 2 of C1): git's own staging
// into a private index, commit-tree, a new ref made with no hooks, read back.
// Writes nothing to the tree's files, index, HEAD or branch. Returns nothing
// when there was nothing to save. Throws Error when it cannot.
class EarlyStaging;
std::optional<Saved> save_work(const std::filesystem::path& common, const Work& work,
                               const std::string& name, const Settings& settings,
                               const SaveOptions& options, EarlyStaging* early = nullptr);

// The files of `root`, a tree git can no longer read (a husk), with what its
// admin entry `tree` still holds (when there is one), saved as `name`.
std::optional<Saved> save_husk(const std::filesystem::path& common, const std::filesystem::path& root,
                               const std::optional<Worktree>& tree, const Settings& settings,
                               const SaveOptions& options);

struct SaveResult {
    Work work;
    std::optional<Saved> saved;
    std::string refused;  // the DESIGN §8 message when the work could not be saved
};

// `git guard save`, the shim and removal: under the tree's lock, inspect `tree`
// again and save its work. A tree whose directory is gone (or was moved aside)
// is saved from its admin entry. A refusal (the work is then untouched) is
// reported in `refused`; Error is thrown only when `tree` is not a worktree. A tree
// names its own repository (site_named), anything else is `here`'s.
SaveResult save_path(const Site& here, const std::filesystem::path& tree,
                     const SaveOptions& options);

// save_path for a caller that knows the repository already (its common dir `common` and
// `settings`, read once per run) and names `tree` as git lists it: under the tree's lock,
// one worktree list and one refs walk serve the whole decision. `listed`: git's list as
// the caller read it (none: read here, under the lock); a tree it names whose admin
// directory is gone by the time the lock is held was removed meanwhile (Error).
SaveResult save_tree(const std::filesystem::path& common, const Settings& settings,
                     const std::filesystem::path& tree, const SaveOptions& options,
                     const std::vector<Worktree>* listed = nullptr);

} // namespace guard
