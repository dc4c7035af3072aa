// What a ref transaction's branch deletions would lose, asked of git in one pass
// (DESIGN §0, §4.2), and the save of an existing commit. The hook's engine.
#include "guard/deletion.hpp"

#include "guard/error.hpp"
#include "guard/process.hpp"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <csignal>
#include <map>
#include <poll.h>
#include <set>
#include <sstream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace guard {

namespace {

struct RefInfo {
    std::string oid, type, tree, upstream;
};

// Every ref as git lists it (the current worktree's view), in one call.
std::map<std::string, RefInfo> list_refs(const fs::path& git_dir, Clock::time_point deadline)
{
    auto r = run_git_bounded(git_dir,
                             {"for-each-ref", "--format=%(objectname) %(objecttype) %(tree) "
                                              "%(upstream) %(refname)"},
                             "", deadline);
    if (!r || r->status != 0)
        throw Error(r ? "git for-each-ref failed" : "git for-each-ref ran past guard.hookTimeout");
    std::map<std::string, RefInfo> refs;
    std::istringstream lines(r->out);
    std::string line;
    while (std::getline(lines, line)) {
        // The upstream and tree fields may be empty: split on single spaces.
        std::vector<std::string> f;
        size_t at = 0;
        for (int i = 0; i < 4; ++i) {
            size_t space = line.find(' ', at);
            if (space == std::string::npos)
                break;
            f.push_back(line.substr(at, space - at));
            at = space + 1;
        }
        if (f.size() == 4)
            refs[line.substr(at)] = {f[0], f[1], f[2], f[3]};
    }
    return refs;
}

// Detached HEADs of every worktree hold commits; a HEAD on a branch holds nothing of
// its own once the branch goes.
std::vector<std::string> detached_heads(const fs::path& git_dir, Clock::time_point deadline)
{
    auto r = run_git_bounded(git_dir, {"worktree", "list", "--porcelain"}, "", deadline);
    std::vector<std::string> heads;
    if (!r || r->status != 0)
        return heads;
    std::istringstream lines(r->out);
    std::string line, head;
    while (std::getline(lines, line)) {
        if (line.starts_with("HEAD "))
            head = line.substr(5);
        else if (line == "detached" && !head.empty())
            heads.push_back(head);
    }
    return heads;
}

// Commit -> parents, for every commit the tips reach and no holder does.
using Graph = std::map<std::string, std::vector<std::string>>;

std::vector<std::string> reach(const Graph& graph, const std::string& tip)
{
    std::vector<std::string> found, stack{tip};
    std::set<std::string> seen;
    while (!stack.empty()) {
        std::string c = stack.back();
        stack.pop_back();
        auto it = graph.find(c);
        if (it == graph.end() || !seen.insert(c).second)
            continue;
        found.push_back(c);
        stack.insert(stack.end(), it->second.begin(), it->second.end());
    }
    return found;
}

// Refs whose content counts as published for `branch` (DESIGN §4.2).
std::vector<std::string> candidates(const std::map<std::string, RefInfo>& refs, const std::string& ref,
                                    const Settings& settings)
{
    std::vector<std::string> picked;
    std::string branch = ref.starts_with("refs/heads/") ? ref.substr(11) : "";
    if (auto it = refs.find(ref); it != refs.end() && !it->second.upstream.empty())
        picked.push_back(it->second.upstream);
    for (const auto& [name, info] : refs) {
        if (!name.starts_with("refs/remotes/"))
            continue;
        auto slash = name.find('/', 13);
        auto tail = slash == std::string::npos ? "" : name.substr(slash + 1);
        if (tail == "HEAD" || (!branch.empty() && tail == branch))
            picked.push_back(name);
    }
    picked.insert(picked.end(), settings.base_refs.begin(), settings.base_refs.end());
    return picked;
}

// Merging `tip` into `base` leaves base's tree unchanged: git's own merge says so.
bool merges_clean(const fs::path& git_dir, const std::string& base, const std::string& base_tree,
                  const std::string& tip, Clock::time_point deadline, bool& late)
{
    auto r = run_git_bounded(git_dir,
                             {"-c", "core.attributesFile=/dev/null", "-c", "merge.renormalize=false",
                              "merge-tree", "--write-tree", base, tip},
                             "", deadline);
    late = late || !r;
    return r && r->status == 0 && r->out.substr(0, r->out.find('\n')) == base_tree;
}

// The tree of `base`'s commit: from the ref list, else asked of git ("" when none).
std::string tree_of(const fs::path& git_dir, const std::map<std::string, RefInfo>& refs,
                    const std::string& base, Clock::time_point deadline)
{
    if (auto it = refs.find(base); it != refs.end())
        return it->second.tree;
    auto r = run_git_bounded(git_dir, {"rev-parse", "--verify", "-q", base + "^{commit}^{tree}"}, "", deadline);
    return r && r->status == 0 ? r->out.substr(0, r->out.find('\n')) : "";
}

struct MergePair {
    size_t verdict;
    std::string base, base_tree;
};

// All merge tests in one `merge-tree --stdin` (git >= 2.40). Each answer is
// "<status>\0<tree>\0", the conflicted paths (--name-only), and an empty item.
// Returns nothing when this git cannot, or the answer does not parse.
std::optional<std::vector<bool>> merge_batch(const fs::path& git_dir, const std::vector<MergePair>& pairs,
                                             const std::vector<BranchVerdict>& verdicts,
                                             Clock::time_point deadline, bool& late)
{
    std::string input;
    for (const auto& p : pairs)
        input += p.base + " " + verdicts[p.verdict].deletion.old_oid + "\n";
    auto r = run_git_bounded(git_dir,
                             {"-c", "core.attributesFile=/dev/null", "-c", "merge.renormalize=false",
                              "merge-tree", "--write-tree", "--no-messages", "--name-only", "--stdin"},
                             input, deadline);
    late = late || !r;
    if (!r || r->status != 0)
        return std::nullopt;
    std::vector<std::string> items;
    for (size_t at = 0; at < r->out.size();) {
        size_t end = r->out.find('\0', at);
        if (end == std::string::npos)
            return std::nullopt;
        items.push_back(r->out.substr(at, end - at));
        at = end + 1;
    }
    std::vector<bool> clean;
    for (size_t i = 0; i < items.size();) {
        if (i + 1 >= items.size())
            return std::nullopt;
        clean.push_back(items[i] == "1" && clean.size() < pairs.size() && items[i + 1] == pairs[clean.size()].base_tree);
        for (i += 2; i < items.size() && !items[i].empty(); ++i) {
        }
        ++i; // the empty item ending this answer
    }
    if (clean.size() != pairs.size())
        return std::nullopt;
    return clean;
}

// Which verdicts some candidate base publishes (DESIGN §4.2). One batch where git can,
// else one merge-tree per pair; `late` once the deadline cut the tests short.
std::vector<bool> merge_tests(const fs::path& git_dir, const std::vector<BranchVerdict>& verdicts,
                              const std::vector<MergePair>& pairs, Clock::time_point deadline, bool& late)
{
    std::vector<bool> published(verdicts.size(), false);
    if (pairs.empty())
        return published;
    if (auto batch = merge_batch(git_dir, pairs, verdicts, deadline, late)) {
        for (size_t k = 0; k < pairs.size(); ++k)
            published[pairs[k].verdict] = published[pairs[k].verdict] || (*batch)[k];
        return published;
    }
    for (const auto& p : pairs)
        if (!late && !published[p.verdict])
            published[p.verdict] = merges_clean(git_dir, p.base, p.base_tree, verdicts[p.verdict].deletion.old_oid,
                                                deadline, late);
    return published;
}

} // namespace

std::vector<BranchVerdict> judge_deletions(const fs::path& git_dir, const RefTransaction& tx,
                                           const Settings& settings, Clock::time_point deadline)
{
    std::vector<BranchVerdict> verdicts;
    for (const auto& d : tx.deletions)
        verdicts.push_back({d, {d.old_oid}, true});
    try {
        auto refs = list_refs(git_dir, deadline);
        std::set<std::string> gone(tx.other_deleted.begin(), tx.other_deleted.end());
        std::string input;
        for (const auto& d : tx.deletions) {
            gone.insert(d.ref);
            input += d.old_oid + "\n";
        }
        for (const auto& [name, info] : refs)
            if (!gone.count(name) && (info.type == "commit" || info.type == "tag"))
                input += "^" + info.oid + "\n";
        for (const auto& oid : tx.written)
            input += "^" + oid + "\n";
        for (const auto& oid : detached_heads(git_dir, deadline))
            input += "^" + oid + "\n";
        // The one walk: every tip against every ref that stays (§4.2).
        auto walk = run_git_bounded(git_dir, {"rev-list", "--parents", "--stdin"}, input, deadline);
        if (!walk)
            return verdicts;
        if (walk->status != 0)
            throw Error("git rev-list failed on the transaction's values");
        Graph graph;
        std::istringstream lines(walk->out);
        std::string line;
        while (std::getline(lines, line)) {
            std::istringstream words(line);
            std::string c, p;
            words >> c;
            auto& parents = graph[c];
            while (words >> p)
                parents.push_back(p);
        }
        // The merge test, for each tip with commits of its own against each candidate base.
        std::vector<MergePair> pairs;
        std::map<std::string, std::string> trees;  // candidate -> its commit's tree ("": none)
        for (size_t i = 0; i < verdicts.size(); ++i) {
            auto& v = verdicts[i];
            v.commits = reach(graph, v.deletion.old_oid);
            if (v.commits.empty())
                v.unchecked = false;
            for (const auto& base : v.commits.empty() ? std::vector<std::string>{}
                                                      : candidates(refs, v.deletion.ref, settings)) {
                if (!trees.count(base))
                    trees[base] = tree_of(git_dir, refs, base, deadline);
                if (!trees[base].empty())
                    pairs.push_back({i, base, trees[base]});
            }
        }
        bool late = false;
        auto published = merge_tests(git_dir, verdicts, pairs, deadline, late);
        for (size_t i = 0; i < verdicts.size(); ++i) {
            if (verdicts[i].commits.empty())
                continue;
            verdicts[i].unchecked = late && !published[i];
            if (published[i])
                verdicts[i].commits.clear();
        }
    } catch (const std::exception& e) {
        // Fail closed (§0.3): an error while deciding keeps every tip.
        // Verdicts not reached yet still hold their tip, unchecked.
        spdlog::warn("judging deletions failed, saving every tip not yet judged: {}", e.what());
        std::fprintf(stderr, "git-guard: cannot tell which deleted tips are published (%s): keeping them\n",
                     e.what());
    }
    return verdicts;
}

Saved save_existing(const fs::path& git_dir, const std::string& name, const std::string& commit,
                    const SaveOptions& options)
{
    // Why libgit2: its ref writes run no hooks (LESSONS 4), so a policy hook cannot
    // reject the save and our own hook is not re-entered. One open per repository:
    // a transaction may save a thousand tips.
    static std::map<fs::path, Repository> open;
    auto it = open.find(git_dir);
    if (it == open.end())
        it = open.emplace(git_dir, open_repository(git_dir)).first;
    return save_tip(it->second.get(), name, parse_oid(commit), options);
}

} // namespace guard
