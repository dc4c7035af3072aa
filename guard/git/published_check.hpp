#pragma once
// DESIGN §4.2's published check for one tip at a time (published.hpp asks it of many).
#include "guard/git/history.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace guard {

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
    // Refs (full names) that the transaction being judged deletes or moves: none of them is
    // a candidate, nor is a guard.baseRef that may name one (DESIGN §0.7: a branch is
    // never published against itself).
    void exclude(std::set<std::string> refs) { m_excluded = std::move(refs); }
    // `git merge-tree --write-tree --stdin --name-only --no-messages` of `lines` ("<U> <tip>"
    // a line), run as merges_cleanly runs one merge; nullopt when it cannot be run.
    std::optional<RunResult> merge_all(const std::string& lines);

private:
    bool make_scratch();
    std::vector<std::string> merge_args() const;
    bool merges_cleanly(const std::string& tip, const std::string& u);
    bool may_name_excluded(const std::string& base) const;
    Git m_git;
    std::vector<std::string> m_bases;
    std::vector<std::string> m_remotes;  // refs/remotes/*, listed once
    std::map<std::string, std::string> m_upstreams; // branch -> its upstream, listed once
    std::set<std::string> m_excluded;
    std::string m_empty_tree;
    bool m_listed = false;
    std::filesystem::path m_scratch; // an attribute-free repository borrowing our objects
};

} // namespace guard
