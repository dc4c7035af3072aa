#pragma once

#include "guard/save/snapshot.hpp"

#include <string>
#include <string_view>

namespace guard {

// "2 modified, 1 untracked; 3 commit(s) on no other ref", or "nothing".
std::string summary(const Work& work);

// The inspect/compare/restore lines printed after a save.
std::string describe(const Saved& saved);

// DESIGN §8: what `work` holds, why saving failed (`why`), and pasteable
// commands to recover it or to discard it.
// `action` is what was refused: "remove", "save", "delete".
std::string refusal_message(const Work& work, const std::string& why,
                            std::string_view action = "remove");

// `text` quoted for a POSIX shell when it needs quoting.
std::string shell_quote(const std::string& text);

} // namespace guard
