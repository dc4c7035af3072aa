#pragma once
// The saves that chains hold (folded removal and branch saves, in-place saves, snapshots)
// as `list`, `show`, `restore` and `drop` see them: by the same handle as a branch save.
#include "guard/save/stranded.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <set>
#include <unordered_set>
#include <string>
#include <vector>

namespace guard {

// Appends to `out` the saves of `records` (chain_records, taken apart by `make`) whose "handle commit" is not in
// `seen` (a save whose branch still exists is listed once, as the branch), each made by
// `make` and with its `chain`. With `pushed` ("ref commit" of successful backup pushes), a
// save is backed up when a pushed tip of its chain reaches its link.
void add_chained(std::vector<Save>& out, std::unordered_set<std::string>& seen,
                 std::vector<std::vector<std::string>>&& records,
                 const std::function<Save(std::vector<std::string>&)>& make,
                 const std::set<std::string>* pushed);

// `drop` of a chained save: chains never move back, so a drop link on its chain hides it
// from every listing; its content stays reachable from the chain. Journaled as "drop".
// Returns its handle.
std::string drop_folded(const std::filesystem::path& common, const Save& save);

// Drops every one of `saves` (as listed) at once: the refs in one transaction (one by one
// when that fails: a ref that moved since stays), the chained ones as one drop link per
// chain; each journaled as "drop". Throws Error when a chain cannot take its drop links.
void drop_all(const std::filesystem::path& common, const std::vector<Save>& saves);

} // namespace guard
