#include "guard/judge/work.hpp"

#include "guard/judge/deletions.hpp"
#include "guard/base/pattern.hpp"
#include "guard/git/git.hpp"

#include "guard/judge/head.hpp"
#include "guard/judge/head_reflog.hpp"
#include "guard/judge/tree_state.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace guard {

const char* to_string(ChangeKind kind)
{
    switch (kind) {
    case ChangeKind::modified: return "modified";
    case ChangeKind::staged: return "staged";
    case ChangeKind::deleted: return "deleted";
    case ChangeKind::renamed: return "renamed";
    case ChangeKind::type_changed: return "type_changed";
    case ChangeKind::unmerged: return "unmerged";
    case ChangeKind::untracked: return "untracked";
    case ChangeKind::ignored: return "ignored";
    }
    return "?";
}

const char* to_string(Verdict verdict)
{
    switch (verdict) {
    case Verdict::clean: return "clean";
    case Verdict::has_work: return "has_work";
    case Verdict::cannot_save: return "cannot_save";
    }
    return "?";
}

namespace {

// Commits only this tree holds: from its HEAD and its own per-worktree refs,
// against every other ref and every other tree's detached HEAD. Errors read as
// "HEAD is at risk" (DESIGN §0.3).
void collect_commits(const fs::path& common, const Worktree& tree, const Settings& settings, Work& w,
                     Listing* listing)
{
    try {
        std::vector<RefValue> read;
        if (listing && !listing->refs)
            listing->refs = list_refs(common, listing->trees);
        else if (!listing)
            read = list_refs(common, list_worktrees(common));
        const std::vector<RefValue>& refs = listing ? *listing->refs : read;
        settle_detached(Git(tree.git_dir), w, std::any_of(refs.begin(), refs.end(), [](const RefValue& r) {
                            return r.name == "refs/heads/(detached)";
                        }));
        std::string own = absolute_path(tree.git_dir).string();
        std::vector<std::string> tips, hide;
        std::vector<std::pair<std::string, std::string>> own_refs;
        if (w.head)
            tips.push_back(*w.head);
        std::vector<std::string> logged = w.head ? head_reflog(tree) : std::vector<std::string>{};
        tips.insert(tips.end(), logged.begin(), logged.end());
        for (const auto& r : refs) {
            bool mine = !r.tree.empty() && absolute_path(r.tree).string() == own;
            if (mine && r.name != "HEAD") {
                tips.push_back(r.oid);
                own_refs.emplace_back(r.oid, r.name);
            } else if (!mine && guards_commits(r)) {
                hide.push_back(r.oid);
            }
        }
        for (const auto& r : refs)
            spdlog::debug("ref {} {} of '{}'", r.oid, r.name, r.tree);
        auto unique = unique_commits(Git(common), tips, hide);
        PublishedCheck published(common, settings);
        std::set<std::string> seen;
        auto take = [&](const std::string& tip) {
            for (const auto& c : unique[tip])
                if (seen.insert(c).second)
                    w.commits.push_back(c);
        };
        if (w.head && !unique[*w.head].empty() && !published(*w.head, w.branch))
            take(*w.head);
        for (const auto& [oid, name] : own_refs)
            if (!unique[oid].empty() && !published(oid, "")) {
                take(oid);
                w.own_refs.emplace_back(oid, name);
            }
        // What only the reflog names, unless published or its content is in HEAD (a
        // rebase's or an amend's old commits that only added to what HEAD has).
        for (const auto& tip : reflog_tips(logged, w.head.value_or(""), unique))
            if (!published(tip, "") && !(w.head && published.contained(tip, *w.head))) {
                take(tip);
                w.reflog.push_back(tip);
            }
    } catch (const Error& e) {
        settle_detached(Git(tree.git_dir), w, true); // the refs may be unread
        spdlog::warn("cannot tell which commits only {} holds, saving HEAD: {}", w.path, e.what());
        w.note = e.what();
        if (w.head)
            w.commits = {*w.head};
    }
}

void decide(Work& w)
{
    if (w.verdict != Verdict::cannot_save)
        w.verdict = w.changes.empty() && w.commits.empty() && w.nested.empty() ? Verdict::clean
                                                                                : Verdict::has_work;
}

// A tree moved aside before a prune (`<tree>` renamed to `<tree>.<suffix>`): a
// sibling whose `.git` file still points at the admin entry.
fs::path moved_aside(const Worktree& tree)
{
    std::error_code ec;
    fs::path admin = absolute_path(tree.git_dir);
    for (const auto& entry : fs::directory_iterator(tree.path.parent_path(), ec)) {
        if (!entry.is_directory(ec) || entry.is_symlink(ec))
            continue;
        fs::path dot = entry.path() / ".git";
        if (fs::is_regular_file(dot, ec) && absolute_path(git_dir_of(entry.path())) == admin)
            return entry.path();
    }
    return {};
}

// What the index of a tree whose directory is gone still stages (its blobs are in the
// object store, DESIGN §4.1): the paths where git finds it differs from HEAD. An index
// git cannot compare is staged work all the same (DESIGN §0.3).
void read_admin_index(const Worktree& tree, Work& w)
{
    std::error_code ec;
    if (!fs::exists(tree.git_dir / "index", ec))
        return;
    Git git(tree.git_dir);
    RunResult r = git.run({"diff-index", "--cached", "--no-renames", "--name-only", "-z",
                           w.head ? *w.head : git.empty_tree()});
    if (r.status != 0) {
        w.note = "cannot compare the index of " + tree.path.string() + " with HEAD: " + first_line_of(r.err);
        w.changes.push_back({".", ChangeKind::staged, false, false});
        return;
    }
    for (const auto& path : split(r.out))
        if (!path.empty())
            w.changes.push_back({path, ChangeKind::staged, false, false});
}

} // namespace

Work inspect_tree(const Worktree& tree, const Settings& settings, Listing* listing, Use use)
{
    std::error_code ec;
    if (tree.prunable || !fs::exists(tree.path / ".git", ec))
        check_readable(tree); // throws: git cannot read it
    fs::path common = common_of(tree.git_dir);
    // Everything here only reads, and nothing of it counts unless git opened the tree as
    // itself: its root, asked with HEAD, proves it once git has answered. A report acts
    // on nothing: git's status of the tree, run with its admin entry and root named, is it.
    bool act = use == Use::act;
    Work w = inspect_checkout(tree.git_dir, tree.path, settings,
                              [&](Work& work) { collect_commits(common, tree, settings, work, listing); }, act,
                              act ? nullptr : &tree);
    if (act)
        check_readable(tree, w.top);
    w.path = tree.path.string();
    decide(w);
    return w;
}

Work inspect_admin(const fs::path& common, const Worktree& tree, const Settings& settings, Listing* listing)
{
    Work w;
    std::error_code ec;
    fs::path root = tree.is_main || !fs::exists(tree.git_dir, ec) ? fs::path() : moved_aside(tree);
    if (!root.empty()) {
        // Its files still exist, only elsewhere: inspect them through the admin entry.
        w = inspect_checkout(tree.git_dir, root, settings);
        w.root = root.string();
    } else {
        w.git_dir = tree.git_dir.string();
        if (fs::exists(tree.git_dir, ec)) {
            read_head(Git(tree.git_dir), w);
            read_admin_index(tree, w);
        } else if (is_oid(tree.head)) {
            w.head = tree.head;
        }
        if (tree.branch_ref.starts_with("refs/heads/") && w.branch.empty())
            w.branch = tree.branch_ref.substr(11);
    }
    w.path = tree.path.string();
    collect_commits(common, tree, settings, w, listing);
    decide(w);
    return w;
}

Work inspect_branch(const fs::path& common, const std::string& branch, const std::string& tip,
                    const Settings& settings, const Pending& pending)
{
    Work w;
    w.branch = branch;
    w.head = tip;
    w.branch_tip = tip;
    RefTransaction tx{{{"refs/heads/" + branch, tip}}, pending.deleted, pending.created};
    auto verdicts = judge_deletions(common, tx, settings, std::chrono::steady_clock::time_point::max());
    w.commits = verdicts.front().commits;
    w.note = verdicts.front().note;
    decide(w);
    return w;
}

std::vector<Work> inspect_paths(const Site& here, const std::vector<fs::path>& paths,
                                const std::vector<std::string>& branches)
{
    // The first tree named picks the repository, so status works from any directory.
    fs::path common = (paths.empty() ? here : site_named(here, paths.front())).repository();
    Settings settings = read_settings(common);
    std::vector<Work> works;
    // One worktree list and one refs walk for every tree this status judges.
    Listing listing{list_worktrees(common), std::nullopt};
    std::vector<Worktree> trees;
    for (const auto& p : paths)
        trees.push_back(resolve_worktree(listing.trees, common, p));
    if (paths.empty() && branches.empty())
        trees = listing.trees;
    for (const auto& tree : trees)
        works.push_back(tree.prunable ? inspect_admin(common, tree, settings, &listing)
                                      : inspect_tree(tree, settings, &listing, Use::report));
    for (const auto& branch : branches) {
        std::string name = branch.starts_with("refs/heads/") ? branch.substr(11) : branch;
        RunResult tip = Git(common).run({"rev-parse", "-q", "--verify", "refs/heads/" + name});
        if (tip.status != 0)
            throw Error("no branch named '" + name + "'");
        works.push_back(inspect_branch(common, name, first_line_of(tip.out), settings));
    }
    return works;
}

} // namespace guard
