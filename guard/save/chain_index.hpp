#pragma once
// The chains' records as `list` and every command that finds a save read them, without
// walking every link on every call: a chain's history below a tip never changes (a chain
// only moves forward, DESIGN §2.6), so what a walk read under a tip is kept in
// `<common>/guard/chains.index` and only the links above it are read again.
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace guard {

// Every save the chains `tips` (chain ref -> its tip, as the caller's for-each-ref read
// them) hold and no drop link dropped, newest first in each chain, as for-each-ref
// records: handle, commit, committer time, trailers, body (the save's own message facts,
// copied into its link when it was appended: of the trailers the Stranded-From, -Layout,
// -Head, -Branch and -Reason lines, of the body its "Held …" line), then the link and its
// chain. Walks only
// the links above each chain's indexed tip (one git for all of them), and checks that the
// new links end on that tip; when they do not (an index from elsewhere, a chain that was
// force-moved), it walks the chain whole. Throws Error when git cannot read a chain.
std::vector<std::vector<std::string>> chain_records(const std::filesystem::path& common,
                                                    const std::map<std::string, std::string>& tips);

// "<handle> <commit>" of every save link the chain `chain` (at `tip`, "" for none) holds,
// dropped or not: what it has ever been given. Reads the index and the links above it.
// Throws Error when git cannot read the chain.
std::set<std::string> linked_saves(const std::filesystem::path& common, const std::string& chain,
                                   const std::string& tip);

// The value of the trailer `key` in `trailers` (git's %(trailers:only,unfold)), or "".
std::string trailer_value(const std::string& trailers, std::string_view key);

// The chains' records (as chain_records reads them) of the repository at `common`, each
// chain's tip asked of git first.
std::vector<std::vector<std::string>> all_chain_records(const std::filesystem::path& common);

// The handle of a chained save whose handle starts with `handle_prefix` and whose commit
// has tree `tree`, first parent `head` ("" for none) and index tree `index_tree` (its
// Stranded-Index-Tree trailer): a save equal to the one about to be made. nullopt if none.
struct ChainedSave {
    std::string handle;
    std::string commit;
};
std::optional<ChainedSave> find_equal_link(const std::filesystem::path& common, const std::string& handle_prefix,
                                           const std::string& tree, const std::string& index_tree,
                                           const std::string& head);

// Whether some chain holds `commit` as a save (a link whose save is that very commit).
bool chains_save(const std::filesystem::path& common, const std::string& commit);

} // namespace guard
