#pragma once

#include "guard/save/snapshot.hpp"

#include <string>
#include <string_view>

namespace guard {

// "2 modified, 1 untracked; 3 commit(s) on no other ref", or "nothing".
std::string summary(const Work& work);

// The command that puts the save `ref` back: `git guard restore <ref>`, with --in-place for
// an in-place save (refs/stranded/: it goes back into the tree it came from).
std::string restore_command(const std::string& ref);

// "put back: git guard restore <ref>; show: git guard show <ref>", for the one line a save
// adds to git's own output.
std::string restore_hint(const std::string& ref);

// Whether each item of a bulk operation gets a line of its own: a few do; more only
// with GIT_GUARD_VERBOSE set (`git guard -v` sets it), the journal having every one.
inline constexpr size_t k_bulk_lines = 5;
bool each_item_reported(size_t count);

// The one line for `count` saves of `what` ("branches") one operation made since `since`
// (UTC, ISO 8601 to the second): how to put them all back and how to list them.
std::string bulk_summary(size_t count, const std::string& what, const std::string& since);

// The put-back/show/inspect/compare lines printed after a save.
std::string describe(const Saved& saved);

// What `work` holds, why saving failed (`why`), and pasteable
// commands to recover it or to discard it.
// `action` is what was refused: "remove", "save", "delete".
std::string refusal_message(const Work& work, const std::string& why,
                            std::string_view action = "remove");

// `text` quoted for a POSIX shell when it needs quoting.
std::string shell_quote(const std::string& text);

} // namespace guard
