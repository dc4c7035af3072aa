#include "guard/work.hpp"

#include "guard/history.hpp"
#include "guard/pattern.hpp"


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

// The branch a detached HEAD still belongs to: a rebase or bisect in progress.
std::string branch_in_progress(const fs::path& git_dir)
{
    for (const char* file : {"rebase-merge/head-name", "rebase-apply/head-name", "BISECT_START"}) {
        std::string name = read_first_line(git_dir / file);
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

void collect_commits(git_repository* repo, const Settings& settings, Work& w)
{
    // `repo` is the tree's own handle: its per-worktree refs (refs/bisect, refs/worktree)
    // are the tree's and go with it; every other ref holds commits.
    w.commits = unique_commits(repo, *w.head, {.push_per_worktree = true, .own_path = w.path});
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
    std::string head = tree.is_main ? "" : read_first_line(tree.git_dir / "HEAD");
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
    Holders holders{.skip = {pending.deleted.begin(), pending.deleted.end()}, .created = pending.created};
    holders.skip.insert("refs/heads/" + branch);
    w.commits = unique_commits(repo, tip, holders);
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
