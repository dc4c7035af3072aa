#pragma once

#include <string>

namespace guard {

// Whether the exec-path mirror that lets git's own children reach the shim (DESIGN §6,
// docs/decisions.md "The shim") is in place for the real git: every entry of git's exec
// path mirrored, its `git` the shim, and `git --exec-path` through it printing git's
// own. `why` says what is wrong when it is not. For `git guard doctor`. The shim is
// looked for next to this binary, then in ../libexec/git-guard/. A missing mirror is
// made (that is what the shim does on its next call); a damaged one is reported: delete
// it and the shim rebuilds it.
bool exec_path_intact(std::string& why);

} // namespace guard
