#pragma once
// Chains (DESIGN §2.6, §13): a few refs whose history reaches every save, moved only
// forward. A chain is a line of link commits (empty tree, pinned identity): a root, then
// one link per save whose first parent is the link before and whose second parent is the
// save commit, untouched. A link's trailers name the save's handle, the name every command
// takes it by (`refs/stranded/<name>/<stamp>` for in-place saves and snapshots, the old
// `refs/heads/stranded/<name>/<stamp>` of a folded removal or branch save). A drop is a link
// with one parent naming the handle it drops: the chain never moves back.
#include "guard/git/git.hpp"
#include "guard/save/snapshot.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace guard {

inline constexpr const char* k_chain_prefix = "refs/stranded/chain/";
inline constexpr const char* k_archive_chain = "refs/stranded/chain/archive";

// The chain of the in-place saves and snapshots of trees whose directory is named `name`:
// `refs/stranded/chain/tree/<name>` (made valid as a ref component).
std::string tree_chain(const std::string& name);

// The chain a handle's save would be appended to: tree_chain of its `<name>` for an
// in-place handle, the archive for a removal or branch handle.
std::string chain_of_handle(const std::string& handle);

// True for a chain ref (the archive, or a tree's chain; an earlier version's in-place save
// of a tree named "chain" is `refs/stranded/chain/<stamp>`, no chain).
bool is_chain_ref(const std::string& ref);

// One save to append: `commit` (an existing save commit) under `handle`.
struct Link {
    std::string handle;
    std::string commit;
};

// Appends `links` to `chain` in one step: writes the link commits (git fast-import, no
// hook), moves `chain` from its current tip to the new one with compare-and-swap and every
// hook off, and reads the new links back (each second parent is its save, the old tip is
// the first link's first parent). The caller holds the chain's lock (chain_lock). Returns
// the new tip; throws Error when anything fails (the chain then stays where it was).
std::string append_links(const Git& git, const std::string& chain, const std::vector<Link>& links);

// The lock that serialises appends to `chain` (PathLock on "chain:<chain>").
std::string chain_lock_key(const std::string& chain);

// THE entry for in-place saves and the watcher's snapshots: appends the save commit
// `commit` (complete, already written) of the tree whose directory is named `name` to
// tree_chain(`name`) in the repository at `common`, under the chain's lock (waiting up to
// `lock_timeout`), forward-only, verified by read-back. The handle is
// `refs/stranded/<name>/<stamp>` (a `-N` suffix when the newest link has it). Returns the
// verified save: `ref` is the handle, `commit` and `tree` as read back. Throws Error when
// the save cannot be appended (nothing moved). A save that made its chain then bounds the
// tree chains (bound_tree_chains).
Saved append_save(const std::filesystem::path& common, const std::string& name, const std::string& commit,
                  std::chrono::seconds lock_timeout);

// Verifies that `s.ref` (a handle) is held by its chain with `s.commit` and `s.tree`.
void verify_link(const Git& git, const Saved& s);

// Records of `fields` NUL-terminated fields, each record ending in a newline (git log's
// and for-each-ref's --format=...%x00 output). Counting fields keeps a message that holds
// a newline after a NUL-free field from splitting a record.
std::vector<std::vector<std::string>> nul_records(const std::string& out, size_t fields);

// Appends a drop link for `handle` to `chain`, the chain that holds its save (as listed: a
// tree's save may have been folded into the archive with its tree's chain), under the
// chain's lock.
void drop_link(const std::filesystem::path& common, const std::string& chain, const std::string& handle,
               std::chrono::seconds lock_timeout);

} // namespace guard
