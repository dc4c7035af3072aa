#pragma once
// What `git ls-files --sparse -v -s -z` said of an index, kept for the next inspection of the
// same tree (issue 35: `guard status` over 50 trees ran two gits per tree). Kept are only
// the records an inspection reads (tree_state.cpp, scan_listing): gitlinks, assume-unchanged
// entries and every `.gitattributes`; the key is the digest of the index file's bytes, and
// git's listing of an index is a function of those bytes alone (a split index names its
// shared index by object id), with one exception: a sparse index may be converted as it is
// read. So a listing with any skip-worktree or sparse-directory record is never kept, and a
// sparse checkout asks git every time.
#include "guard/base/digest.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace guard {

struct IndexKey {
    std::filesystem::path slot; // where the listing is kept; empty: no place to keep it
    std::optional<Digest> digest; // none: the index cannot be read (missing, unreadable)
};

// The key of the index at `index` for the tree whose git dir is `git_dir`.
IndexKey index_key(const std::filesystem::path& git_dir, const std::filesystem::path& index);

// The records kept under `key`, as ls-files gave them (NUL-ended); none on any doubt.
std::optional<std::string> read_index_listing(const IndexKey& key);

// Keeps the records of `listing` (ls-files' whole output for the index `key` names) that an
// inspection reads, unless the index is sparse or `now` (the key read again after git
// answered) differs: an index that changed while git read it keys nothing. Never throws.
void keep_index_listing(const IndexKey& key, const IndexKey& now, std::string_view listing);

} // namespace guard
