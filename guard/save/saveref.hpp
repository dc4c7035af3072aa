#pragma once
// The ref of a save (saveref.cpp): its name, its creation, and the saves of commits that
// exist already (save_existing, the hook's batch); what the engine's saves (snapshot.cpp)
// share with them.
#include "guard/git/git.hpp"
#include "guard/save/read_back.hpp"
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

// A new save ref at the existing `commit`, read back; the caller journals it.
Saved point_at(const std::filesystem::path& git_dir, const std::string& name, const std::string& commit,
               const SaveOptions& options);

// --- names ---------------------------------------------------------------------------

// One ref name component made valid by git check-ref-format's rules
// (invalid characters become '-').
std::string ref_component(std::string component);

// `<prefix>/<name>/<stamp>`: each component made valid for a ref, stamped with
// the UTC time to the millisecond (or $GIT_GUARD_STAMP, for tests).
std::string stranded_ref_name(const std::string& name, const std::string& prefix = "refs/heads/stranded");

// The short name a user types for `ref`: without refs/heads/ (refs/stranded/… stays whole).
std::string short_ref(const std::string& ref);

// --- saves of existing commits ----------------------------------------------------------

// Points a new save ref `<ref_prefix>/<name>/<stamp>` at the existing commit
// `commit` (hex), verified; no commit is made. Works in every repository
// format git supports.
Saved save_existing(const std::filesystem::path& git_dir, const std::string& name,
                    const std::string& commit, const SaveOptions& options);

// save_existing for many tips at once (the hook's `branch -D` of hundreds of branches):
// one transaction creates every ref, one `for-each-ref` reads them all back (and counts
// the saves, so the fold lists nothing unless one is due).
// Tips: a name, a commit and its tree when git has said it already ("": the read-back
// reads it from the save itself, and fills the returned save's `tree`). Nothing, and nothing written, when the batch cannot be written as
// one (a taken or blocked name, an unreadable commit): then save each with save_existing.
// Throws Error when the refs were written but do not read back.
struct NamedTip {
    std::string name;
    std::string commit;
    std::string tree;
    std::string branch; // the deleted branch it restores as ("": as the reason says)
};
std::optional<std::vector<Saved>> save_existing_batch(const std::filesystem::path& git_dir,
                                                      const std::vector<NamedTip>& tips, const SaveOptions& options);

} // namespace guard
