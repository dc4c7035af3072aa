#pragma once

#include "guard/save/staging.hpp"

#include <optional>
#include <string>

namespace guard {

// Writes the save commit S of layout 2 (C1, README "Recovering stranded work")
// in the store `git` names: tree = the working state, parents HEAD, then the
// index commit I, the branch tip T and the nested saves N1..Nk, each only when
// present, and per-worktree refs at risk; found by trailers, never by position.
// `commit-tree` runs no hooks; the identity is pinned and nothing is signed.
std::string write_save(const Git& git, const Work& work, const Staged& staged,
                       const Settings& settings, const std::string& reason);

// The same save and its ref `ref` in one git (fast-import), when the caller found `ref`
// free in its listing, with no hook (fast-import would only move a ref made meanwhile
// forward, never off what it held: decisions.md "The commits and the ref"). Nothing
// when fast-import could not write it, or would read the identity or the dates
// otherwise than commit-tree: write_save and create_save then do it, as before.
std::optional<std::string> write_save_at(const Git& git, const Work& work, const Staged& staged,
                                         const Settings& settings, const std::string& reason,
                                         const std::string& ref);

// guard.identity ("Name <email>") split; git-guard <git-guard@localhost> when malformed.
struct Identity {
    std::string name = "git-guard";
    std::string email = "git-guard@localhost";
};
Identity parse_identity(const std::string& identity);

// A path quoted as git quotes it when it needs to (C-style, in double quotes).
std::string quote_path(const std::string& path);

// The `Stranded-Unsaved:` reason of a staged entry whose blob the object store lacks.
constexpr const char* k_missing_blob = "missing-blob";

} // namespace guard
