// The folded saves' history in a kept pack (issue 35 item 4): a chain only moves forward
// and a save's content never changes, yet every `git gc` (`repack -a -d`) enumerated and
// rewrote all of it; at 20,000 saves that was half of gc. A pack git sees a `.keep` for is
// left as it is by gc and repack, so the chains' objects are written once.
//
// What may be kept is only what gc would keep anyway: the `.keep` lists the chain tips the
// pack was made from (every object in it is reachable from them), and a kept pack whose
// tips the chains no longer all reach (a chain deleted, or folded into the archive) loses
// its `.keep` before anything else, so gc and prune then treat its objects as they would
// without the guard. Nothing is ever deleted that a newer kept pack does not hold.
#pragma once

#include "guard/git/git.hpp"

#include <cstddef>
#include <filesystem>

namespace guard {

// Commits the chains reach outside our kept pack before a fold writes a new one.
constexpr std::size_t k_kept_batch = 2000;

// After a fold: when the chains of the repository of `store` reach k_kept_batch commits or
// more that our kept pack does not hold, packs everything they reach into one new kept
// pack, then removes the one it replaces. A stale kept pack of ours is released first.
// Never throws: a pack that cannot be written is logged, and gc then does what it did.
void keep_folded_history(const Git& store) noexcept;

// Before gc: releases every kept pack of ours whose tips the chains no longer all reach
// (its `.keep` goes; the pack becomes an ordinary one). Asks git nothing when there is none.
void release_stale_kept(const Git& store) noexcept;

// At uninstall: every kept pack of ours loses its `.keep` (no guard is left to release one
// the chains stop reaching; gc then treats the packs as any other).
void release_all_kept(const std::filesystem::path& common) noexcept;

// Whether `keep` (a `.keep` file) is one of ours.
bool is_folded_keep(const std::filesystem::path& keep);

} // namespace guard
