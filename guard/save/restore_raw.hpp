#pragma once
// Restore writes the saved bytes back (DESIGN §4.1.1): the files a save holds apart from
// its HEAD are its raw bytes (staging_raw.hpp), so they are written as they are, never
// through a smudge filter or an eol rule, and `cmp` with the original holds. The files
// HEAD holds as they were are checked out by git, as git itself would.

#include <filesystem>
#include <string>

namespace guard {

// Writes every file of `tree` (modes, symlinks, untracked files) into `dir`, a new
// directory, in the repository at `git_dir`: the regular files that differ from `base`
// (a commit or tree; empty: every file) byte for byte, the rest by git's checkout-index,
// through a private index so the tree's own index is written only from the index record.
// Throws Error when git cannot.
void write_saved_files(const std::filesystem::path& git_dir, const std::filesystem::path& dir,
                       const std::string& base, const std::string& tree);

} // namespace guard
