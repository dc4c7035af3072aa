#pragma once

#include "guard/git/trailers.hpp"

#include <filesystem>
#include <string>

namespace guard {

// A save is input that may come from someone else: a ref pushed into a hub, fetched into a
// mirror, or pulled from guard.backupRemote (DESIGN §13). These checks run before restore
// writes anything.

// Throws Error naming the offending entry unless every path `save` would write (its files
// and links, its index, its nested repositories and theirs, recursively) stays inside the
// restore target: relative, no `.`, `..` or empty component, no `.git` component, and no
// path under one that the same restore writes as a symlink or a file. The branches and
// per-worktree refs its nested repositories and tree would get are checked too.
void check_save_input(const std::filesystem::path& git_dir, const SaveLayout& save);

// Throws Error unless `branch` is a name git accepts under refs/heads/ (check-ref-format)
// that cannot be read as an option; `what` says where the name came from.
void check_branch_name(const std::string& branch, const std::string& what);

// Throws Error unless `ref` is a well-formed full ref name (check-ref-format).
void check_ref_name(const std::string& ref, const std::string& what);

} // namespace guard
