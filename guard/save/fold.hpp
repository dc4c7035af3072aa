#pragma once
// Folding (DESIGN §13): the removal and branch saves beyond the newest guard.keepBranches
// onto the archive chain, and the in-place saves beyond the newest guard.keepBranches onto
// their tree's chain (chain.hpp), so the refs stay few. A save's content is never
// rewritten: folding moves its name.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace guard {

struct Folded {
    std::size_t branches = 0; // refs/heads/stranded/… folded into the archive chain
    std::size_t loose = 0;    // refs/stranded/<name>/<stamp> folded into their trees' chains
    std::size_t trees = 0;    // chains of trees that are gone folded into the archive chain
};

// guard.keepBranches (default 50).
std::size_t keep_branches(const std::filesystem::path& common);

// Where a fold after a save leaves a kind that went over `keep`: about a fifth below it
// (50 -> 41, 10 -> 9, 2 -> 2), so that fold, about eight gits whatever it moves, runs once
// in keep/5 saves rather than after each one; never more than `keep` stay.
std::size_t fold_floor(std::size_t keep);

// Folds, in the repository at `common`, every removal and branch save beyond the newest
// `keep` (default: guard.keepBranches; a branch checked out somewhere stays) and every
// in-place save ref beyond the newest `keep`; `in_steps`: of a kind over `keep`, down to
// fold_floor(keep). Each chain gets its links first and reads them back; only then are the
// folded refs deleted, each with its old value and every hook off. Then, when more than
// `keep` tree chains exist (`in_steps`: and this fold made one), those of trees git no
// longer lists go into the archive chain, as far down (fold_tree_chains). Many chains
// written (a migration): their packs are joined. Then, after a fold that moved saves and
// on demand (not `in_steps`), the chains' history goes into a kept pack when enough of it
// is outside one (kept.hpp). A meter on a terminal.
// Throws Error when a chain cannot be written (the refs then all stay).
Folded fold_saves(const std::filesystem::path& common, std::optional<std::size_t> keep = {},
                  bool in_steps = false);

// fold_saves in steps after a new save, when there is anything to fold; never throws (a
// failure is logged and the saves stay branches until the next save or `git guard fold`).
// `saves_before`: the larger of the branch and in-place save counts before the new save,
// when the caller read them already; within guard.keepBranches with one more, nothing is
// asked of git.
// While a transaction of git's is open (inside its hook, fold_after) or holds the ref store,
// the fold is left to a detached `git guard fold --after-git`, which waits for both to end.
void fold_beyond_keep(const std::filesystem::path& common, std::optional<std::size_t> saves_before = {});

// Inside a reference-transaction hook: `git_identity` (process_identity of the git that
// runs it) holds a transaction open, so folds wait, detached, until it has ended.
void fold_after(std::string git_identity);

// Whether git holds the ref store of `common` locked: packed-refs.lock, or reftable's
// tables.list.lock.
bool ref_store_locked(const std::filesystem::path& common);

class Git;
// Deletes the folded `refs` ((name, the value it must still hold)) in transactions of at
// most 100 names with a pause after each, every hook off (ours would refuse deleting a save
// or a chain); each waits for the packed-refs lock as git does (1 s), and when another git
// holds it longer the fold stops there (the next fold retries the names that stayed).
// Returns git's error, "" on success.
std::string delete_folded(const Git& git, const std::vector<std::pair<std::string, std::string>>& refs);

} // namespace guard
