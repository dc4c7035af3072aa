#pragma once

#include "guard/git/git.hpp"
#include "guard/git/repo.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace guard {

// A ref that holds commits, as git lists it. Symbolic refs hold nothing and are
// never listed. `tree` is the git dir of the worktree a per-worktree ref
// (refs/worktree/*, refs/bisect/*, refs/rewritten/*, a detached HEAD) belongs
// to, "" for shared refs.
struct RefValue {
    std::string oid;
    std::string name;
    std::string tree;
};

// Whether `ref` keeps commits safe as the guard sees it: a branch, a save, a
// remote-tracking ref or a HEAD. Only these hold a commit when a deletion is judged
// (DESIGN §0.7): a tag, a note, a replace ref, the stash or another tree's own refs can go
// unjudged (`git tag -d`), so a commit they alone hold counts as at risk.
bool guards_commits(const RefValue& ref);

// Every ref of the repository at `common`, in every namespace, with each
// worktree's per-worktree refs and detached HEAD (read through that tree's own
// git dir, so the tree's directory need not exist). Throws Error when git
// cannot list them.
// With `listing`, the same walk also fills it for PublishedCheck::seed: one
// `for-each-ref` for the holders and the candidates both.
struct RefListing {
    std::vector<std::string> remotes;               // refs/remotes/*, symbolic ones too
    std::map<std::string, std::string> upstreams;   // branch -> its upstream
};
std::vector<RefValue> list_refs(const std::filesystem::path& common,
                                const std::vector<Worktree>& trees, RefListing* listing = nullptr);

// The commits reachable from each of `tips` and from none of `hide`, in one
// `rev-list` walk (git resolves shallow clones, grafts and replacements). A tip
// that some holder reaches maps to nothing. Throws Error when git cannot walk.
std::map<std::string, std::vector<std::string>>
unique_commits(const Git& git, const std::vector<std::string>& tips,
               const std::vector<std::string>& hide);

} // namespace guard
