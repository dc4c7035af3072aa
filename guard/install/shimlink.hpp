#pragma once

#include "guard/install/install.hpp"

#include <filesystem>

namespace guard {

// The installed shim, checked before anything is written. A `git` at `link` that is not a
// git-guard shim is never replaced: it may be the user's real git. Throws Error.
std::filesystem::path check_shim(const std::filesystem::path& link);

// Links the shim at `link`, registers the repository, and says whether PATH needs a line.
void link_shim(Installation& ctx, const std::filesystem::path& link);

// Drops the repository from the registry; removes the shared link when no other
// registered repository's manifest still names it.
void unlink_shim(Installation& ctx);

} // namespace guard
