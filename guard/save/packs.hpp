// Saves write packs: fast-import writes one per removal save, and nothing gathers them
// until git's own `gc --auto`, which `worktree remove` and `branch -D` never run. After
// 2,000 operations that was 668 packs, and every git command slowed with them (issue 35).
#pragma once

#include "guard/git/git.hpp"

#include <cstddef>

namespace guard {

// Packs in a repository before a save gathers them (half git's gc.autoPackLimit default).
constexpr std::size_t k_pack_limit = 25;

// When the repository of `store` holds k_pack_limit packs or more, rolls the small ones
// together (`git repack -d -l --geometric=2`: every object of the packs it joins is kept,
// reachable or not, and kept packs, the watcher's hold among them, are left alone). Never
// fails the save: a repack that cannot run is logged.
void keep_packs_few(const Git& store);

// How many `*.pack` files `<common>/objects/pack` holds.
std::size_t pack_count(const std::filesystem::path& common);

} // namespace guard
