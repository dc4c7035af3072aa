#pragma once

#include "guard/save/journal.hpp"
#include "guard/save/restore.hpp"
#include "guard/save/stranded.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace guard {

// The saves a mirror keeps in `<common>/guard/bundles/*.bundle` (DESIGN §4.2: a ref there
// would be pruned by the next `fetch --prune`). Each ref of each bundle is one save, taken
// by the handle `bundles/<file stem>/<branch>` in every command.

// `<common>/guard/bundles`.
std::filesystem::path bundles_dir(const std::filesystem::path& common);

// The handle of the save of `ref` (refs/heads/…) kept in the bundle `file`.
std::string bundle_handle(const std::filesystem::path& file, const std::string& ref);

// Journals the save of `ref` at `commit` kept in `file`, as any save is when it is made.
void journal_bundle_save(const std::filesystem::path& common, const std::filesystem::path& file,
                         const std::string& ref, const std::string& commit);

// Every save kept in a bundle and not dropped, oldest bundle first; `journal` as read once.
std::vector<Save> bundle_saves(const std::filesystem::path& common, const std::vector<JournalEntry>& journal);

// The one save of `saves` that the bundle file `name` (a path, or a file name in the
// bundles directory) holds; Error when it holds several (naming them), none when no bundle.
std::optional<Save> find_bundle_save(const std::vector<Save>& saves, const std::string& name);

// Copies the bundle's objects into the object store (no ref changes), so git can read the
// save's commits; Error when the bundle no longer verifies.
void load_bundle(const std::filesystem::path& common, const Save& save);

// The branch back at the save's tip; Error, changing nothing, when a branch of that name
// exists or the name is not one git would create.
Restored restore_bundle(const std::filesystem::path& common, const Save& save);

// Lets the save go (journaled as "drop"); the file goes with its last save. Returns the handle.
std::string drop_bundle(const std::filesystem::path& common, const Save& save);

} // namespace guard
