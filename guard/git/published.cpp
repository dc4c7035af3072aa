// Published, for many tips: one walk per candidate, one merge-tree for the rest.
#include "guard/git/published.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace guard {

namespace {

struct Base {
    std::string commit;
    std::string tree;
    std::vector<size_t> tips; // indexes into the caller's tips
    std::map<size_t, std::string> merge_base; // tip -> its one parent, when the base reaches it
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
// base, does not reach (git's own reachability, one rev-list for all of them). Of the
// others, a tip whose one parent the base reaches has that parent as their merge base:
// kept in `base.merge_base` for unpublished_by_diff.
void ancestors(const Git& git, Base& base, const std::vector<TipOf>& tips, std::vector<bool>& out)
{
    std::string input = "^" + base.commit + "\n";
    for (size_t i : base.tips)
        input += tips[i].first + "\n";
    RunResult r = git.run({"rev-list", "--parents", "--stdin"}, input);
    if (r.status != 0) {
        for (size_t i : base.tips) // a tip git cannot walk: ask it alone
            if (git.run({"merge-base", "--is-ancestor", tips[i].first, base.commit}).status == 0)
                out[i] = true;
        return;
    }
    std::map<std::string, std::string> parents; // each commit the base does not reach -> its parents
    for (const auto& line : split(r.out, '\n'))
        parents[line.substr(0, line.find(' '))] = line.find(' ') == std::string::npos ? "" : line.substr(line.find(' ') + 1);
    for (size_t i : base.tips) {
        auto it = parents.find(tips[i].first);
        if (it == parents.end())
            out[i] = true;
        else if (is_oid(it->second) && !parents.count(it->second))
            base.merge_base[i] = it->second;
    }
}

// diff-tree of each tip against its first parent: the changed paths. A merge or a root
// commit prints nothing.
const std::vector<std::string> k_diff_tree = {"diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--stdin"};

// Many tips (drop --published at 20,000 saves): their diffs are started before the walks,
// so the two gits run side by side; only those of a tip whose one parent the base reaches
// are read. A few tips: nothing started (a published tip needs no diff, and each git is
// one more process of an ordinary `branch -D`).
std::optional<Git::Job> start_diffs(const Git& git, const std::vector<TipOf>& tips)
{
    constexpr size_t k_many = 64;
    if (tips.size() < k_many)
        return std::nullopt;
    std::string input;
    std::set<std::string> asked;
    for (const auto& tip : tips)
        if (asked.insert(tip.first).second)
            input += tip.first + "\n";
    return git.start(k_diff_tree, input);
}

// Of `pairs`, removes those an exact test proves unpublished, before any merge: the tip's
// one commit of its own changes a path its merge base P (its parent) and the base hold
// alike, so the merge takes the tip's side there and cannot leave the base's tree as it is.
// Two gits for all of them (diff-tree, or the diffs start_diffs started; cat-file); a pair
// the test cannot settle stays.
void unpublished_by_diff(const Git& git, const std::vector<TipOf>& tips, std::optional<Git::Job>& diffs,
                         std::vector<std::pair<const Base*, size_t>>& pairs)
{
    auto tested = [](const std::pair<const Base*, size_t>& p) { return p.first->merge_base.count(p.second) > 0; };
    RunResult d;
    if (diffs) {
        d = diffs->wait();
    } else {
        std::string input;
        std::set<std::string> asked;
        for (const auto& [base, i] : pairs)
            if (tested({base, i}) && asked.insert(tips[i].first).second)
                input += tips[i].first + "\n";
        if (!asked.empty())
            d = git.run(k_diff_tree, input);
    }
    if (d.status != 0 || std::none_of(pairs.begin(), pairs.end(), tested))
        return;
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> changed; // tip -> (P's blob, path)
    auto fields = split(d.out);
    std::string tip;
    for (size_t at = 0; at < fields.size(); ++at) {
        if (!fields[at].starts_with(":")) {
            tip = fields[at];
        } else if (at + 1 < fields.size()) { // ":<mode> <mode> <P's id> <tip's id> <status>", then the path
            // A change of mode alone (same blob) proves nothing here: the check reads no modes.
            auto words = split(fields[at], ' ');
            if (words.size() >= 4 && words[2] != words[3] && fields[at + 1].find('\n') == std::string::npos)
                changed[tip].emplace_back(words[2], fields[at + 1]);
            ++at;
        }
    }
    // Each (base, path) asked once: thousands of saves of one tree change the same few paths.
    std::string lookups;
    std::map<std::string, size_t> asked_at; // "<base>:<path>" -> its line in git's answer
    std::vector<std::tuple<size_t, std::string, size_t>> lines; // pair index, P's blob at the path, answer line
    for (size_t k = 0; k < pairs.size(); ++k)
        if (auto it = changed.find(tips[pairs[k].second].first); tested(pairs[k]) && it != changed.end())
            for (const auto& [blob, path] : it->second) {
                std::string lookup = pairs[k].first->commit + ":" + path;
                auto [at, fresh] = asked_at.try_emplace(lookup, asked_at.size());
                if (fresh)
                    lookups += lookup + "\n";
                lines.emplace_back(k, blob, at->second);
            }
    if (lines.empty())
        return;
    RunResult c = git.run({"cat-file", "--batch-check=%(objectname)"}, lookups);
    auto found = split(c.out, '\n');
    if (c.status != 0 || found.size() != asked_at.size())
        return;
    std::set<size_t> proven;
    for (const auto& [k, blob, answer] : lines) {
        // The base's entry there, or none (a tip's new path the base lacks as P did).
        std::string base_blob = is_oid(found[answer]) ? found[answer] : std::string(blob.size(), '0');
        if (base_blob == blob)
            proven.insert(k);
    }
    std::vector<std::pair<const Base*, size_t>> open;
    for (size_t k = 0; k < pairs.size(); ++k)
        if (!proven.count(k))
            open.push_back(pairs[k]);
    spdlog::debug("published check: {} of {} merge(s) settled by their diff", pairs.size() - open.size(), pairs.size());
    pairs = std::move(open);
}

// Of the pairs (base, tip), the tips whose merge into the base leaves its tree unchanged,
// in one merge-tree; when that cannot run whole, each pair alone.
void merged(PublishedCheck& check, const std::vector<TipOf>& tips, const std::vector<std::pair<const Base*, size_t>>& pairs,
            std::vector<bool>& out)
{
    if (pairs.empty())
        return;
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
    std::optional<Git::Job> diffs = start_diffs(git, tips);
    std::vector<bool> out(tips.size(), false);
    // One walk per base commit: origin/HEAD and origin/main are often one commit.
    std::map<std::string, Base*> walked;
    for (auto& [u, base] : bases) {
        auto [it, first] = walked.try_emplace(base.commit, &base);
        if (first) {
            ancestors(git, base, tips, out);
            continue;
        }
        Base& same = *it->second; // its answers for the tips both were asked about, the rest walked
        std::set<size_t> known(same.tips.begin(), same.tips.end());
        Base rest{base.commit, base.tree, {}, {}};
        for (size_t i : base.tips) {
            if (!known.count(i))
                rest.tips.push_back(i);
            else if (auto p = same.merge_base.find(i); p != same.merge_base.end())
                base.merge_base[i] = p->second;
        }
        if (!rest.tips.empty()) {
            ancestors(git, rest, tips, out);
            base.merge_base.insert(rest.merge_base.begin(), rest.merge_base.end());
        }
    }
    // One merge per (base commit, tip): origin/HEAD and origin/main are often one commit.
    std::map<std::pair<std::string, std::string>, std::pair<const Base*, size_t>> unique;
    for (const auto& [u, base] : bases)
        for (size_t i : base.tips)
            if (!out[i])
                unique.try_emplace({base.commit, tips[i].first}, &base, i);
    std::vector<std::pair<const Base*, size_t>> pairs;
    for (const auto& [key, pair] : unique)
        pairs.push_back(pair);
    unpublished_by_diff(git, tips, diffs, pairs);
    merged(check, tips, pairs, out);
    for (const auto& [u, base] : bases) // the same merge answers for the same tip of another save
        for (size_t i : base.tips)
            if (auto it = unique.find({base.commit, tips[i].first}); !out[i] && it != unique.end())
                out[i] = out[it->second.second];
    return out;
}

} // namespace guard
