// Published, for many tips: one walk per candidate, one merge-tree for the rest.
#include "guard/git/published.hpp"

#include <spdlog/spdlog.h>

#include <map>
#include <set>

namespace guard {

namespace {

struct Base {
    std::string commit;
    std::string tree;
    std::vector<size_t> tips; // indexes into the caller's tips
};

// Each candidate of some tip with its commit and tree, in one cat-file; a candidate that
// does not resolve to a commit is left out (it proves nothing).
std::map<std::string, Base> bases_of(PublishedCheck& check, const Git& git, const std::vector<TipOf>& tips)
{
    std::map<std::string, Base> bases;
    for (size_t i = 0; i < tips.size(); ++i)
        for (const auto& u : check.candidates(tips[i].second))
            bases[u].tips.push_back(i);
    std::string input;
    for (const auto& [u, base] : bases)
        input += u + "^{commit}\n" + u + "^{tree}\n";
    auto lines = split(git.run({"cat-file", "--batch-check=%(objectname) %(objecttype)"}, input).out, '\n');
    auto line = lines.begin();
    for (auto it = bases.begin(); it != bases.end();) {
        std::string commit = line != lines.end() ? *line++ : "", tree = line != lines.end() ? *line++ : "";
        if (!commit.ends_with(" commit") || !tree.ends_with(" tree")) {
            it = bases.erase(it);
            continue;
        }
        it->second.commit = commit.substr(0, commit.find(' '));
        it->second.tree = tree.substr(0, tree.find(' '));
        ++it;
    }
    return bases;
}

// The tips of `base` that are ancestors of it: those the walk from the tips, hiding the
// base, does not reach (git's own reachability, one rev-list for all of them).
void ancestors(const Git& git, const Base& base, const std::vector<TipOf>& tips, std::vector<bool>& out)
{
    std::string input = "^" + base.commit + "\n";
    for (size_t i : base.tips)
        input += tips[i].first + "\n";
    RunResult r = git.run({"rev-list", "--stdin"}, input);
    if (r.status != 0) {
        for (size_t i : base.tips) // a tip git cannot walk: ask it alone
            if (git.run({"merge-base", "--is-ancestor", tips[i].first, base.commit}).status == 0)
                out[i] = true;
        return;
    }
    auto listed = split(r.out, '\n');
    std::set<std::string> unreached(listed.begin(), listed.end());
    for (size_t i : base.tips)
        if (!unreached.count(tips[i].first))
            out[i] = true;
}

// Of the pairs (base, tip), the tips whose merge into the base leaves its tree unchanged,
// in one merge-tree; when that cannot run whole, each pair alone.
void merged(PublishedCheck& check, const std::vector<TipOf>& tips, const std::vector<std::pair<const Base*, size_t>>& pairs,
            std::vector<bool>& out)
{
    std::string lines;
    for (const auto& [base, i] : pairs)
        lines += base->commit + " " + tips[i].first + "\n";
    auto r = pairs.empty() ? std::nullopt : check.merge_all(lines);
    if (r && r->status == 0) {
        // Each merge: status, tree, the conflicted paths (never empty), then an empty field.
        auto fields = split(r->out, '\0');
        size_t at = 0;
        for (const auto& [base, i] : pairs) {
            if (at + 1 >= fields.size())
                return;
            if (fields[at] == "1" && fields[at + 1] == base->tree)
                out[i] = true;
            for (at += 2; at < fields.size() && !fields[at].empty(); ++at) {
            }
            ++at;
        }
        return;
    }
    spdlog::debug("merge-tree --stdin cannot run the {} merges together: one by one", pairs.size());
    for (const auto& [base, i] : pairs)
        if (!out[i] && check.contained(tips[i].first, base->commit))
            out[i] = true;
}

} // namespace

std::vector<bool> published_tips(PublishedCheck& check, const Git& git, const std::vector<TipOf>& tips)
{
    auto bases = bases_of(check, git, tips);
    std::vector<bool> out(tips.size(), false);
    for (const auto& [u, base] : bases)
        ancestors(git, base, tips, out);
    // One merge per (base commit, tip): origin/HEAD and origin/main are often one commit.
    std::map<std::pair<std::string, std::string>, std::pair<const Base*, size_t>> unique;
    for (const auto& [u, base] : bases)
        for (size_t i : base.tips)
            if (!out[i])
                unique.try_emplace({base.commit, tips[i].first}, &base, i);
    std::vector<std::pair<const Base*, size_t>> pairs;
    for (const auto& [key, pair] : unique)
        pairs.push_back(pair);
    merged(check, tips, pairs, out);
    for (const auto& [u, base] : bases) // the same merge answers for the same tip of another save
        for (size_t i : base.tips)
            if (auto it = unique.find({base.commit, tips[i].first}); !out[i] && it != unique.end())
                out[i] = out[it->second.second];
    return out;
}

} // namespace guard
