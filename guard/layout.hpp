#pragma once

#include "guard/staging.hpp"

#include <string>

namespace guard {

// Writes the save commit S of layout 2 (C1, README "Recovering stranded work")
// in the store `git` names: tree = the working state, parents HEAD, then the
// index commit I, the branch tip T and the nested saves N1..Nk, each only when
// present, and per-worktree refs at risk; found by trailers, never by position.
// `commit-tree` runs no hooks; the identity is pinned and nothing is signed.
std::string write_save(const Git& git, const Work& work, const Staged& staged,
                       const Settings& settings, const std::string& reason);

// A path quoted as git quotes it when it needs to (C-style, in double quotes).
std::string quote_path(const std::string& path);

} // namespace guard
