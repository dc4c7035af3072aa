#include "guard/work.hpp"

#include "guard/pattern.hpp"
#include "guard/process.hpp"

#include <spdlog/spdlog.h>

#include <fstream>
#include <set>

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

constexpr unsigned k_worktree_flags = GIT_STATUS_WT_NEW | GIT_STATUS_WT_MODIFIED |
                                      GIT_STATUS_WT_DELETED | GIT_STATUS_WT_TYPECHANGE |
                                      GIT_STATUS_WT_RENAMED | GIT_STATUS_WT_UNREADABLE;

std::string read_line(const fs::path& file)
{
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

// The branch a detached HEAD still belongs to: a rebase or bisect in progress.
std::string branch_in_progress(const fs::path& git_dir)
{
    for (const char* file : {"rebase-merge/head-name", "rebase-apply/head-name", "BISECT_START"}) {
        std::string name = read_line(git_dir / file);
        if (name.starts_with("refs/heads/"))
            return name.substr(11);
        if (!name.empty() && std::string(file) == "BISECT_START")
            return name;
    }
    return "";
}

void read_head(git_repository* repo, Work& w)
{
    git_reference* raw = nullptr;
    check(git_reference_lookup(&raw, repo, "HEAD"), "read HEAD of " + w.path);
    Reference head(raw);
    std::string target;
    if (git_reference_type(raw) == GIT_REFERENCE_SYMBOLIC) {
        target = git_reference_symbolic_target(raw);
    } else {
        w.head = *git_reference_target(raw);
        std::string branch = branch_in_progress(git_repository_path(repo));
        if (!branch.empty())
            target = "refs/heads/" + branch;
    }
    if (target.starts_with("refs/heads/"))
        w.branch = target.substr(11);
    git_oid tip;
    if (!target.empty() && git_reference_name_to_id(&tip, repo, target.c_str()) == 0) {
        w.branch_tip = tip;
        if (!w.head)
            w.head = tip;
    }
    git_error_clear();
}

// An untracked symlink whose target lies outside the tree: a link into another
// checkout (node_modules), whose target outlives the tree.
bool symlink_outside(const fs::path& root, const std::string& path)
{
    std::error_code ec;
    fs::path link = root / path;
    if (!fs::is_symlink(fs::symlink_status(link, ec)))
        return false;
    fs::path target = fs::read_symlink(link, ec);
    if (ec)
        return false;
    fs::path resolved = (target.is_absolute() ? target : link.parent_path() / target).lexically_normal();
    auto rel = resolved.lexically_relative(root.lexically_normal());
    return rel.empty() || *rel.begin() == "..";
}

bool nested_repository(const fs::path& root, const std::string& path)
{
    std::error_code ec;
    return !path.empty() && path.back() == '/' && fs::exists(root / path / ".git", ec);
}

ChangeKind kind_of(unsigned s)
{
    if (s & GIT_STATUS_CONFLICTED)
        return ChangeKind::unmerged;
    if (s & GIT_STATUS_WT_NEW)
        return ChangeKind::untracked;
    if (s & GIT_STATUS_IGNORED)
        return ChangeKind::ignored;
    if (s & GIT_STATUS_INDEX_RENAMED)
        return ChangeKind::renamed;
    if (s & (GIT_STATUS_WT_DELETED | GIT_STATUS_INDEX_DELETED))
        return ChangeKind::deleted;
    if (s & (GIT_STATUS_WT_TYPECHANGE | GIT_STATUS_INDEX_TYPECHANGE))
        return ChangeKind::type_changed;
    if (s & GIT_STATUS_WT_MODIFIED)
        return ChangeKind::modified;
    return ChangeKind::staged;
}

struct Filters {
    PatternList exclude;
    PatternList keep_ignored;
    git_index* index = nullptr; // the tree's own, for its skip-worktree bits
};

// sparse-checkout keeps skip-worktree files off disk on purpose; libgit2 1.5 does
// not know the bit and reports them as deleted.
bool skip_worktree(git_index* index, const std::string& path)
{
    const git_index_entry* e = index ? git_index_get_bypath(index, path.c_str(), 0) : nullptr;
    return e && (e->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE);
}

// Sorts one status entry into work, exclusion, or "cannot be saved".
void classify(const git_status_entry* e, const fs::path& root, const Filters& filters, Work& w)
{
    const git_diff_delta* d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
    std::string path = d->new_file.path ? d->new_file.path : d->old_file.path;
    if (e->head_to_index && !e->index_to_workdir)
        path = e->head_to_index->new_file.path;
    unsigned s = e->status;
    if ((s & GIT_STATUS_WT_DELETED) && skip_worktree(filters.index, path))
        s &= ~static_cast<unsigned>(GIT_STATUS_WT_DELETED);
    if (s == GIT_STATUS_CURRENT)
        return;
    bool ignored = s & GIT_STATUS_IGNORED;
    std::optional<std::string> kept = ignored ? filters.keep_ignored.match(path) : std::nullopt;
    if (ignored && !kept)
        return;
    w.git_sees_changes = w.git_sees_changes || !ignored;
    bool untracked = s & (GIT_STATUS_WT_NEW | GIT_STATUS_IGNORED);
    if (auto pattern = filters.exclude.match(path)) {
        w.excluded.push_back({path, "guard.exclude '" + *pattern + "'", !untracked});
        return;
    }
    if (untracked && symlink_outside(root, path)) {
        w.excluded.push_back({path, "symlink outside the tree", false});
        return;
    }
    if (untracked && nested_repository(root, path)) {
        w.verdict = Verdict::cannot_save;
        w.reason = "nested repository " + path + ": a branch can only record a pointer to it";
        w.blocker = path;
    } else if ((s & GIT_STATUS_WT_MODIFIED) &&
               (d->new_file.mode == GIT_FILEMODE_COMMIT || d->old_file.mode == GIT_FILEMODE_COMMIT)) {
        w.verdict = Verdict::cannot_save;
        w.reason = "submodule " + path + " has work of its own: a branch can only record a pointer to it";
        w.blocker = path;
    }
    Change c{path, kind_of(s), (s & k_worktree_flags) || (s & GIT_STATUS_CONFLICTED) || ignored,
             (s & GIT_STATUS_WT_DELETED) != 0};
    w.changes.push_back(std::move(c));
}

// A committed gitlink whose `.git` is a directory inside the tree (an embedded
// repository, or a submodule never absorbed): removing the tree destroys that
// repository with every commit it alone holds, and git skips its own submodule
// check under --force.
void find_embedded(git_index* index, const fs::path& root, const Filters& filters, Work& w)
{
    std::error_code ec;
    size_t n = git_index_entrycount(index);
    for (size_t i = 0; i < n && w.verdict != Verdict::cannot_save; ++i) {
        const git_index_entry* e = git_index_get_byindex(index, i);
        if (e->mode != GIT_FILEMODE_COMMIT || filters.exclude.match(e->path))
            continue;
        if (fs::is_directory(root / e->path / ".git", ec)) {
            w.verdict = Verdict::cannot_save;
            w.reason = std::string("embedded repository ") + e->path +
                       ": removing the tree would destroy its own .git, which a branch cannot hold";
            w.blocker = e->path;
        }
    }
}

void collect_changes(git_repository* repo, const Settings& settings, Work& w)
{
    git_index* own = nullptr;
    check(git_repository_index(&own, repo), "read the index of " + w.path);
    Index index(own);
    Filters filters{PatternList(settings.exclude), PatternList(settings.keep_ignored), own};
    git_status_options opts = GIT_STATUS_OPTIONS_INIT;
    opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
                 GIT_STATUS_OPT_RENAMES_HEAD_TO_INDEX | GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
    if (!filters.keep_ignored.empty())
        opts.flags |= GIT_STATUS_OPT_INCLUDE_IGNORED | GIT_STATUS_OPT_RECURSE_IGNORED_DIRS;
    git_status_list* raw = nullptr;
    check(git_status_list_new(&raw, repo, &opts), "read the status of " + w.path);
    StatusList list(raw);
    size_t n = git_status_list_entrycount(raw);
    for (size_t i = 0; i < n; ++i)
        classify(git_status_byindex(raw, i), w.path, filters, w);
    find_embedded(own, w.path, filters, w);
}

bool is_per_worktree(std::string_view ref)
{
    return ref.starts_with("refs/worktree/") || ref.starts_with("refs/bisect/") ||
           ref.starts_with("refs/rewritten/");
}

struct HideContext {
    git_revwalk* walk;
    const std::set<std::string>* skip;
    bool push_per_worktree;
};

// Every ref holds its commits, except the ones being inspected or deleted.
void hide_refs(git_repository* repo, git_revwalk* walk, const std::set<std::string>& skip,
               bool push_per_worktree)
{
    HideContext ctx{walk, &skip, push_per_worktree};
    git_reference_foreach_name(
        repo,
        [](const char* name, void* payload) {
            auto* c = static_cast<HideContext*>(payload);
            if (c->skip->count(name))
                return 0;
            if (is_per_worktree(name) && c->push_per_worktree)
                git_revwalk_push_ref(c->walk, name);
            else
                git_revwalk_hide_ref(c->walk, name);
            git_error_clear();
            return 0;
        },
        &ctx);
}

// Other worktrees' detached HEADs hold commits too: removing those trees saves them.
void hide_other_heads(git_repository* repo, git_revwalk* walk, const std::string& own_path)
{
    for (const auto& tree : list_worktrees(repo)) {
        if (tree.path == own_path)
            continue;
        git_reference* raw = nullptr;
        int rc = tree.is_main ? git_repository_head(&raw, open_common(repo).get())
                              : git_repository_head_for_worktree(&raw, repo, tree.name.c_str());
        Reference head(raw);
        // Only a detached HEAD holds commits: a tree on a branch holds nothing once the
        // branch is deleted. libgit2 1.5 resolves HEAD before judging it (every linked
        // tree looks detached), so read the file itself.
        bool detached = !read_line(tree.git_dir / "HEAD").starts_with("ref:");
        if (rc == 0 && detached)
            git_revwalk_hide(walk, git_reference_target(raw));
        git_error_clear();
    }
}

std::vector<std::string> walk_commits(git_revwalk* walk)
{
    std::vector<std::string> commits;
    git_oid oid;
    while (git_revwalk_next(&oid, walk) == 0)
        commits.push_back(to_hex(oid));
    git_error_clear();
    return commits;
}

// Refs whose content counts as published for `branch` (DESIGN §4.2).
std::vector<std::string> published_candidates(git_repository* repo, const std::string& branch,
                                              const Settings& settings)
{
    std::vector<std::string> picked;
    Buf upstream;
    if (!branch.empty() &&
        git_branch_upstream_name(upstream.get(), repo, ("refs/heads/" + branch).c_str()) == 0)
        picked.push_back(upstream.str());
    std::vector<std::string> remotes;
    git_reference_foreach_name(
        repo,
        [](const char* name, void* payload) {
            if (std::string_view(name).starts_with("refs/remotes/"))
                static_cast<std::vector<std::string>*>(payload)->emplace_back(name);
            return 0;
        },
        &remotes);
    for (const auto& r : remotes) {
        auto slash = r.find('/', 13);
        auto tail = slash == std::string::npos ? "" : r.substr(slash + 1);
        if (tail == "HEAD" || (!branch.empty() && tail == branch))
            picked.push_back(r);
    }
    picked.insert(picked.end(), settings.base_refs.begin(), settings.base_refs.end());
    git_error_clear();
    return picked;
}

// Published: merging `tip` into some candidate U leaves U's tree unchanged, the
// test `git merge-tree --write-tree U tip` makes. Run with git itself so the
// answer is git's own merge (rename detection included).
bool is_published(git_repository* repo, const git_oid& tip, const std::string& branch,
                  const Settings& settings)
{
    std::string git = find_real_git();
    for (const auto& candidate : published_candidates(repo, branch, settings)) {
        git_object* raw = nullptr;
        if (git_revparse_single(&raw, repo, (candidate + "^{commit}").c_str()) < 0) {
            git_error_clear();
            continue;
        }
        Object u(raw);
        const git_oid* u_tree = git_commit_tree_id(reinterpret_cast<git_commit*>(raw));
        auto result = run({git, "--git-dir=" + std::string(git_repository_commondir(repo)),
                           "merge-tree", "--write-tree", to_hex(*git_object_id(raw)), to_hex(tip)});
        std::string tree = result.out.substr(0, result.out.find('\n'));
        spdlog::debug("published check: {} into {}: exit {} tree {}", to_hex(tip), candidate,
                      result.status, tree);
        if (result.status == 0 && tree == to_hex(*u_tree))
            return true;
    }
    return false;
}

void collect_commits(git_repository* repo, const Settings& settings, Work& w)
{
    // `repo` is the tree's own handle: its per-worktree refs (refs/bisect, refs/worktree)
    // are the tree's and go with it; every other ref holds commits.
    git_revwalk* raw = nullptr;
    check(git_revwalk_new(&raw, repo), "walk commits of " + w.path);
    Revwalk walk(raw);
    git_revwalk_sorting(raw, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
    git_revwalk_push(raw, &*w.head);
    hide_refs(repo, raw, {}, true);
    hide_other_heads(repo, raw, w.path);
    w.commits = walk_commits(raw);
    if (!w.commits.empty() && is_published(repo, *w.head, w.branch, settings))
        w.commits.clear();
}

void decide(Work& w)
{
    if (w.verdict != Verdict::cannot_save)
        w.verdict = w.changes.empty() && w.commits.empty() ? Verdict::clean : Verdict::has_work;
}

} // namespace

Work inspect_tree(git_repository* repo, const Worktree& tree, const Settings& settings)
{
    Work w;
    w.path = tree.path.string();
    read_head(repo, w);
    collect_changes(repo, settings, w);
    if (w.head)
        collect_commits(repo, settings, w);
    decide(w);
    return w;
}

Work inspect_admin(git_repository* repo, const Worktree& tree, const Settings& settings)
{
    Work w;
    w.path = tree.path.string();
    // The admin entry's HEAD file, read directly: libgit2's head_for_worktree opens the
    // tree itself, which fails once its directory or its .git is gone (prune, husks).
    std::string head = tree.is_main ? "" : read_line(tree.git_dir / "HEAD");
    if (head.starts_with("ref: ")) {
        std::string target = head.substr(5);
        w.branch = target.starts_with("refs/heads/") ? target.substr(11) : target;
        return w; // the branch outlives the tree
    }
    if (head.size() != GIT_OID_HEXSZ || head.find_first_not_of("0123456789abcdef") != std::string::npos)
        return w;
    w.head = parse_oid(head);
    collect_commits(repo, settings, w);
    decide(w);
    return w;
}

Work inspect_branch(git_repository* repo, const std::string& branch, const git_oid& tip,
                    const Settings& settings, const Pending& pending)
{
    Work w;
    w.branch = branch;
    w.head = tip;
    w.branch_tip = tip;
    git_revwalk* raw = nullptr;
    check(git_revwalk_new(&raw, repo), "walk commits of " + branch);
    Revwalk walk(raw);
    git_revwalk_sorting(raw, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
    check(git_revwalk_push(raw, &tip), "walk " + branch);
    std::set<std::string> skip(pending.deleted.begin(), pending.deleted.end());
    skip.insert("refs/heads/" + branch);
    hide_refs(repo, raw, skip, false);
    hide_other_heads(repo, raw, "");
    for (const auto& oid : pending.created)
        git_revwalk_hide(raw, &oid);
    git_error_clear();
    w.commits = walk_commits(raw);
    if (!w.commits.empty() && is_published(repo, tip, branch, settings))
        w.commits.clear();
    decide(w);
    return w;
}

std::vector<Work> inspect_paths(const fs::path& start, const std::vector<fs::path>& paths,
                                const std::vector<std::string>& branches)
{
    // The first tree named picks the repository, so status works from any directory.
    std::error_code ec;
    bool named = !paths.empty() && fs::is_directory(paths.front(), ec);
    Repository repo = open_repository(named ? paths.front() : start);
    Settings settings = read_settings(repo.get());
    std::vector<Work> works;
    std::vector<Worktree> trees;
    for (const auto& p : paths)
        trees.push_back(resolve_worktree(repo.get(), p));
    if (paths.empty() && branches.empty())
        trees = list_worktrees(repo.get());
    for (const auto& tree : trees) {
        if (tree.prunable) {
            Work w;
            w.path = tree.path.string();
            w.verdict = Verdict::cannot_save;
            w.reason = "git cannot read this tree: its directory, .git or admin entry is missing";
            works.push_back(w);
            continue;
        }
        works.push_back(inspect_tree(open_worktree(tree).get(), tree, settings));
    }
    for (const auto& branch : branches) {
        std::string name = branch.starts_with("refs/heads/") ? branch.substr(11) : branch;
        git_oid tip;
        check(git_reference_name_to_id(&tip, repo.get(), ("refs/heads/" + name).c_str()),
              "no branch named '" + name + "'");
        works.push_back(inspect_branch(repo.get(), name, tip, settings));
    }
    return works;
}

} // namespace guard
