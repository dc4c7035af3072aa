#pragma once
// What a ref transaction would lose (C2, DESIGN §4.2): the hook's view of it, and the verdicts.
#include "guard/git/published_check.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace guard {

// C2: the hook's view of a ref transaction.
struct Deletion {
    std::string ref;       // refs/heads/x (or HEAD, detached)
    std::string old_oid;   // hex tip
    std::string new_value; // "" for a deletion; a move's new id, or `ref:<target>` (2.46+)
    bool present = false;  // git already said `old_oid`'s object exists (the hook read its type)
    std::string tree;      // `old_oid`'s tree, when the hook read it with the old value ("": not read)
};
struct RefTransaction {
    std::vector<Deletion> deletions;         // the branch (and save) deletions to judge
    std::vector<std::string> other_deleted;  // every other ref the transaction deletes or moves
    std::vector<std::string> written;        // new values (hex) of refs it creates or updates
};
struct BranchVerdict {
    Deletion deletion;
    std::vector<std::string> commits;  // unique, unpublished commits; empty: nothing to save
    bool unchecked = false;            // the deadline passed before it was proven published
    std::string note;                  // e.g. the tip object is missing: nothing left to save
};

// Every ref of the repository as one judgement sees them (list_refs, with the listing the
// published check is seeded from), listed once: git holds the transaction's locks, so each
// ref it deletes still lists with its old value. Nothing (logged) when git cannot list them.
struct SeenRefs {
    std::vector<RefValue> refs;
    RefListing listing;
    std::map<std::string, std::string> shared; // the shared refs of `refs`: name -> oid
};
std::optional<SeenRefs> see_refs(const std::filesystem::path& common);

// The value `ref` lists with in `seen` for the tree whose git dir is `git_dir` (a shared
// ref, or that tree's own); "" when it is not listed (HEAD, a symbolic or a broken ref).
std::string seen_value(const SeenRefs& seen, const std::string& ref, const std::filesystem::path& git_dir);

// One pass for the whole transaction (DESIGN §4.2): one rev-list walk for all
// tips against all other refs, then one published check per candidate base.
// Past `deadline`, every tip not yet proven published is returned with
// commits = {tip} and unchecked = true. Any error reads as "unpublished".
// `seen`: the refs the caller listed already for this transaction (else listed here).
std::vector<BranchVerdict> judge_deletions(const std::filesystem::path& git_dir,
                                           const RefTransaction& transaction,
                                           const Settings& settings,
                                           std::chrono::steady_clock::time_point deadline,
                                           std::optional<SeenRefs> seen = std::nullopt);

} // namespace guard
