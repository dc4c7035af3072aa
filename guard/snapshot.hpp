#pragma once

#include "guard/work.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace guard {

struct SaveOptions {
    std::string reason = "save";   // Stranded-Reason: the operation that forced the save
    std::string ref_prefix = "refs/heads/stranded"; // C2 (H6 stand-in): or "refs/stranded" for in-place saves
};

// A verified stranded branch.
struct Saved {
    std::string ref;        // refs/heads/stranded/<name>/<stamp>[-N]
    git_oid commit{};
    git_oid tree{};
    std::string base;       // the commit the work sits on ("" when none)
    std::string diffstat;   // one-line summary against `base`
    bool made_commit = false;
    bool existing = false;  // an earlier save already held exactly this work
};

// Saves `work` found in `tree` (DESIGN §5): private index, one commit, a new
// branch, read back. Writes nothing to the tree's files, index, HEAD or branch.
// Returns nothing when there was nothing to save. Throws Error when it cannot.
std::optional<Saved> save_tree(git_repository* tree_repo, const Worktree& tree, const Work& work,
                               const Settings& settings, const SaveOptions& options);

// Commits `tree_oid` on top of `work`'s HEAD (and moved-off branch tip), creates
// the stranded branch for `name` and reads it back. The common end of every save.
Saved save_commit(git_repository* repo, const Work& work, const git_oid& tree_oid,
                  const std::string& name, const Settings& settings, const SaveOptions& options);

// Points a new stranded branch named after `name` at `tip` (no commit is made).
Saved save_tip(git_repository* repo, const std::string& name, const git_oid& tip,
               const SaveOptions& options);

// The UTC time to the millisecond, `YYYYMMDDTHHMMSS.mmmZ` (or $GIT_GUARD_STAMP, for tests).
std::string utc_stamp();

// One ref name component made valid by git check-ref-format's rules
// (invalid characters become '-').
std::string ref_component(std::string component);

// `refs/heads/stranded/<name>/<stamp>`: each component made valid for a ref,
// stamped with the UTC time to the millisecond (or $GIT_GUARD_STAMP, for tests).
std::string stranded_ref_name(const std::string& name,
                              const std::string& prefix = "refs/heads/stranded"); // C2 (H6 stand-in): prefix

struct SaveResult {
    Work work;
    std::optional<Saved> saved;
    std::string refused;  // the DESIGN §8 message when the work could not be saved
};

// `git guard save`: under the tree's lock, inspect `tree` again and save its work.
// A refusal (the work is then untouched) is reported in `refused`; Error is thrown
// only when `tree` is not a worktree that can be inspected at all.
SaveResult save_path(const std::filesystem::path& start, const std::filesystem::path& tree,
                     const SaveOptions& options);

// C2 (H6 stand-in): points a new save ref `<ref_prefix>/<name>/<stamp>` at the existing
// commit `commit` (hex), verified; no commit is made.
Saved save_existing(const std::filesystem::path& git_dir, const std::string& name,
                    const std::string& commit, const SaveOptions& options);

} // namespace guard
