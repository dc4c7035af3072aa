#pragma once
// Shared by the save's staging (staging.cpp) and the saves of nested repositories
// (nested.cpp), which stage each other: a nested repository's working state is staged
// like a tree's, and a tree's staging saves its nested repositories first.
#include "guard/save/staging.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace guard {

// The nested repository or submodule at `rel` (relative to `outer`'s work tree) saved
// whole into the store at `common`, every object it reaches copied in; nothing when it
// holds nothing (an empty repository). Throws Error when git cannot save it.
std::optional<NestedSave> save_nested(const Git& outer, const std::string& rel, const std::filesystem::path& common);

// Every file under `git`'s work tree (also ignored ones, `with_ignored`), staged from an
// empty private index under `<common>/guard/tmp/`, as a tree id.
std::string stage_files(const Git& git, const std::filesystem::path& common, bool with_ignored = false);

} // namespace guard
