// Which commits exist nowhere else, and which are published: git's own walk
// and git's own merge, never a second implementation (DESIGN §0).
#include "guard/git/history.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <unistd.h>

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

PublishedCheck::PublishedCheck(const fs::path& common, const Settings& settings)
    : m_git(common), m_bases(settings.base_refs)
{
}

PublishedCheck::~PublishedCheck()
{
    std::error_code ec;
    if (!m_scratch.empty())
        fs::remove_all(m_scratch, ec);
}

void PublishedCheck::seed(RefListing listing)
{
    m_listed = true;
    m_remotes = std::move(listing.remotes);
    m_upstreams = std::move(listing.upstreams);
}

std::vector<std::string> PublishedCheck::candidates(const std::string& branch)
{
    if (!m_listed) {
        m_listed = true;
        m_remotes = split(m_git.run({"for-each-ref", "--format=%(refname)", "refs/remotes/"}).out, '\n');
        RunResult ups = m_git.run({"for-each-ref", "--format=%(refname:lstrip=2) %(upstream)", "refs/heads/"});
        for (const auto& line : split(ups.out, '\n'))
            if (auto sp = line.rfind(' '); sp != std::string::npos && sp + 1 < line.size())
                m_upstreams[line.substr(0, sp)] = line.substr(sp + 1);
    }
    std::vector<std::string> picked;
    if (auto up = m_upstreams.find(branch); !branch.empty() && up != m_upstreams.end())
        picked.push_back(up->second);
    // refs/remotes/*/HEAD is symbolic: listed here by name, resolved by git.
    for (const auto& name : m_remotes) {
        auto slash = name.find('/', 13);
        auto tail = slash == std::string::npos ? "" : name.substr(slash + 1);
        if (tail == "HEAD" || (!branch.empty() && tail == branch))
            picked.push_back(name);
    }
    picked.insert(picked.end(), m_bases.begin(), m_bases.end());
    return picked;
}

// An empty bare repository that borrows our objects through alternates: it has
// no info/attributes, no HEAD tree and no worktree, and reads no attribute file,
// so neither a `merge=ours` attribute nor a configured driver can make an
// unpublished change look published.
bool PublishedCheck::make_scratch()
{
    if (m_scratch.empty()) {
        fs::path tmp = m_git.common() / "guard" / "tmp";
        std::error_code ec;
        fs::create_directories(tmp, ec);
        std::string pattern = (tmp / "merge-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            return false;
        m_scratch = pattern;
        auto r = guard::run({m_git.binary(), "init", "-q", "--bare", "--template=",
                             "--object-format=" + m_git.object_format(), m_scratch.string()});
        std::ofstream alt(m_scratch / "objects" / "info" / "alternates");
        alt << absolute_path(m_git.common() / "objects").string() << "\n";
        if (const char* quarantine = std::getenv("GIT_OBJECT_DIRECTORY"))
            alt << absolute_path(quarantine).string() << "\n";
        if (r.status != 0 || !alt)
            return false;
    }
    if (m_empty_tree.empty())
        m_empty_tree = m_git.empty_tree();
    return true;
}

std::vector<std::string> PublishedCheck::merge_args() const
{
    return {"-c", "core.attributesFile=/dev/null", "-c", "attr.tree=" + m_empty_tree, "merge-tree", "--write-tree"};
}

std::optional<RunResult> PublishedCheck::merge_all(const std::string& lines)
{
    if (!make_scratch())
        return std::nullopt;
    auto args = merge_args();
    args.insert(args.end(), {"--stdin", "--name-only", "--no-messages"});
    return Git(m_scratch).isolated().with_env("GIT_ATTR_NOSYSTEM", "1").run(args, lines);
}

bool PublishedCheck::merges_cleanly(const std::string& tip, const std::string& u)
{
    if (!make_scratch())
        return false;
    Git scratch = Git(m_scratch).isolated().with_env("GIT_ATTR_NOSYSTEM", "1");
    RunResult base = m_git.run({"rev-parse", u + "^{commit}", u + "^{tree}"});
    auto ids = split(base.out, '\n');
    if (base.status != 0 || ids.size() != 2)
        return false;
    auto args = merge_args();
    args.insert(args.end(), {ids[0], tip});
    RunResult r = scratch.run(args);
    std::string tree = r.out.substr(0, r.out.find('\n'));
    spdlog::debug("published check: {} into {}: exit {} tree {}", tip, u, r.status, tree);
    return r.status == 0 && tree == ids[1];
}

bool PublishedCheck::operator()(const std::string& tip, const std::string& branch)
{
    for (const auto& u : candidates(branch)) {
        if (m_git.run({"merge-base", "--is-ancestor", tip, u}).status == 0)
            return true;
        if (merges_cleanly(tip, u))
            return true;
    }
    return false;
}

} // namespace guard

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

std::vector<std::string> holders(const std::vector<RefValue>& refs, const RefTransaction& tx,
                                 const std::string& own_tree)
{
    std::set<std::string> deleted(tx.other_deleted.begin(), tx.other_deleted.end());
    for (const auto& d : tx.deletions)
        deleted.insert(d.ref);
    std::vector<std::string> hide;
    for (const auto& ref : refs) {
        bool mine = ref.tree.empty() || absolute_path(ref.tree).string() == own_tree;
        if (!(mine && deleted.count(ref.name)))
            hide.push_back(ref.oid);
    }
    for (const auto& w : tx.written)
        if (is_oid(w))
            hide.push_back(w);
    return hide;
}

} // namespace

std::vector<BranchVerdict> judge_deletions(const fs::path& git_dir, const RefTransaction& tx,
                                           const Settings& settings,
                                           std::chrono::steady_clock::time_point deadline)
{
    fs::path common = common_of(git_dir);
    Git git(common);
    std::vector<BranchVerdict> verdicts;
    for (const auto& d : tx.deletions)
        verdicts.push_back({d, {d.old_oid}, false, ""});
    std::set<std::string> missing = missing_objects(git, verdicts);
    std::vector<std::string> tips;
    for (auto& v : verdicts) {
        if (missing.count(v.deletion.old_oid)) {
            v.commits.clear();
            v.note = "the tip " + v.deletion.old_oid + " of " + v.deletion.ref +
                     " is missing from the object store: nothing is left to save";
        } else if (is_oid(v.deletion.old_oid)) {
            tips.push_back(v.deletion.old_oid);
        }
    }
    std::vector<RefValue> refs;
    RefListing listing;
    bool listed = false;
    try {
        refs = list_refs(common, list_worktrees(common), &listing);
        listed = true;
        auto unique = unique_commits(git, tips, holders(refs, tx, absolute_path(git_dir).string()));
        for (auto& v : verdicts)
            if (!v.commits.empty())
                v.commits = unique[v.deletion.old_oid];
    } catch (const Error& e) {
        // Fail closed: a walk that cannot finish proves nothing published.
        spdlog::warn("cannot walk the deleted branches, saving them all: {}", e.what());
    }
    PublishedCheck published(common, settings);
    if (listed)
        published.seed(std::move(listing));
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
        if (published(v.deletion.old_oid, branch) || (is_oid(moved_to) && published.contained(v.deletion.old_oid, moved_to)))
            v.commits.clear();
    }
    return verdicts;
}

} // namespace guard
