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

// DESIGN §4.2: for some candidate U (the upstream of `branch`,
// refs/remotes/*/<branch>, refs/remotes/*/HEAD, guard.baseRef), `tip` is an
// ancestor of U or merging `tip` into U leaves U's tree unchanged. The merge
// runs where no attribute or merge driver can reach it. Errors read as "not
// published".
class PublishedCheck {
public:
    PublishedCheck(const std::filesystem::path& common, const Settings& settings);
    ~PublishedCheck();
    PublishedCheck(const PublishedCheck&) = delete;
    PublishedCheck& operator=(const PublishedCheck&) = delete;
    bool operator()(const std::string& tip, const std::string& branch);
    // Whether merging `tip` into `u` leaves `u`'s tree unchanged (a move's new value that
    // holds the old content: a rebase, an amend that only added to it).
    bool contained(const std::string& tip, const std::string& u) { return merges_cleanly(tip, u); }
    // The candidates U for a tip that came from `branch`, in the order operator() tries them.
    std::vector<std::string> candidates(const std::string& branch);
    // The remotes and upstreams candidates() would list, listed already (list_refs).
    void seed(RefListing listing);
    // `git merge-tree --write-tree --stdin --name-only --no-messages` of `lines` ("<U> <tip>"
    // a line), run as merges_cleanly runs one merge; nullopt when it cannot be run.
    std::optional<RunResult> merge_all(const std::string& lines);

private:
    bool make_scratch();
    std::vector<std::string> merge_args() const;
    bool merges_cleanly(const std::string& tip, const std::string& u);
    Git m_git;
    std::vector<std::string> m_bases;
    std::vector<std::string> m_remotes;  // refs/remotes/*, listed once
    std::map<std::string, std::string> m_upstreams; // branch -> its upstream, listed once
    std::string m_empty_tree;
    bool m_listed = false;
    std::filesystem::path m_scratch; // an attribute-free repository borrowing our objects
};

// C2: the hook's view of a ref transaction.
struct Deletion {
    std::string ref;       // refs/heads/x (or HEAD, detached)
    std::string old_oid;   // hex tip
    std::string new_value; // "" for a deletion; a move's new id, or `ref:<target>` (2.46+)
    bool present = false;  // git already said `old_oid`'s object exists (the hook read its type)
};
struct RefTransaction {
    std::vector<Deletion> deletions;         // the branch (and save) deletions to judge
    std::vector<std::string> other_deleted;  // every other ref the transaction deletes or moves
    std::vector<std::string> written;        // new values (hex) of refs it creates or updates
};
struct BranchVerdict {
    Deletion deletion;
    std::vector<std::string> commits;  // unique, unpublished commits; empty: nothing to save
    bool unchecked = false;            // the deadline passed before it was proven published
    std::string note;                  // e.g. the tip object is missing: nothing left to save
};

// One pass for the whole transaction (DESIGN §4.2): one rev-list walk for all
// tips against all other refs, then one published check per candidate base.
// Past `deadline`, every tip not yet proven published is returned with
// commits = {tip} and unchecked = true. Any error reads as "unpublished".
std::vector<BranchVerdict> judge_deletions(const std::filesystem::path& git_dir,
                                           const RefTransaction& transaction,
                                           const Settings& settings,
                                           std::chrono::steady_clock::time_point deadline);

} // namespace guard
