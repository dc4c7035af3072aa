// Which commits exist nowhere else: every ref git lists, and git's own walk, never a
// second implementation (DESIGN §0).
#include "guard/git/history.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr const char* k_format = "--format=%(objectname) %(refname) %(symref)";
// The main listing also names each branch's upstream, for the published check.
constexpr const char* k_main_format = "--format=%(objectname) %(refname) %(symref) %(upstream)";

bool is_per_worktree(std::string_view ref)
{
    return ref.starts_with("refs/worktree/") || ref.starts_with("refs/bisect/") ||
           ref.starts_with("refs/rewritten/");
}

void parse_refs(const std::string& out, const std::string& tree, bool per_worktree_only,
                std::vector<RefValue>& refs, RefListing* listing = nullptr)
{
    for (const auto& line : split(out, '\n')) {
        auto fields = split(line, ' ');
        bool symbolic = fields.size() > 2 && !fields[2].empty();
        if (listing && fields.size() > 1 && fields[1].starts_with("refs/remotes/"))
            listing->remotes.push_back(fields[1]);
        if (listing && fields.size() > 3 && fields[1].starts_with("refs/heads/") && !fields[3].empty())
            listing->upstreams[fields[1].substr(11)] = fields[3];
        if (fields.size() < 2 || symbolic || !is_oid(fields[0]))
            continue; // a symbolic ref holds nothing
        bool own = is_per_worktree(fields[1]);
        if (per_worktree_only && !own)
            continue;
        refs.push_back({fields[0], fields[1], own ? tree : ""});
    }
}

// Whether git could list any per-worktree ref in the linked tree whose admin entry is
// `admin`. The files backend keeps a tree's refs/worktree, refs/bisect and refs/rewritten
// loose under `<admin>/refs/` (git never packs them); reftable keeps a table stack in
// `<admin>/reftable/`. With neither a file there nor a table stack, git has nothing to
// list, so its answer is known without a process per tree (issue 20: a `for-each-ref`
// per other tree made many trees cost O(trees^2)). Anything else is asked of git.
bool may_hold_own_refs(const fs::path& admin)
{
    std::error_code ec;
    if (fs::exists(admin / "reftable", ec) || ec)
        return true;
    fs::recursive_directory_iterator it(admin / "refs", ec), end;
    if (ec)
        return ec != std::errc::no_such_file_or_directory;
    for (; it != end; it.increment(ec)) {
        if (ec)
            return true;
        if (!it->is_directory(ec))
            return true;
    }
    return ec.operator bool();
}

} // namespace

bool guards_commits(const RefValue& ref)
{
    return ref.name == "HEAD" || ref.name.starts_with("refs/heads/") ||
           ref.name.starts_with("refs/remotes/") || ref.name.starts_with("refs/stranded/");
}

std::vector<RefValue> list_refs(const fs::path& common, const std::vector<Worktree>& trees, RefListing* listing)
{
    std::vector<RefValue> refs;
    std::string main_dir = common.string();
    parse_refs(Git(common).out({"for-each-ref", listing ? k_main_format : k_format}, "list the refs of " + main_dir),
               main_dir, false, refs, listing);
    for (const auto& tree : trees) {
        std::string dir = tree.git_dir.string();
        if (!tree.is_main) {
            // Each tree's own refs/worktree, refs/bisect: only its own git dir lists them.
            std::error_code ec;
            if (!fs::exists(tree.git_dir, ec))
                continue; // removed meanwhile: nothing of it is left to hold anything
            if (may_hold_own_refs(tree.git_dir)) {
                RunResult r = Git(tree.git_dir).run({"for-each-ref", k_format, "refs/worktree/",
                                                     "refs/bisect/", "refs/rewritten/"});
                if (r.status != 0 && fs::exists(tree.git_dir, ec))
                    throw Error("list the refs of worktree " + tree.path.string() + ": " + r.err);
                parse_refs(r.out, dir, true, refs);
            }
        }
        spdlog::debug("tree {} git dir {} head {} branch {}", tree.path.string(), dir, tree.head, tree.branch_ref);
        if (tree.branch_ref.empty() && is_oid(tree.head))
            refs.push_back({tree.head, "HEAD", dir}); // a detached HEAD holds its commits
    }
    return refs;
}

std::map<std::string, std::vector<std::string>>
unique_commits(const Git& git, const std::vector<std::string>& tips, const std::vector<std::string>& hide)
{
    std::map<std::string, std::vector<std::string>> found;
    // A tip a holder points at has no commit of its own: when every tip is one (a tree on a
    // branch's commit, a branch deleted where another points), no git runs.
    std::set<std::string> held(hide.begin(), hide.end());
    if (std::all_of(tips.begin(), tips.end(), [&](const std::string& t) { return held.count(t) > 0; }))
        return found;
    std::string input;
    for (const auto& t : tips)
        input += t + "\n";
    for (const auto& h : hide)
        input += "^" + h + "\n";
    spdlog::debug("walk: {} tip(s), {} holder(s)", tips.size(), hide.size());
    // --parents lets each tip's own commits be told apart after one walk.
    std::string out = git.out({"rev-list", "--parents", "--stdin"}, "walk the commits", input);
    std::map<std::string, std::vector<std::string>> parents;
    std::vector<std::string> order;
    for (const auto& line : split(out, '\n')) {
        auto ids = split(line, ' ');
        if (ids.empty())
            continue;
        order.push_back(ids[0]);
        parents[ids[0]].assign(ids.begin() + 1, ids.end());
    }
    std::map<std::string, size_t> rank;
    for (size_t i = 0; i < order.size(); ++i)
        rank[order[i]] = i;
    for (const auto& tip : tips) {
        if (!parents.count(tip) || found.count(tip))
            continue;
        std::set<std::string> seen{tip};
        std::vector<std::string> stack{tip};
        while (!stack.empty()) {
            std::string c = stack.back();
            stack.pop_back();
            for (const auto& p : parents[c])
                if (parents.count(p) && seen.insert(p).second)
                    stack.push_back(p);
        }
        std::vector<std::string> commits(seen.begin(), seen.end());
        std::sort(commits.begin(), commits.end(),
                  [&](const auto& a, const auto& b) { return rank[a] < rank[b]; });
        found[tip] = std::move(commits);
    }
    return found;
}

} // namespace guard
