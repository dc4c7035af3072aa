// `git guard remove` and `git guard discard`: the complete removal for
// orchestrators. A ladder: validate, save, verify, then remove.
#include "guard/removal.hpp"
#include "guard/journal.hpp"

#include "guard/lock.hpp"
#include "guard/log.hpp"
#include "guard/process.hpp"
#include "guard/report.hpp"
#include "guard/stranded.hpp"

#include <spdlog/spdlog.h>

#include <fstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

// A directory whose `.git` file points into this repository's worktrees/ admin
// area is one of ours, even after its admin entry was deleted.
bool points_here(const fs::path& dir, const fs::path& common)
{
    std::ifstream in(dir / ".git");
    std::string line;
    std::getline(in, line);
    if (!line.starts_with("gitdir: "))
        return false;
    fs::path admin = absolute_path(line.substr(8));
    return admin.parent_path() == absolute_path(common / "worktrees");
}

void add_file(git_repository* repo, git_index* index, const fs::path& root, const fs::path& file)
{
    std::string rel = file.lexically_relative(root).string();
    git_index_entry entry{};
    entry.path = rel.c_str();
    if (fs::is_symlink(fs::symlink_status(file))) {
        std::string target = fs::read_symlink(file).string();
        check(git_blob_create_from_buffer(&entry.id, repo, target.data(), target.size()), "save " + rel);
        entry.mode = GIT_FILEMODE_LINK;
    } else {
        check(git_blob_create_from_disk(&entry.id, repo, file.c_str()), "save " + rel);
        bool exec = (fs::status(file).permissions() & fs::perms::owner_exec) != fs::perms::none;
        entry.mode = exec ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
    }
    check(git_index_add(index, &entry), "stage " + rel);
}

// Every file of a tree git cannot read any more, as a tree object.
git_oid salvage_tree(git_repository* repo, const fs::path& root, Work& w)
{
    git_index* raw = nullptr;
    check(git_index_new(&raw), "make an index");
    Index index(raw);
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
        if (it->path().filename() == ".git") {
            if (it->path().parent_path() != root)
                throw Error("nested repository " + it->path().parent_path().string() +
                            ": a branch can only record a pointer to it");
            it.disable_recursion_pending();
            continue;
        }
        if (it->is_directory() && !it->is_symlink())
            continue;
        add_file(repo, raw, root, it->path());
        w.changes.push_back({it->path().lexically_relative(root).string(), ChangeKind::untracked, true, false});
    }
    git_oid oid;
    check(git_index_write_tree_to(&oid, raw, repo), "write the salvaged tree");
    return oid;
}

std::optional<Saved> save_husk(git_repository* repo, const fs::path& path,
                               const std::optional<Worktree>& tree, const Settings& settings)
{
    Work w = tree ? inspect_admin(repo, *tree, settings) : Work{};
    w.path = path.string();
    if (!w.head && !w.branch.empty()) {
        git_oid tip;
        if (git_reference_name_to_id(&tip, repo, ("refs/heads/" + w.branch).c_str()) == 0)
            w.head = tip;
        git_error_clear();
    }
    std::error_code ec;
    git_oid tree_oid{};
    if (fs::exists(path, ec))
        tree_oid = salvage_tree(repo, path, w);
    if (w.changes.empty())
        return w.commits.empty() ? std::nullopt
                                 : std::optional(save_tip(repo, path.filename().string(), *w.head,
                                                          {.reason = "remove husk"}));
    return save_commit(repo, w, tree_oid, path.filename().string(), settings, {.reason = "remove husk"});
}

// Deletes `path` for real, read-only directories included; when that fails,
// moves it whole under the common dir. Says truthfully which happened.
Outcome delete_or_move(const fs::path& path, const fs::path& common, fs::path& moved_to)
{
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(path, ec)))
        return Outcome::removed;
    run({"chmod", "-R", "u+rwx", path.string()});
    fs::remove_all(path, ec);
    if (!fs::exists(fs::symlink_status(path, ec)))
        return Outcome::removed;
    fs::path husks = common / "guard" / "husks";
    fs::create_directories(husks, ec);
    moved_to = husks / (path.filename().string() + "-" + utc_stamp());
    fs::rename(path, moved_to, ec);
    return ec ? Outcome::kept : Outcome::moved;
}

std::vector<Saved> save_branch(git_repository* repo, const std::string& branch, const Settings& settings)
{
    git_reference* raw = nullptr;
    if (git_reference_lookup(&raw, repo, ("refs/heads/" + branch).c_str()) < 0) {
        git_error_clear();
        return {};
    }
    Reference ref(raw);
    git_oid tip = *git_reference_target(raw);
    Work work = inspect_branch(repo, branch, tip, settings, {{"refs/heads/" + branch}, {}});
    std::vector<Saved> saved;
    if (work.verdict == Verdict::has_work)
        saved.push_back(save_tip(repo, branch, tip, {.reason = "remove --delete-branch"}));
    // libgit2 deletes without running the hook: the branch was saved just above.
    check(git_reference_delete(raw), "delete branch " + branch);
    return saved;
}

RemoveResult kept(const fs::path& common, const Work& work, const std::string& why)
{
    journal_refusal(common, work, why, "remove");
    RemoveResult r;
    r.message = why;
    return r;
}

// A locked tree is never deleted, but its work is saved all the same.
RemoveResult save_locked(const Worktree& tree, const Settings& settings)
{
    RemoveResult r;
    std::string unlock = "; unlock it first with 'git worktree unlock " + shell_quote(tree.path.string()) + "'";
    r.message = "kept " + tree.path.string() + ": it is locked (" + tree.lock_reason + ")" + unlock;
    if (tree.prunable)
        return r;
    Repository tree_repo = open_worktree(tree);
    Work work = inspect_tree(tree_repo.get(), tree, settings);
    try {
        if (auto s = save_tree(tree_repo.get(), tree, work, settings, {.reason = "remove (locked)"}))
            r.saved.push_back(*s);
    } catch (const Error& e) {
        r.message += "\n" + refusal_message(work, e.what());
    }
    return r;
}

} // namespace

RemoveResult remove_tree(const fs::path& start, const fs::path& path, const RemoveOptions& options)
{
    Repository repo = open_repository(start);
    Settings settings = read_settings(repo.get());
    fs::path common = common_dir(repo.get());
    fs::path abs = absolute_path(path);
    auto tree = find_worktree(repo.get(), abs);
    if (tree && tree->is_main)
        throw Error(abs.string() + " is the main worktree; git guard remove removes linked worktrees only");
    if (std::error_code ec; !tree && !fs::exists(fs::symlink_status(abs, ec))) {
        RemoveResult free;
        free.outcome = Outcome::removed; // the path is free: exit 0
        free.message = "nothing to remove: " + abs.string() + " does not exist";
        return free;
    }
    if (!tree && !points_here(abs, common))
        throw Error("'" + path.string() + "' is not a worktree of " + common.string() + " (see 'git worktree list')");
    bool our_lock = tree && tree->locked && tree->lock_reason == "git-guard";
    PathLock lock(common, abs.string(), settings.lock_timeout);
    if (tree && tree->locked && !our_lock)
        return save_locked(*tree, settings);
    // Re-read under the lock: another process may have removed the tree meanwhile.
    tree = find_worktree(repo.get(), abs);
    if (std::error_code ec; !tree && !fs::exists(fs::symlink_status(abs, ec))) {
        RemoveResult gone;
        gone.outcome = Outcome::removed; // the path is free: exit 0
        gone.message = abs.string() + " is already gone: another process removed it";
        return gone;
    }
    RemoveResult result;
    std::string branch;
    bool husk = !tree || tree->prunable || !fs::exists(abs / ".git");
    Work work; // what a refusal reports: as much as was inspected
    work.path = abs.string();
    if (options.discard == Discard::no) {
        try {
            if (husk) {
                if (auto s = save_husk(repo.get(), abs, tree, settings))
                    result.saved.push_back(*s);
            } else {
                Repository tree_repo = open_worktree(*tree);
                work = inspect_tree(tree_repo.get(), *tree, settings);
                branch = work.branch;
                if (work.verdict == Verdict::cannot_save)
                    return kept(common, work, refusal_message(work, work.reason));
                if (auto s = save_tree(tree_repo.get(), *tree, work, settings, {.reason = "remove"}))
                    result.saved.push_back(*s);
            }
        } catch (const Error& e) {
            return kept(common, work, refusal_message(work, e.what()));
        }
    } else {
        spdlog::warn("discarding {} without saving it", abs.string());
        journal_record(common, {.kind = "discard", .path = abs.string(), .reason = "discard"});
    }
    // Point of no return: the work is on verified branches (or explicitly discarded).
    std::string git = find_real_git();
    if (!husk)
        run({git, "--git-dir=" + common.string(), "worktree", "remove", "--force", "--force", abs.string()});
    result.outcome = delete_or_move(abs, common, result.moved_to);
    if (tree && result.outcome != Outcome::kept) {
        std::error_code ec;
        fs::remove_all(common / "worktrees" / tree->name, ec);
    }
    if (options.delete_branch == DeleteBranch::yes && !branch.empty() && result.outcome != Outcome::kept) {
        auto saved = save_branch(repo.get(), branch, settings);
        result.saved.insert(result.saved.end(), saved.begin(), saved.end());
    }
    result.message = result.outcome == Outcome::removed ? "removed " + abs.string()
                     : result.outcome == Outcome::moved ? "could not delete " + abs.string() + "; moved it whole to " + result.moved_to.string()
                                                        : "kept " + abs.string() + ": it could be neither deleted nor moved";
    spdlog::info("{}", result.message);
    return result;
}

std::string discard(const fs::path& start, const std::string& target)
{
    fs::path as_path = absolute_path(start / target);
    std::error_code ec;
    bool is_dir = fs::is_directory(as_path, ec);
    // A pasted `git guard discard <tree>` works from any directory: a tree git can
    // still read names its own repository.
    fs::path from = is_dir && fs::exists(as_path / ".git", ec) ? as_path : start;
    Repository repo = open_repository(from);
    if (from != start) // the CLI set up its log at the cwd, which is no repository: log here
        init_log(common_dir(repo.get()), false);
    if (is_dir) {
        auto result = remove_tree(from, as_path, {.discard = Discard::yes});
        if (result.outcome == Outcome::kept)
            throw Error(result.message);
        spdlog::warn("discarded tree {}", as_path.string());
        return "discarded " + as_path.string() + " without saving it";
    }
    std::string name = target.starts_with("refs/heads/") ? target.substr(11) : target;
    if (name.starts_with("stranded/")) {
        drop_stranded(start, name);
        return "dropped " + name;
    }
    git_reference* raw = nullptr;
    check(git_reference_lookup(&raw, repo.get(), ("refs/heads/" + name).c_str()),
          "'" + target + "' is neither a worktree nor a branch");
    Reference ref(raw);
    std::string was = to_hex(*git_reference_target(raw));
    // Deleted through libgit2, which runs no hook: discarding is the explicit override.
    check(git_reference_delete(raw), "delete branch " + name);
    spdlog::warn("discarded branch {} (was {})", name, was);
    journal_record(common_dir(repo.get()), {.kind = "discard", .commit = was, .branch = name, .reason = "discard"});
    return "discarded branch " + name + " (was " + was.substr(0, 12) + ")";
}

} // namespace guard
