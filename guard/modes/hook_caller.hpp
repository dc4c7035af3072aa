#pragma once

// The git process that runs the reference-transaction hook (our parent, or the static
// front end's parent when it forked us): what it is doing and what it already had judged.

#include "guard/judge/deletions.hpp"

#include <filesystem>
#include <string>

namespace guard {

// Whether the deletion of `ref` at `tip` is the old name's half of a `git branch -m`:
// git parks the old name's reflog at <common>/logs/refs/.tmp-renamed-log meanwhile;
// without a reflog, git's command line says it. The deletion of the new name itself
// (`-M` over an existing branch) is no rename.
bool is_rename(const std::filesystem::path& common, const std::string& ref, const std::string& tip);

// Records in <common>/guard/hook-judged, with git's pid and start time, the deletions of
// `tx` judged, for the front end's already_judged (front/hook.c): git 2.39 runs the hook
// again for each loose ref of a branch -D. A killed run leaves at most a stray temporary.
void record_judged(const std::filesystem::path& common, const RefTransaction& tx);

// The identity (process_identity) of the git that runs this hook; "" when unreadable.
std::string git_identity();

} // namespace guard
