// `git guard restore --in-place` (and `git guard undo`): an in-place save put back into the
// tree it came from. Ladder as restore.cpp's: read the save, list everything in the way
// (nothing is changed while anything is), then move HEAD, write the files, read the index.
#include "guard/save/restore.hpp"
#include "guard/save/restore_parts.hpp"

#include "guard/git/repo.hpp"
#include "guard/git/trailers.hpp"
#include "guard/save/journal.hpp"
#include "guard/save/stranded.hpp"

#include <spdlog/spdlog.h>

#include <map>
#include <set>

namespace fs = std::filesystem;

namespace guard {

namespace {

// Where an in-place save goes back to, and as what.
struct Target {
    Save save;
    fs::path tree;           // the tree it came from
    std::string head;        // the HEAD it had
    std::string files;       // the tree object of its files
    std::string index;       // the tree object of its index
    std::string branch;      // its branch ("" when detached)
    bool stash = false;      // a dropped stash entry
    bool commits_only = false;
    SaveLayout layout;
};

std::vector<std::string> split_z(const std::string& text)
{
    std::vector<std::string> out;
    for (size_t at = 0; at < text.size();) {
        size_t end = text.find('\0', at);
        if (end == std::string::npos)
            end = text.size();
        out.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

// path -> object id of every file of the tree object `tree`.
std::map<std::string, std::string> files_of(const GitAt& git, const std::string& tree)
{
    std::map<std::string, std::string> out;
    for (const auto& line : split_z(git.out({"ls-tree", "-r", "-z", "--full-tree", tree}))) {
        auto tab = line.find('\t');
        auto space = line.rfind(' ', tab);
        if (tab != std::string::npos && space != std::string::npos)
            out[line.substr(tab + 1)] = line.substr(space + 1, tab - space - 1);
    }
    return out;
}

Target target_of(const GitAt& common, const Save& s)
{
    if (!s.in_place)
        throw Error(s.ref + " is no in-place save: git guard restore " + s.ref + " puts it back");
    Target t{.save = s, .tree = s.path, .branch = s.branch};
    t.stash = s.reason.starts_with("stash");
    if (t.stash)
        return t;
    if (s.path.empty() || fs::path(s.path).is_relative())
        throw Error("the save " + s.ref + " does not say which tree it came from");
    if (s.kind == "commits" || s.layout == 0) {
        t.commits_only = true;
        t.head = s.commit;
        t.files = t.index = trim_output(common.out({"rev-parse", s.commit + "^{tree}"}));
        return t;
    }
    t.layout = read_layout(common.git_dir(), s.commit);
    verify_layout(common.git_dir(), t.layout);
    t.head = t.layout.head;
    t.files = t.layout.tree;
    t.index = t.layout.index_tree;
    if (t.branch.empty())
        t.branch = t.layout.branch;
    return t;
}

// The tree's own git, once its directory is known to be a worktree of this repository.
GitAt tree_git(const fs::path& tree)
{
    auto r = run({find_real_git(), "-C", tree.string(), "rev-parse", "--absolute-git-dir"});
    if (r.status != 0)
        throw Error(tree.string() + " is no tree git can read");
    return GitAt(trim_output(r.out), tree);
}

std::string rev(const GitAt& git, const std::string& name)
{
    return trim_output(git.try_run({"rev-parse", "-q", "--verify", name + "^{commit}"}).out);
}

// Whether moving a ref off `commit` loses it: no other ref than `own` reaches it.
bool only_on(const GitAt& git, const std::string& commit, const std::string& own, const std::string& onto)
{
    if (commit.empty() || git.try_run({"merge-base", "--is-ancestor", commit, onto}).status == 0)
        return false;
    std::string refs = git.out({"for-each-ref", "--contains", commit, "--format=%(refname)"});
    for (size_t at = 0; at < refs.size();) {
        size_t end = std::min(refs.find('\n', at), refs.size());
        std::string ref = refs.substr(at, end - at);
        at = end + 1;
        if (!ref.empty() && ref != own)
            return false;
    }
    return true;
}

void branch_obstacles(const GitAt& common, const Target& t, std::vector<std::string>& out)
{
    std::string tip = rev(common, "refs/heads/" + t.branch);
    if (!tip.empty() && tip != t.head && only_on(common, tip, "refs/heads/" + t.branch, t.head))
        out.push_back("branch " + t.branch + " is at " + tip.substr(0, 12) + ", which only it holds: moving it back "
                      "would leave that commit on no ref");
}

// Files on disk where the save writes different content.
void file_obstacles(const GitAt& git, const Target& t, std::vector<std::string>& out)
{
    std::set<std::string> tracked;
    for (const auto& p : split_z(git.out({"ls-files", "-z"})))
        tracked.insert(p);
    size_t shown = 0;
    for (const auto& [path, id] : files_of(git, t.files)) {
        std::error_code ec;
        fs::path on_disk = t.tree / path;
        if (tracked.contains(path) || !fs::exists(fs::symlink_status(on_disk, ec)))
            continue;
        bool same = fs::is_regular_file(fs::symlink_status(on_disk, ec)) &&
                    trim_output(git.try_run({"hash-object", "--", on_disk.string()}).out) == id;
        if (!same && shown++ < 5)
            out.push_back(on_disk.string() + " is in the way (not tracked, and not what the save holds there)");
    }
}

void tree_obstacles(const GitAt& common, const Target& t, std::vector<std::string>& out)
{
    std::error_code ec;
    if (!fs::is_directory(t.tree, ec)) {
        out.push_back("the tree " + t.tree.string() + " is gone: git guard restore " + t.save.ref + " <path> "
                      "puts the save in a new one");
        return;
    }
    GitAt git = tree_git(t.tree);
    std::string branch = trim_output(git.try_run({"symbolic-ref", "-q", "--short", "HEAD"}).out);
    if (branch != t.branch)
        return out.push_back(t.tree.string() + " has " + (branch.empty() ? "a detached HEAD" : "branch " + branch) +
                             " checked out, the save " + (t.branch.empty() ? "a detached HEAD" : "branch " + t.branch));
    std::string changed = git.out({"status", "--porcelain", "-z", "--untracked-files=no", "--ignore-submodules=none"});
    if (!changed.empty())
        out.push_back(t.tree.string() + " has uncommitted changes (" + split_z(changed).front().substr(3) +
                      (split_z(changed).size() > 1 ? ", ..." : "") + "): commit or save them first");
    std::string head = rev(git, "HEAD");
    if (head != t.head && only_on(common, head, branch.empty() ? "" : "refs/heads/" + branch, t.head))
        out.push_back(t.tree.string() + "'s HEAD is at " + head.substr(0, 12) + ", which no other ref holds: "
                      "moving it back would leave that commit on no ref");
    file_obstacles(git, t, out);
}

std::vector<std::string> obstacles_of(const GitAt& common, const Target& t)
{
    std::vector<std::string> out;
    if (t.stash)
        return out;
    bool checked_out_here = fs::is_directory(t.tree) && !t.branch.empty() &&
                            trim_output(tree_git(t.tree).try_run({"symbolic-ref", "-q", "HEAD"}).out) ==
                                "refs/heads/" + t.branch;
    if (t.commits_only && !t.branch.empty() && !checked_out_here)
        branch_obstacles(common, t, out);
    else
        tree_obstacles(common, t, out);
    return out;
}

// HEAD (its branch) to the save's, the files the save does not hold removed (each is in
// the commit HEAD was at, the tree being clean), the save's files written, its index read.
void put_back(const Target& t, Restored& r)
{
    GitAt git = tree_git(t.tree);
    std::string head = rev(git, "HEAD");
    if (head != t.head)
        git.out(t.branch.empty() ? std::vector<std::string>{"update-ref", "--no-deref", "-m", "git guard restore", "HEAD", t.head, head}
                                 : std::vector<std::string>{"update-ref", "-m", "git guard restore", "refs/heads/" + t.branch, t.head, head});
    auto wanted = files_of(git, t.files);
    for (const auto& path : split_z(git.out({"ls-files", "-z"})))
        if (!path.empty() && !wanted.contains(path)) {
            std::error_code ec;
            fs::remove(t.tree / path, ec);
        }
    write_save_files(git, t.tree, t.files);
    git.out({"read-tree", t.index});
    git.try_run({"update-index", "-q", "--refresh"}); // stat data only; exit 1 is normal
    for (const auto& n : t.layout.nested)
        r.notes.push_back(n.path + ": a nested repository is not put back in place; git guard restore " + t.save.ref +
                          " <path> restores it in a new tree");
    for (const auto& path : t.layout.unmerged)
        r.notes.push_back(path + " was unmerged: it is staged with its working content");
}

Restored apply(const GitAt& common, const Target& t)
{
    Restored r{t.save.ref, t.save.commit, "in-place", t.tree, t.branch, t.head, {}};
    if (t.stash) {
        common.out({"stash", "store", "-m", "put back by git guard: " + t.save.reason, t.save.commit});
        r.kind = "stash";
        return r;
    }
    bool here = fs::is_directory(t.tree) && !t.branch.empty() &&
                trim_output(tree_git(t.tree).try_run({"symbolic-ref", "-q", "HEAD"}).out) == "refs/heads/" + t.branch;
    if (t.commits_only && !t.branch.empty() && !here) {
        common.out({"update-ref", "-m", "git guard restore", "refs/heads/" + t.branch, t.head});
        r.kind = "branch";
        r.path.clear();
        return r;
    }
    put_back(t, r);
    return r;
}

} // namespace

std::vector<std::string> in_place_obstacles(const Site& here, const Save& s)
{
    GitAt common(here.repository());
    return obstacles_of(common, target_of(common, s));
}

Restored restore_in_place(const Site& here, const Save& s)
{
    GitAt common(here.repository());
    Restored r;
    try {
        Target t = target_of(common, s);
        auto in_way = obstacles_of(common, t);
        if (!in_way.empty()) {
            std::string text = "nothing was changed; in the way:";
            for (const auto& o : in_way)
                text += "\n  " + o;
            throw Error(text);
        }
        r = apply(common, t);
    } catch (const Error& e) {
        journal_append(common.git_dir(), {.kind = "refusal", .ref = s.ref, .commit = s.commit, .path = s.path,
                                          .branch = s.branch, .reason = "restore", .detail = e.what()});
        throw;
    }
    journal_record(common.git_dir(), {.kind = "restore", .ref = r.ref, .commit = r.commit, .path = r.path.string(),
                                      .branch = r.branch, .reason = "restore", .detail = r.kind});
    spdlog::info("restored {} in place into {}", r.ref, r.path.string());
    return r;
}

Restored restore_in_place(const Site& here, const std::string& name)
{
    Save s;
    try {
        s = find_save(here.common, name);
    } catch (const Error& e) {
        journal_append(here.repository(), {.kind = "refusal", .ref = name, .reason = "restore", .detail = e.what()});
        throw;
    }
    return restore_in_place(here, s);
}

} // namespace guard
