#pragma once
// Bounding the tree chains (DESIGN §13): one chain per tree directory name would grow with
// every uniquely named tree ever saved. Beyond guard.keepBranches, the chains of trees git
// no longer lists go into the archive chain: their links (saves and drops, in order) are
// appended there, read back, and only then is the tree chain's ref deleted. A save keeps
// its handle; a drop stays in effect.
#include <cstddef>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace guard {

// A tree chain as for-each-ref reads it.
struct TreeChain {
    std::string ref;
    std::string tip;
    long long time = 0; // the tip's committer time
};

// Of `chains`, the ones to fold so that at most `down_to` stay, oldest tip first (then by
// name); never one in `kept` (the chains of trees git lists), so fewer when too many are
// kept. Oldest first, as they are to be folded.
std::vector<TreeChain> tree_chains_to_fold(std::vector<TreeChain> chains,
                                           const std::set<std::string>& kept, std::size_t down_to);

// When more than `keep` tree chains exist, folds chains of trees the repository at `common`
// no longer lists into the archive chain until at most `down_to` (<= `keep`) tree chains
// stay (tree_chains_to_fold), under the locks of the
// archive and of every chain it folds. The archive's links are read back before any tree
// chain's ref is deleted, each with its old value and every hook off (a ref that moved
// meanwhile stays, and its links are not linked twice by the next fold). Returns how many
// chains it folded; throws Error when the archive cannot take the links (every chain stays).
std::size_t fold_tree_chains(const std::filesystem::path& common, std::size_t keep,
                             std::size_t down_to);

// After a save that made a new tree chain: when more than guard.keepBranches tree chains
// exist, fold_tree_chains down to fold_floor of it. Never throws: a failure is logged, and
// the next new chain or `git guard fold` folds them.
void bound_tree_chains(const std::filesystem::path& common);

} // namespace guard
