#pragma once
// Saves are the bytes (DESIGN §4.1.1): git stages the working state (which paths changed,
// their modes, symlinks, deletions), then every regular file the save holds apart from the
// base gets its bytes on disk, hashed with no filter and no eol rule. Saving runs none of
// the repository's programs (DESIGN §15): no clean filter, no fsmonitor command, no hook.

#include "guard/git/git.hpp"
#include "guard/judge/work.hpp"

#include <optional>

#include <string>
#include <vector>

namespace guard {

// A file the save could not hold as its bytes, and why (named in the save's trailers and
// in the warning or refusal).
struct Unsaved {
    std::string path;
    std::string why;   // one word: "unreadable"
};

// `git` with none of the repository's programs reachable from staging (`add`, `status`,
// `update-index`): Git::quiet (guard/git/quiet.hpp).
Git quiet_git(const Git& git);

// `tree` is what the private index `staged` wrote (git staged it: write-tree). Every
// regular file of `tree` that differs from `base` (a tree-ish; empty: the empty tree) is
// hashed as the bytes of the file at its path under `staged.work_tree()`; where a blob
// differs from git's, the index takes the bytes and `tree` becomes its new tree. Paths whose
// file cannot be read are left as git staged them and returned.
std::vector<Unsaved> stage_raw(const Git& staged, const std::string& base, std::string& tree);

// How git stages a file here, from the repository's config (core.fileMode, core.autocrlf).
struct StageRules {
    bool trust_exec = true; // core.fileMode: the executable bit is a file's mode
    bool autocrlf = false;  // core.autocrlf is true or input: git rewrites line ends
};

// The working state staged from the inspection's own list, without `git add`: `staged` is a
// private index holding the checkout's index (its tree is `index_tree`); every path git's
// status lists (`work.changes`: changed on disk, new, or staged) goes in as the bytes of its
// file, or goes out when its file is gone; then its tree. Where no attribute and no
// core.autocrlf can reach the paths (asked of the files git reads), git's `update-index`
// stages them (its modes, its links); otherwise `hash-object -w --no-filters` and
// `update-index --index-info`, with the mode git gives them. Nothing when the list holds
// what only `add` stages as git would (a link under rules, a directory or gitlink, a
// conflict, a nested repository, a hidden edit, an excluded or kept ignored path, a file
// that cannot be read): the caller stages with `add` then.
std::optional<std::string> stage_listed(const Git& staged, const Work& work, const StageRules& rules,
                                        const std::string& index_tree);

// The tree git's `write-tree` writes from `git`'s index; throws Error naming `what`.
std::string write_tree(const Git& git, const std::string& what);

// The paths of the index `staged` reads whose blob the object store lacks (an entry made
// with a made-up id: `update-index --index-info` takes any). git's write-tree refuses them.
std::vector<std::string> missing_blob_entries(const Git& staged);

// `path` quoted for a git reading one path a line (--stdin-paths): C-style when it holds a
// quote, a backslash or a control character, as it is otherwise.
std::string quote_path_line(const std::string& path);

} // namespace guard
