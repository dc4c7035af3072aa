#pragma once

// The one JSON vocabulary of DESIGN §10 for saves, restores and journal records: `ref` is a
// save's full ref everywhere, `commit` its commit, `path` an absolute tree path, `branch` a
// short branch name, `reason` the operation, `time` UTC ISO 8601; absent values are null.

#include "guard/save/contents.hpp"
#include "guard/save/journal.hpp"
#include "guard/save/restore.hpp"
#include "guard/save/stranded.hpp"

#include <string>

namespace guard {

class JsonObject;

// ref, commit, path, branch, reason, time, kind, layout, summary, in_place, backed_up.
JsonObject save_json(const Save& save);

// save_json plus head, index, changes [{path, kind}], commits, nested [{path, commit, head, branch}].
JsonObject show_json(const Save& save, const SaveLayout& layout, const SaveContents& contents);

// ref, commit, kind ("worktree" or "branch"), path, branch, head, detached, notes.
JsonObject restored_json(const Restored& restored);

// One line of `git guard list`: ref, commit, time, source, reason, [not backed up].
std::string save_line(const Save& save);

// One line of `git guard log`.
std::string journal_line(const JournalEntry& entry);

// The human lines of `git guard show`.
std::string show_text(const Save& save, const SaveLayout& layout, const SaveContents& contents);

} // namespace guard
