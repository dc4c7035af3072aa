#pragma once

#include "guard/git/site.hpp"
#include "guard/judge/destroyed.hpp"
#include "guard/save/snapshot.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace guard {

// In-place saves live outside refs/heads/ (contract C1): `git branch` stays as it was.
inline constexpr const char* k_in_place_prefix = "refs/stranded";

// `refs/stranded/<name>/`: where the in-place saves at `site` go (tree_name).
std::string ref_dir(const Site& site);

// "3 path(s): a.txt, b.txt, c/d": what `d` holds, for messages.
std::string held(const Destroyed& d);

// Saves exactly the paths of `d` (nothing when they hold what HEAD holds): a commit
// whose tree is HEAD's with each lost path as it is on disk now, first parent HEAD,
// and the index record of those paths as its own commit when it differs from both.
// Reuses the newest save of the tree when it already holds exactly this. Throws Error
// when writing fails.
struct Opened {
    git_repository* repo;        // the tree's repository, opened by the caller
    const Settings* settings;
};
std::optional<Saved> save_destroyed(const GitCall& call, const Site& site, const Destroyed& d,
                                    const Opened& opened);

} // namespace guard
