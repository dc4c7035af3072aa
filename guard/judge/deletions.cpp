// The hook's judgement of a ref transaction (DESIGN §4.2): which deleted or moved tips hold
// commits no other ref holds and no candidate has published, in one walk for them all.
#include "guard/judge/deletions.hpp"

#include "guard/git/published.hpp"

#include <spdlog/spdlog.h>

#include <set>

namespace fs = std::filesystem;

namespace guard {

namespace {

// "oid commit" per present tip; a missing tip has nothing left to save.
std::set<std::string> missing_objects(const Git& git, const std::vector<BranchVerdict>& verdicts)
{
    std::string input;
    for (const auto& v : verdicts)
        if (!v.deletion.present)
            input += v.deletion.old_oid + "\n";
    std::set<std::string> missing;
    if (input.empty())
        return missing; // git named every tip's type already: all present
    RunResult r = git.run({"cat-file", "--batch-check=%(objectname) %(objecttype)"}, input);
    if (r.status != 0)
        return missing; // cannot tell: judge them all
    for (const auto& line : split(r.out, '\n'))
        if (line.ends_with(" missing"))
            missing.insert(line.substr(0, line.find(' ')));
    return missing;
}

// Notes each verdict whose tip is `missing` (nothing left to save) and returns the other tips.
std::vector<std::string> drop_missing(std::vector<BranchVerdict>& verdicts, const std::set<std::string>& missing)
{
    std::vector<std::string> tips;
    for (auto& v : verdicts) {
        if (missing.count(v.deletion.old_oid)) {
            v.commits.clear();
            v.note = "the tip " + v.deletion.old_oid + " of " + v.deletion.ref +
                     " is missing from the object store: nothing is left to save";
        } else if (is_oid(v.deletion.old_oid) && !v.commits.empty()) {
            tips.push_back(v.deletion.old_oid);
        }
    }
    return tips;
}

std::vector<std::string> holders(const std::vector<RefValue>& refs, const RefTransaction& tx,
                                 const std::string& own_tree)
{
    std::set<std::string> deleted(tx.other_deleted.begin(), tx.other_deleted.end());
    for (const auto& d : tx.deletions)
        deleted.insert(d.ref);
    std::vector<std::string> hide;
    for (const auto& ref : refs) {
        bool mine = ref.tree.empty() || absolute_path(ref.tree).string() == own_tree;
        if (guards_commits(ref) && !(mine && deleted.count(ref.name)))
            hide.push_back(ref.oid);
    }
    for (const auto& w : tx.written)
        if (is_oid(w))
            hide.push_back(w);
    return hide;
}

} // namespace

std::optional<SeenRefs> see_refs(const fs::path& common)
{
    try {
        SeenRefs seen;
        seen.refs = list_refs(common, list_worktrees(common), &seen.listing);
        for (const auto& r : seen.refs)
            if (r.tree.empty())
                seen.shared.emplace(r.name, r.oid);
        return seen;
    } catch (const Error& e) {
        spdlog::warn("cannot list the refs: {}", e.what());
        return std::nullopt;
    }
}

std::string seen_value(const SeenRefs& seen, const std::string& ref, const fs::path& git_dir)
{
    if (!ref.starts_with("refs/"))
        return ""; // HEAD: its tree's listing names it only when detached
    if (auto it = seen.shared.find(ref); it != seen.shared.end())
        return it->second;
    std::string own = absolute_path(git_dir).string();
    for (const auto& r : seen.refs) // a tree's own refs (refs/worktree/, refs/bisect/): few
        if (!r.tree.empty() && r.name == ref && absolute_path(r.tree).string() == own)
            return r.oid;
    return "";
}

std::vector<BranchVerdict> judge_deletions(const fs::path& git_dir, const RefTransaction& tx,
                                           const Settings& settings,
                                           std::chrono::steady_clock::time_point deadline,
                                           std::optional<SeenRefs> seen)
{
    fs::path common = common_of(git_dir);
    Git git(common);
    if (!seen)
        seen = see_refs(common);
    std::vector<BranchVerdict> verdicts;
    // Listed at its old value: present, unless the walk finds it missing (for-each-ref
    // lists a ref whose object is gone). The others are asked of one cat-file now.
    std::set<std::string> presumed;
    for (const auto& d : tx.deletions) {
        verdicts.push_back({d, {d.old_oid}, false, ""});
        if (seen && !d.present && is_oid(d.old_oid) && seen_value(*seen, d.ref, git_dir) == d.old_oid)
            verdicts.back().deletion.present = true, presumed.insert(d.old_oid);
    }
    std::vector<std::string> tips = drop_missing(verdicts, missing_objects(git, verdicts));
    bool listed = seen.has_value();
    if (!listed) // Fail closed: refs git cannot list prove nothing published.
        spdlog::warn("cannot walk the deleted branches, saving them all: the refs could not be listed");
    auto walk = [&] {
        auto unique = unique_commits(git, tips, holders(seen->refs, tx, absolute_path(git_dir).string()));
        for (auto& v : verdicts)
            if (!v.commits.empty())
                v.commits = unique[v.deletion.old_oid];
    };
    try {
        if (listed) {
            try {
                walk();
            } catch (const Error&) {
                if (presumed.empty())
                    throw;
                // A listed tip may be gone: ask which, and walk once more without them.
                for (auto& v : verdicts)
                    v.deletion.present = v.deletion.present && !presumed.count(v.deletion.old_oid);
                tips = drop_missing(verdicts, missing_objects(git, verdicts));
                walk();
            }
        }
    } catch (const Error& e) {
        // Fail closed: a walk that cannot finish proves nothing published.
        spdlog::warn("cannot walk the deleted branches, saving them all: {}", e.what());
    }
    PublishedCheck published(common, settings);
    if (listed)
        published.seed(std::move(seen->listing));
    std::set<std::string> changing(tx.other_deleted.begin(), tx.other_deleted.end());
    for (const auto& d : tx.deletions)
        changing.insert(d.ref);
    published.exclude(std::move(changing));
    // One check for the whole transaction (issue 35 item 2): one walk per upstream for
    // every tip, and the squash test for all the rest in one merge-tree where git has
    // `--stdin` (2.42+; older git merges pair by pair). Its answer is operator()'s for
    // each tip; a forced move's new value is still asked whether it holds the old content.
    std::set<const BranchVerdict*> answered;
    std::vector<TipOf> asked;
    std::vector<BranchVerdict*> asking;
    for (auto& v : verdicts)
        if (!v.commits.empty()) {
            asked.emplace_back(v.deletion.old_oid,
                               v.deletion.ref.starts_with("refs/heads/") ? v.deletion.ref.substr(11) : "");
            asking.push_back(&v);
        }
    try {
        auto answers = asked.size() > 1 ? published_tips(published, git, asked) : std::vector<bool>{};
        for (size_t i = 0; i < answers.size(); ++i) {
            answered.insert(asking[i]);
            if (answers[i])
                asking[i]->commits.clear();
        }
    } catch (const Error& e) {
        spdlog::warn("cannot check the deleted branches together, one by one: {}", e.what());
    }
    for (auto& v : verdicts) {
        if (v.commits.empty())
            continue;
        if (std::chrono::steady_clock::now() > deadline) {
            v.commits = {v.deletion.old_oid};
            v.unchecked = true;
            continue;
        }
        std::string branch = v.deletion.ref.starts_with("refs/heads/") ? v.deletion.ref.substr(11) : "";
        const std::string& moved_to = v.deletion.new_value;
        if ((!answered.count(&v) && published(v.deletion.old_oid, branch)) ||
            (is_oid(moved_to) && published.contained(v.deletion.old_oid, moved_to)))
            v.commits.clear();
    }
    return verdicts;
}

} // namespace guard
