#pragma once

// The engine API the hook needs (contract C2), for branches where the engine's own
// (guard/history.hpp, guard/snapshot.hpp) does not have it yet. Self-contained: built on
// git plumbing, so a merge can keep either implementation.

#include "guard/bounded.hpp"
#include "guard/repo.hpp"
#include "guard/snapshot.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace guard {

struct Deletion { std::string ref; std::string old_oid; };   // refs/heads/x, hex tip
struct RefTransaction {
    std::vector<Deletion> deletions;          // the branch (and save) deletions to judge
    std::vector<std::string> other_deleted;   // every other ref the transaction deletes
    std::vector<std::string> written;         // new values (hex) of refs it creates or updates
};
struct BranchVerdict {
    Deletion deletion;
    std::vector<std::string> commits;   // unique, unpublished commits; empty: nothing to save
    bool unchecked = false;             // the deadline passed before it was proven published
};

// One pass for the whole transaction (DESIGN §4.2): one rev-list walk for all tips against
// all other refs, then one published check per candidate base. Past `deadline`, every tip
// not yet proven published is returned with commits = {tip} and unchecked = true.
std::vector<BranchVerdict> judge_deletions(const std::filesystem::path& git_dir,
                                           const RefTransaction& transaction,
                                           const Settings& settings,
                                           std::chrono::steady_clock::time_point deadline);

// Points a new save ref `refs/heads/stranded/<name>/<stamp>` at the existing commit
// `commit` (hex), verified; no commit is made. No hook runs.
Saved save_existing(const std::filesystem::path& git_dir, const std::string& name,
                    const std::string& commit, const SaveOptions& options);

} // namespace guard
