#pragma once
// The ref of a save (saveref.cpp): what the engine's saves (snapshot.cpp) share with
// save_existing. The public names (stranded_ref_name, save_existing, …) are in snapshot.hpp.
#include "guard/git/git.hpp"
#include "guard/save/snapshot.hpp"

#include <filesystem>
#include <string>

namespace guard {

// A new ref `<prefix>/<name>/<stamp>` (or the first free `-N` variant, past a plain
// branch that blocks the name) at `commit`, created with "must not exist" semantics
// and every hook off. Returns its name; throws Error when none can be written.
std::string create_ref(const Git& git, const std::string& name, const std::string& commit,
                       const std::string& prefix);

// A new save ref `<prefix>/<name>/<stamp>` (create_ref), then the oldest saves of its kind
// beyond guard.keepBranches folded onto chains (fold_beyond_keep). Returns the ref.
// `saves_before`: SaveOptions::saves_of_kind.
std::string create_save(const Git& git, const std::string& name, const std::string& commit,
                        const std::string& prefix, std::optional<std::size_t> saves_before = {});

// `-c hook.<x>.enabled=false` for every hook git >= 2.54 may run from config.
std::vector<std::string> hooks_off(const Git& git);

// Only this proof licenses a destroyer: `s.ref`, read back by a separate git, holds
// `s.commit` and `s.tree`. Throws Error otherwise.
void verify(const Git& git, const Saved& s);

// verify, and `s.diffstat` (against the save's first parent) from the same git.
void verify_with_diffstat(const Git& git, Saved& s);

// A new save ref at the existing `commit`, read back; the caller journals it.
Saved point_at(const std::filesystem::path& git_dir, const std::string& name, const std::string& commit,
               const SaveOptions& options);

} // namespace guard
