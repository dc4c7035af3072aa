// `git guard restore`: a save put back exactly, with git's own plumbing. Ladder: read and
// verify the save, check that nothing would be overwritten, then build the tree; a failure
// after the worktree exists removes it again.
#include "guard/save/restore.hpp"
#include "guard/save/restore_parts.hpp"

#include "guard/save/backup.hpp"
#include "guard/base/error.hpp"
#include "guard/save/journal.hpp"
#include "guard/save/restore_raw.hpp"
#include "guard/git/trailers.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"
#include "guard/save/stranded.hpp"
#include "guard/save/bundles.hpp"
#include "guard/save/trust.hpp"

#include <spdlog/spdlog.h>

#include <sstream>

namespace fs = std::filesystem;

namespace guard {

// Writes `tree`'s files into `dir` (modes, symlinks, untracked files: all of S) through a
// private index, so the tree's own index is written only from the index record.
void write_save_files(const GitAt& git, const fs::path& dir, const std::string& tree)
{
    fs::path scratch = git.git_dir() / "guard-restore-index";
    RunOptions with_index{.env = {{"GIT_INDEX_FILE", scratch.string()}}};
    GitAt in_tree(git.git_dir(), dir);
    in_tree.out({"read-tree", tree}, with_index);
    in_tree.out({"checkout-index", "--all", "--force"}, with_index);
    std::error_code ec;
    fs::remove(scratch, ec);
}

namespace {

bool ref_exists(const GitAt& git, const std::string& ref)
{
    return git.try_run({"rev-parse", "-q", "--verify", ref}).status == 0;
}

// The branch each worktree has checked out, from git's own list.
bool checked_out(const GitAt& git, const std::string& branch)
{
    std::istringstream in(git.out({"worktree", "list", "--porcelain"}));
    for (std::string line; std::getline(in, line);)
        if (line == "branch refs/heads/" + branch)
            return true;
    return false;
}

void restore_nested(const GitAt& outer, const fs::path& root, const SavedNested& n, Restored& result);

// The index, the files and the nested repositories of `save` into the tree at `dir`, whose
// HEAD is already set.
void fill_tree(const GitAt& git, const fs::path& dir, const SaveLayout& save, Restored& result)
{
    write_saved_files(git.git_dir(), dir, save.head, save.tree); // the saved bytes, raw (restore_raw.hpp)
    GitAt in_tree(git.git_dir(), dir);
    in_tree.out({"read-tree", save.index_tree});
    in_tree.try_run({"update-index", "-q", "--refresh"}); // stat data only; exit 1 is normal
    for (const auto& path : save.unmerged)
        result.notes.push_back(path + " was unmerged: it is staged with its working content; the "
                               "conflict's stages were not recorded");
    for (const auto& [why, path] : save.unsaved)
        result.notes.push_back(path + " is not in the save (" + why + " when it was made)");
    for (const auto& n : save.nested)
        restore_nested(git, dir, n, result);
}

// A nested repository or submodule: a repository of its own at its path, its objects taken
// from the guarded repository, restored recursively.
void restore_nested(const GitAt& outer, const fs::path& root, const SavedNested& n, Restored& result)
{
    fs::path dir = root / n.path;
    // check_save_input proved the path clean; this proves nothing on disk turned it aside.
    for (fs::path at = root; const auto& part : fs::path(n.path))
        if (std::error_code ec; fs::is_symlink(at /= part, ec))
            throw Error("cannot restore the nested repository " + n.path + ": " + at.string() + " is a symbolic link");
    if (n.commit.empty()) {
        result.notes.push_back(n.path + ": the save records no content for this nested repository");
        return;
    }
    auto top = read_layout(outer.git_dir(), n.commit);
    std::string head = !n.head.empty() ? n.head : top.head;
    std::string branch = !n.branch.empty() ? n.branch : top.branch;
    auto init = run({find_real_git(), "init", "-q", "-b", branch.empty() ? "main" : branch, dir.string()});
    if (init.status != 0)
        throw Error("cannot create the nested repository " + dir.string() + ": " + init.err);
    GitAt nested(dir / ".git");
    // Every object the nested save reaches, as one pack: a fetch would need the guarded
    // repository to allow fetching unadvertised commits.
    auto pack = run({find_real_git(), "--git-dir=" + outer.git_dir().string(), "pack-objects", "--revs",
                     "--stdout", "-q"}, {.input = n.commit + "\n"});
    if (pack.status != 0)
        throw Error("cannot read the nested save of " + n.path + ": " + pack.err);
    nested.out({"index-pack", "--stdin", "--fix-thin"}, {.input = pack.out});
    if (!head.empty() && !branch.empty())
        nested.out({"update-ref", "refs/heads/" + branch, head});
    else if (!head.empty())
        nested.out({"update-ref", "--no-deref", "HEAD", head});
    fill_tree(nested, dir, top, result);
}

// The tree's own refs that went with it (refs/worktree/*, refs/bisect/*: `Stranded-Ref`),
// created in the new tree only where none of that name exists.
void restore_own_refs(const GitAt& tree, const SaveLayout& save, Restored& r)
{
    for (const auto& [name, id] : save.own_refs) {
        bool own = name.starts_with("refs/worktree/") || name.starts_with("refs/bisect/") ||
                   name.starts_with("refs/rewritten/");
        if (!own || tree.try_run({"update-ref", name, id, ""}).status != 0)
            r.notes.push_back(name + " (" + id.substr(0, 12) + ") was not restored; the save keeps it");
    }
}

std::string branch_tip(const GitAt& git, const std::string& branch)
{
    return trim_output(git.try_run({"rev-parse", "-q", "--verify", "refs/heads/" + branch + "^{commit}"}).out);
}

// Attaches the new tree's HEAD to `branch` only when that changes nothing: the branch exists,
// is where the save's HEAD was, and is checked out nowhere.
void attach_branch(const GitAt& tree, const GitAt& common, const std::string& branch, Restored& r,
                   bool recreate)
{
    if (branch.empty())
        return;
    std::string tip = branch_tip(common, branch);
    if (tip.empty() && recreate && common.try_run({"update-ref", "-m", "git guard undo", "refs/heads/" + branch,
                                                   r.head, ""}).status == 0)
        tip = r.head; // made here, where nothing of that name was
    std::string why = tip.empty()            ? "branch " + branch + " no longer exists (git guard list shows its save, if any)"
                      : tip != r.head        ? "branch " + branch + " has moved to " + tip.substr(0, 12) + " since the save"
                      : checked_out(common, branch) ? "branch " + branch + " is checked out in another worktree"
                                                    : "";
    if (!why.empty()) {
        r.notes.push_back(why + "; HEAD is detached at " + r.head.substr(0, 12));
        return;
    }
    tree.out({"symbolic-ref", "HEAD", "refs/heads/" + branch});
    r.branch = branch;
}

Restored restore_tree(const GitAt& common, const Save& s, const SaveLayout& save, const fs::path& path,
                      bool recreate)
{
    Restored r{s.ref, s.commit, "worktree", path, "", save.head, {}};
    std::string branch = s.branch.empty() ? save.branch : s.branch;
    bool unborn = save.head.empty();
    if (unborn && (branch.empty() || ref_exists(common, "refs/heads/" + branch)))
        throw Error("the save " + s.ref + " was made on an unborn branch " + branch + ", which now "
                    "exists (or has no name); nothing was changed. Take its files with: git restore "
                    "--source=" + s.commit + " --worktree -- .");
    // Point of no return: the worktree exists from here on, and goes again on failure. An
    // unborn HEAD needs some commit to add a worktree at: the save's own, left at once. The
    // directory is one this restore made: mkdir fails on anything already there.
    fs::create_directories(path.parent_path());
    if (std::error_code ec; !fs::create_directory(path, ec))
        throw Error(path.string() + " exists or cannot be made (" + ec.message() + "); nothing was changed");
    try {
        common.out({"worktree", "add", "--no-checkout", "--detach", path.string(), unborn ? s.commit : save.head});
        GitAt tree(trim_output(GitAt(path / ".git").out({"rev-parse", "--absolute-git-dir"})));
        if (unborn)
            tree.out({"symbolic-ref", "HEAD", "refs/heads/" + branch});
        fill_tree(tree, path, save, r);
        restore_own_refs(tree, save, r);
        if (unborn)
            r.branch = branch;
        else
            attach_branch(tree, common, branch, r, recreate);
    } catch (const std::exception&) {
        common.try_run({"worktree", "remove", "--force", "--force", path.string()});
        std::error_code ec;
        fs::remove_all(path, ec);
        throw;
    }
    // As the shim does for every new worktree under `install --lock-worktrees`.
    if (trim_output(common.try_run({"config", "--bool", "guard.lockWorktrees"}).out) == "true")
        common.try_run({"worktree", "lock", "--reason", "git-guard", path.string()});
    if (save.layout == 1)
        r.notes.push_back("a layout-1 save records no index: everything staged is now unstaged, and "
                          "files that were staged new show as untracked");
    if (!save.branch_tip.empty())
        r.notes.push_back("HEAD had moved off its branch (mid-rebase or bisect, tip " +
                          save.branch_tip.substr(0, 12) + "); that operation's state is not restored");
    return r;
}

Restored restore_branch(const GitAt& common, const Save& s, const std::string& branch)
{
    if (ref_exists(common, "refs/heads/" + branch))
        throw Error("a branch named '" + branch + "' exists; nothing was changed. Restore the save "
                    "as a worktree instead: git guard restore " + s.ref + " <path>");
    // Must not exist: a branch made meanwhile is never moved.
    common.out({"update-ref", "-m", "git guard restore", "refs/heads/" + branch, s.commit, ""});
    return {s.ref, s.commit, "branch", {}, branch, s.commit, {}};
}

// The place a tree save goes: `options.path`, else where the save says it came from, which
// only a save made here may choose (one from elsewhere could name any directory).
fs::path target_of(const fs::path& start, const Save& s, const RestoreOptions& options)
{
    fs::path path = options.path.empty() ? fs::path(s.path) : options.path;
    if (options.path.empty() && path.is_relative()) // a name, not a place (a prune's record)
        path.clear();
    if (path.empty())
        throw Error("the save " + s.ref + " does not say where it came from: name a path "
                    "(git guard restore " + s.ref + " <path>)");
    if (options.path.empty() && s.foreign)
        throw Error("the save " + s.ref + " was not made in this repository (it claims to come from " +
                    s.path + "); nothing was changed. Name where it goes: git guard restore " + s.ref + " <path>");
    path = absolute_path(start / path);
    if (std::error_code ec; fs::exists(fs::symlink_status(path, ec)))
        throw Error(path.string() + " exists; nothing was changed. Name a free path: git guard "
                    "restore " + s.ref + " <path>" + (s.in_place && options.path.empty()
                                                         ? ", or put it back into that tree: git guard restore --in-place " + s.ref
                                                         : ""));
    return path;
}

Restored restore_checked(const fs::path& start, const Save& s, const GitAt& common, const RestoreOptions& options)
{
    if (!s.bundle.empty())
        return restore_bundle(common.git_dir(), s);
    SaveLayout save = read_layout(common.git_dir(), s.commit);
    verify_layout(common.git_dir(), save);
    bool tree = save.layout != 0 || !s.path.empty() || !options.path.empty();
    std::string branch = !tree || s.branch.size() ? s.branch : save.branch;
    if (!branch.empty())
        check_branch_name(branch, "the branch");
    if (!tree)
        return restore_branch(common, s, branch);
    check_save_input(common.git_dir(), save);
    return restore_tree(common, s, save, target_of(start, s, options), options.recreate_branch);
}

} // namespace

std::vector<std::string> restore_obstacles(const Site& here, const Save& s)
{
    if (s.in_place)
        return in_place_obstacles(here, s);
    GitAt common(here.repository());
    std::vector<std::string> out;
    bool tree = s.bundle.empty() && (s.layout != 0 || !s.path.empty()); // as restore_checked decides
    if (tree) {
        try {
            target_of(here.dir, s, {});
        } catch (const Error& e) {
            out.push_back(e.what());
        }
    } else if (!s.branch.empty() && ref_exists(common, "refs/heads/" + s.branch)) {
        out.push_back("a branch named '" + s.branch + "' exists");
    }
    return out;
}

std::vector<std::string> restore_obstacles(const Site& here, const std::string& name)
{
    return restore_obstacles(here, find_save(here.common, name));
}

Restored restore_save(const Site& here, const Save& s, const RestoreOptions& options)
{
    GitAt common(here.repository());
    Restored r;
    try {
        r = restore_checked(here.dir, s, common, options);
    } catch (const Error& e) {
        journal_append(common.git_dir(), {.kind = "refusal", .ref = s.ref, .commit = s.commit,
                                          .path = options.path.string(), .branch = s.branch,
                                          .reason = "restore", .detail = e.what()});
        throw;
    }
    journal_record(common.git_dir(), {.kind = "restore", .ref = r.ref, .commit = r.commit,
                                      .path = r.path.string(), .branch = r.branch,
                                      .reason = "restore", .detail = r.kind});
    spdlog::info("restored {} as {} {}", r.ref, r.kind, r.kind == "branch" ? r.branch : r.path.string());
    return r;
}

Restored restore_save(const Site& here, const std::string& name, const RestoreOptions& options)
{
    Save s;
    try {
        s = find_save(here.common, name);
    } catch (const Error& e) {
        journal_append(here.repository(), {.kind = "refusal", .ref = name, .path = options.path.string(),
                                           .reason = "restore", .detail = e.what()});
        throw;
    }
    return restore_save(here, s, options);
}

} // namespace guard
