// `git guard remove` and `git guard discard`: the complete removal for
// orchestrators. A ladder: validate, save, verify, then remove.
#include "guard/modes/removal.hpp"
#include "guard/save/journal.hpp"

#include "guard/base/clock.hpp"
#include "guard/base/file.hpp"
#include "guard/base/lock.hpp"
#include "guard/git/git.hpp"
#include "guard/base/log.hpp"
#include "guard/git/process.hpp"
#include "guard/save/report.hpp"
#include "guard/save/stranded.hpp"
#include "guard/save/saveref.hpp"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace guard {

namespace {

// A directory whose `.git` file points into this repository's worktrees/ admin
// area is one of ours, even after its admin entry was deleted.
bool points_here(const fs::path& dir, const fs::path& common)
{
    std::string line = read_first_line(dir / ".git");
    if (!line.starts_with("gitdir: "))
        return false;
    fs::path admin = absolute_path(line.substr(8));
    return admin.parent_path() == absolute_path(common / "worktrees");
}

// Deletes `path` for real, read-only directories included; when that fails,
// moves it whole under the common dir (as `<name>-<stamp>`). Says truthfully which happened.
Outcome delete_or_move(const fs::path& path, const fs::path& common, fs::path& moved_to, const std::string& name)
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
    moved_to = husks / (name + "-" + utc_stamp());
    fs::rename(path, moved_to, ec);
    return ec ? Outcome::kept : Outcome::moved;
}

std::vector<Saved> save_branch(const fs::path& common, const std::string& branch, const Settings& settings)
{
    Git git(common);
    RunResult tip = git.run({"rev-parse", "-q", "--verify", "refs/heads/" + branch});
    if (tip.status != 0)
        return {};
    std::string oid = first_line_of(tip.out);
    Work work = inspect_branch(common, branch, oid, settings, {{"refs/heads/" + branch}, {}});
    std::vector<Saved> saved;
    if (work.verdict == Verdict::has_work)
        saved.push_back(save_existing(common, branch, oid, {.reason = "remove --delete-branch"}));
    // Hooks off: the branch was saved just above.
    std::vector<std::string> args = {"-c", "hook.reference-transaction.enabled=false", "update-ref", "-d",
                                     "refs/heads/" + branch, oid};
    git.out(args, "delete branch " + branch);
    return saved;
}

// A tree names its own repository, so a removal works from any directory; a
// husk (whose git would answer for the wrong repository) falls back to `here`.
fs::path repository_of(const fs::path& tree, const Site& here)
{
    std::error_code ec;
    if (fs::exists(tree / ".git", ec)) {
        try {
            Site own = site_at(tree);
            if (absolute_path(own.git_dir).parent_path() == absolute_path(own.common / "worktrees") ||
                absolute_path(own.common) == absolute_path(tree / ".git"))
                return own.common;
        } catch (const Error&) {
        }
    }
    return here.repository();
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
    Work work;
    work.path = tree.path.string();
    try {
        work = tree.prunable ? inspect_admin(common_of(tree.git_dir), tree, settings) : inspect_tree(tree, settings);
        if (auto s = save_work(common_of(tree.git_dir), work, tree.path.filename().string(), settings,
                               {.reason = "remove (locked)"}))
            r.saved.push_back(*s);
    } catch (const Error& e) {
        r.message += "\n" + refusal_message(work, e.what());
    }
    return r;
}

// Creates `file` as git creates a lock file (exclusively), waiting up to `wait` while
// another process holds it. Nothing when it stays taken (a git still at work, or one that
// died and left it) or cannot be made.
std::optional<std::pair<dev_t, ino_t>> take_git_lock(const fs::path& file, std::chrono::seconds wait)
{
    auto until = std::chrono::steady_clock::now() + wait;
    for (;;) {
        int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            struct stat st {};
            ::fstat(fd, &st);
            ::close(fd);
            return std::make_pair(st.st_dev, st.st_ino);
        }
        if (errno != EEXIST || std::chrono::steady_clock::now() >= until)
            return std::nullopt;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

volatile std::sig_atomic_t g_interrupted = 0; // the signal a RemovalHold held, 0 when none

extern "C" void note_interruption(int signal) { g_interrupted = signal; }

} // namespace

RemovalHold::RemovalHold(const Worktree& tree, bool move_aside, std::chrono::seconds wait) : m_tree(tree.path)
{
    g_interrupted = 0;
    struct sigaction noted {};
    noted.sa_handler = note_interruption;
    sigemptyset(&noted.sa_mask);
    for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
        struct sigaction was {};
        // A signal the caller ignores (a shell's background job ignores SIGINT) stays ignored.
        if (::sigaction(signal, nullptr, &was) == 0 && was.sa_handler != SIG_IGN &&
            ::sigaction(signal, &noted, nullptr) == 0)
            m_signals.emplace_back(signal, was);
    }
    std::error_code ec;
    std::vector<fs::path> files{tree.git_dir / "index.lock", tree.git_dir / "HEAD.lock"};
    if (fs::is_directory(tree.git_dir / "reftable", ec))
        files.push_back(tree.git_dir / "reftable" / "tables.list.lock");
    for (const fs::path& file : files) {
        if (auto id = take_git_lock(file, wait))
            m_locks.push_back({file, id->first, id->second});
        else
            spdlog::warn("removal of {}: {} stays taken by another process; removing without it",
                         tree.path.string(), file.string());
    }
    if (!move_aside || g_interrupted) // interrupted while waiting for git: nothing is moved
        return;
    fs::path aside = tree.path.parent_path() /
                     ("." + tree.path.filename().string() + ".git-guard-removing-" + std::to_string(::getpid()));
    if (fs::is_directory(fs::symlink_status(tree.path, ec)) && !fs::exists(fs::symlink_status(aside, ec)) &&
        ::rename(tree.path.c_str(), aside.c_str()) == 0)
        m_aside = aside;
    else // a mount point, a parent that is not writable: the tree stays where it is
        spdlog::info("removal of {}: not moved aside ({})", tree.path.string(), std::strerror(errno));
}

Outcome RemovalHold::removed(const fs::path& common, fs::path& moved_to)
{
    if (m_aside.empty())
        return Outcome::removed;
    Outcome outcome = delete_or_move(m_aside, common, moved_to, m_tree.filename().string());
    if (outcome == Outcome::kept)
        moved_to = m_aside; // where its files are left
    m_aside.clear();
    return outcome;
}

bool RemovalHold::interrupted() const { return g_interrupted != 0; }

RemovalHold::~RemovalHold()
{
    std::error_code ec;
    if (!m_aside.empty() && !fs::exists(fs::symlink_status(m_tree, ec)) && ::rename(m_aside.c_str(), m_tree.c_str()) != 0)
        std::fprintf(stderr, "git-guard: could not move %s back to %s (%s); its files are there\n", m_aside.c_str(),
                     m_tree.c_str(), std::strerror(errno));
    for (const Held& held : m_locks) {
        struct stat st {};
        if (::lstat(held.file.c_str(), &st) == 0 && st.st_dev == held.dev && st.st_ino == held.ino)
            ::unlink(held.file.c_str());
    }
    for (const auto& [signal, was] : m_signals)
        ::sigaction(signal, &was, nullptr);
    if (int signal = g_interrupted) // the tree is whole again: the signal does what it came for
        std::raise(signal);
}

std::string removal_lock_key(const fs::path& tree)
{
    return "worktree remove " + tree.string();
}

RemoveResult remove_tree(const Site& here, const fs::path& path, const RemoveOptions& options)
{
    fs::path abs = absolute_path(path);
    fs::path common = repository_of(abs, here);
    Settings settings = read_settings(common);
    auto tree = find_worktree(common, abs);
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
    PathLock removing(common, removal_lock_key(abs), settings.lock_timeout);
    std::optional<PathLock> removing_listed; // git's spelling of the tree, when it differs
    if (tree && absolute_path(tree->path) != abs)
        removing_listed.emplace(common, removal_lock_key(absolute_path(tree->path)), settings.lock_timeout);
    PathLock lock(common, abs.string(), settings.lock_timeout);
    if (tree && tree->locked && !our_lock)
        return save_locked(*tree, settings);
    // Re-read under the lock: another process may have removed the tree meanwhile.
    tree = find_worktree(common, abs);
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
    // Held from before the save until the tree is gone, and moved aside for the save to
    // read: nothing committed, staged or written there after the save is lost with it.
    std::optional<RemovalHold> hold;
    if (!husk && options.discard == Discard::no)
        hold.emplace(*tree, true, std::min(settings.lock_timeout, std::chrono::seconds(5)));
    bool moved = hold && hold->moved(); // then saved from its moved copy, through its admin entry
    if (moved)
        husk = true;
    if (options.discard == Discard::no) {
        try {
            if (husk && !moved) {
                if (auto s = save_husk(common, abs, tree, settings, {.reason = "remove husk"}))
                    result.saved.push_back(*s);
            } else {
                work = moved ? inspect_admin(common, *tree, settings) : inspect_tree(*tree, settings);
                branch = work.branch;
                if (auto s = save_work(common, work, abs.filename().string(), settings, {.reason = "remove"}))
                    result.saved.push_back(*s);
            }
        } catch (const Error& e) {
            return kept(common, work, refusal_message(work, e.what()));
        }
    } else {
        spdlog::warn("discarding {} without saving it", abs.string());
        journal_record(common, {.kind = "discard", .path = abs.string(), .reason = "discard"});
    }
    if (hold && hold->interrupted()) // the tree goes back where it was, then the signal ends this
        return kept(common, work, "interrupted before the removal; " + abs.string() + " stays");
    // Point of no return: the work is on verified branches (or explicitly discarded).
    std::string git = find_real_git();
    if (!husk)
        run({git, "--git-dir=" + common.string(), "worktree", "remove", "--force", "--force", abs.string()});
    result.outcome = delete_or_move(abs, common, result.moved_to, abs.filename().string());
    if (tree && result.outcome != Outcome::kept) {
        std::error_code ec;
        fs::remove_all(common / "worktrees" / tree->name, ec);
        if (hold && hold->moved())
            result.outcome = hold->removed(common, result.moved_to);
    }
    if (options.delete_branch == DeleteBranch::yes && !branch.empty() && result.outcome != Outcome::kept) {
        auto saved = save_branch(common, branch, settings);
        result.saved.insert(result.saved.end(), saved.begin(), saved.end());
    }
    result.message = result.outcome == Outcome::removed ? "removed " + abs.string()
                     : result.outcome == Outcome::moved ? "could not delete " + abs.string() + "; moved it whole to " + result.moved_to.string()
                                                        : "kept " + abs.string() + ": it could be neither deleted nor moved";
    spdlog::info("{}", result.message);
    return result;
}

std::string discard(const Site& here, const std::string& target)
{
    fs::path as_path = absolute_path(here.dir / target);
    std::error_code ec;
    bool is_dir = fs::is_directory(as_path, ec);
    // A pasted `git guard discard <tree>` works from any directory: a tree git can
    // still read names its own repository.
    bool named = is_dir && fs::exists(as_path / ".git", ec);
    Site site = named ? site_at(as_path) : here;
    fs::path common = site.repository();
    if (named) // the CLI set up its log at the cwd, which may be another repository or none
        init_log(common, false);
    if (is_dir) {
        auto result = remove_tree(site, as_path, {.discard = Discard::yes});
        if (result.outcome == Outcome::kept)
            throw Error(result.message);
        spdlog::warn("discarded tree {}", as_path.string());
        return "discarded " + as_path.string() + " without saving it";
    }
    std::string name = target.starts_with("refs/heads/") ? target.substr(11) : target;
    if (name.starts_with("stranded/")) {
        drop_stranded(common, name);
        return "dropped " + name;
    }
    Git git(common);
    RunResult tip = git.run({"rev-parse", "-q", "--verify", "refs/heads/" + name});
    if (tip.status != 0)
        throw Error("'" + target + "' is neither a worktree nor a branch");
    std::string was = first_line_of(tip.out);
    // Under the branch's lock until journaled: the watcher, seeing the deletion, reads the
    // journal under that lock and does not save what was let go.
    PathLock lock(common, "refs/heads/" + name, read_settings(common).lock_timeout);
    // Deleted with every hook off: discarding is the explicit override.
    git.out({"-c", "hook.reference-transaction.enabled=false", "update-ref", "-d", "refs/heads/" + name, was},
            "delete branch " + name);
    spdlog::warn("discarded branch {} (was {})", name, was);
    journal_record(common, {.kind = "discard", .commit = was, .branch = name, .reason = "discard"});
    return "discarded branch " + name + " (was " + was.substr(0, 12) + ")";
}

} // namespace guard
