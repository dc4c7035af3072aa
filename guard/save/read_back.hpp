#pragma once
// The read-back of a save (read_back.cpp): three readers, none of them the writer.
#include "guard/git/git.hpp"
#include "guard/save/snapshot.hpp"

#include <cstddef>
#include <vector>

namespace guard {

// Only this proof licenses a destroyer: `s.ref`, read back from the ref store (by libgit2's
// own handle where the run has libgit2 up, else by git), holds `s.commit` and `s.tree`.
// Throws Error otherwise.
void verify(const Git& git, const Saved& s);

// verify, and `s.diffstat` (against the save's first parent) from the same git.
void verify_with_diffstat(const Git& git, Saved& s);

// Every save ref, read back in one `for-each-ref` (each ref and its commit's tree, from the
// stores): each of `saves` must hold what was built, else Error. A save of an existing
// commit whose tree nobody read yet (`tree` "") must hold that commit, and a tree read
// from it then fills `tree`. Returns the larger of the branch and in-place save counts
// now (chains left out, as fold.cpp counts them), so the fold needs no listing of its own.
std::size_t read_back_all(const Git& git, std::vector<Saved>& saves);

} // namespace guard
