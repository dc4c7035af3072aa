// git guard doctor: every check runs, whatever failed before it, so one run names every
// problem. The checks read; they never repair (the fix is printed instead).
#include "guard/install/doctor.hpp"
#include "guard/install/doctor_parts.hpp"
#include "guard/install/execmirror.hpp"

#include "guard/base/error.hpp"
#include "guard/install/install.hpp"
#include "guard/install/managers.hpp"
#include "guard/install/privacy.hpp"
#include "guard/git/git.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"
#include "guard/install/system_install.hpp"
#include "guard/version.hpp"
#include "guard/install/watch.hpp"
#include "guard/install/watch_doctor.hpp"
#include "guard/judge/work.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace fs = std::filesystem;

namespace guard {

Check passed(std::string name, std::string detail)
{
    return {std::move(name), true, std::move(detail), ""};
}

Check failed(std::string name, std::string detail, std::string fix)
{
    return {std::move(name), false, std::move(detail), std::move(fix)};
}

namespace {

// The front ends answer `--guard-version` with "<name> <version>".
Check version_check()
{
    std::string want = GUARD_VERSION;
    for (const char* name : {"git-guard-hook", "git-guard-shim"}) {
        fs::path front = front_end(name);
        if (::access(front.c_str(), X_OK) != 0)
            return failed("version", std::string(name) + " is missing next to " + self_path(),
                          k_reinstall);
        auto said = first_line_of(run({front.string(), "--guard-version"}).out);
        if (said != std::string(name) + " " + want) {
            std::string detail = front.string() + " says '" + said + "' but git-guard is ";
            detail += want;
            return failed("version", std::move(detail), k_reinstall);
        }
    }
    return passed("version", "git-guard, git-guard-hook and git-guard-shim are all " + want);
}

Check real_git_check(std::string& git)
{
    try {
        git = find_real_git();
    } catch (const Error& e) {
        git = "git";
        return failed("real_git", e.what(), "install git, or set GIT_GUARD_REAL_GIT to its path");
    }
    auto [major, minor] = git_version(git);
    std::string found = "git " + std::to_string(major) + "." + std::to_string(minor) + " at " + git;
    if (major < 2 || (major == 2 && minor < 38))
        return failed("real_git",
                      found + " is older than 2.38: rebased or squash-merged branches "
                              "cannot be told from unpublished ones",
                      "upgrade git to 2.38 or newer");
    return passed("real_git", found);
}

// Judges the caller's PATH, not the one git hands `git guard doctor` (git's exec path first).
Check shim_check(const fs::path& common)
{
    fs::path shim = front_end("git-guard-shim");
    fs::path link = installed_shim_link(common);
    fs::path dir = link.empty() ? default_shim_dir() : link.parent_path();
    std::string fix = "put the shim first on PATH: export PATH=\"" + dir.string() + ":$PATH\"";
    if (!link.empty() && !fs::exists(link))
        return failed("shim_on_path", "the shim link " + link.string() + " is gone",
                      "run 'git guard install'");
    fs::path git = first_git_on_path(caller_path());
    std::error_code ec;
    if (git.empty())
        return failed("shim_on_path", "no git on PATH", fix);
    if (fs::equivalent(git, shim, ec))
        return passed("shim_on_path", "git on PATH is the shim (" + git.string() + ")");
    return failed("shim_on_path",
                  "git on PATH is " + git.string() +
                      ", not the git-guard shim: 'git worktree remove' and 'prune' are not "
                      "guarded in this shell",
                  fix);
}

bool writable(fs::path dir)
{
    std::error_code ec;
    while (!fs::exists(dir, ec) && dir.has_relative_path())
        dir = dir.parent_path();
    return ::access(dir.c_str(), W_OK) == 0;
}

Check dirs_check(const fs::path& common)
{
    for (const fs::path& dir : {common / "guard" / "locks", common / "guard"})
        if (!writable(dir))
            return failed("dirs_writable",
                          dir.string() + " is not writable: no lock or log can be made there",
                          "give this user write access to " + (common / "guard").string());
    return passed("dirs_writable", (common / "guard").string() + " (locks, guard.log) is writable");
}

std::string tree_state(const Worktree& tree, const Settings& settings)
{
    if (tree.prunable)
        return "prunable: its directory or .git is gone ('git guard remove' salvages it)";
    std::string lock = tree.locked ? ", locked (" + first_line_of(tree.lock_reason) + ")" : "";
    try {
        auto work = inspect_tree(tree, settings);
        std::string branch = work.branch.empty() ? "detached" : work.branch;
        if (work.verdict == Verdict::cannot_save)
            return branch + ", cannot be saved: " + work.reason + lock;
        if (work.verdict == Verdict::has_work)
            return branch + ", has work: " + std::to_string(work.changes.size()) + " changes, " +
                   std::to_string(work.commits.size()) + " unique commits" + lock;
        return branch + ", clean" + lock;
    } catch (const Error& e) {
        return std::string("cannot be read: ") + e.what() + lock;
    }
}

// What is left unguarded on this machine now, by kind of caller, from the same facts the
// shim_on_path and watcher checks read (so the three never disagree).
struct Cover {
    bool shim_on_path = false;
    bool system = false;   // /usr/bin/git is the shim
    bool watched = false;  // a running watcher watches this repository
    long long interval = 0;
    bool locked = false;
};

std::string limits_text(const Cover& c)
{
    std::string after = c.watched ? "the watcher saves afterwards a tip or detached HEAD that lost its last name and "
                                    "a vanished tree's HEAD and index"
                                  : "nothing saves their losses: no watcher watches this repository (git guard watch)";
    std::string files = !c.watched ? "" : c.interval > 0 ? "; their files as of the last snapshot (at most " +
                                                               std::to_string(c.interval) + " s old): edits since then are lost"
                                                         : "; their files not at all (guard.snapshotInterval=0)";
    std::string text = "what remains, by kind of caller: ";
    text += c.shim_on_path ? "git on PATH: judged by the shim before it runs, hooks off ('git -c core.hooksPath=...') "
                             "included; "
                           : "git on PATH is not the shim in this shell: the hook judges it, but with hooks off only "
                             "the watcher's after-the-fact saves remain; ";
    text += c.system ? "git by absolute path (/usr/bin/git, env -i, sudo, cron): the shim too (system install); "
                     : "git by absolute path (/usr/bin/git, env -i, sudo, cron): skips the shim, the hook judges it "
                       "when hooks run, with hooks off " + std::string(c.watched ? "only the watcher afterwards" : "nothing") + "; ";
    text += "programs that write without the git command (libgit2, JGit, go-git, isomorphic-git, dulwich) and "
            "rm -rf: judged by nothing before they write; " + after + files;
    text += c.locked ? "; worktrees are locked (guard.lockWorktrees): git itself refuses to remove one without the shim"
                     : "; 'git guard install --lock-worktrees' makes git itself refuse to remove a worktree without the shim";
    return text;
}

Check limits_check(const Cover& c)
{
    return passed("limits", limits_text(c));
}

using RepoCheck = void (*)(std::vector<Check>&, const Patient&);

void shim_checks(std::vector<Check>& checks, const Patient& p)
{
    checks.push_back(shim_check(p.common));
}

void enabled_checks(std::vector<Check>& checks, const Patient& p)
{
    checks.push_back(p.settings.enabled ? passed("enabled", "guard.enabled is true")
                                        : failed("enabled", "guard.enabled is not set",
                                                 "run 'git guard install'"));
}

// `git gc` prunes worktrees itself, out of the shim's sight.
void gc_checks(std::vector<Check>& checks, const Patient& p)
{
    auto r = run({p.git, "--git-dir=" + p.common.string(), "config", "--get",
                  "gc.worktreePruneExpire"});
    std::string value = first_line_of(r.out);
    if (r.status == 0 && value == "never")
        return checks.push_back(
            passed("gc_prune", "gc.worktreePruneExpire=never: git gc prunes no worktree"));
    checks.push_back(failed("gc_prune",
                            "gc.worktreePruneExpire is " +
                                (r.status == 0 ? value : std::string("unset (3 months)")) +
                                ": git gc prunes deleted worktrees' admin entries, and their "
                                "work, without the shim",
                            "run 'git guard install' (it sets gc.worktreePruneExpire=never)"));
}

// git's own children (a shell alias, a hook, rebase -x) reach the shim through its
// exec-path mirror; a git upgrade adds or moves entries, so the mirror is checked here.
void exec_path_checks(std::vector<Check>& checks, const Patient&)
{
    std::string why;
    if (exec_path_intact(why))
        return checks.push_back(passed("exec_path", "git's own children (shell aliases, hooks, "
                                                    "rebase -x) reach the shim; git --exec-path is git's"));
    checks.push_back(failed("exec_path", why + ": a git started by git itself bypasses the guard",
                            "delete the mirror directory named above; the shim rebuilds it on its next call"));
}

void dir_checks(std::vector<Check>& checks, const Patient& p)
{
    checks.push_back(dirs_check(p.common));
}

void worktree_checks(std::vector<Check>& checks, const Patient& p)
{
    for (const auto& tree : list_worktrees(p.common))
        checks.push_back(
            passed("worktree", tree.path.string() + ": " + tree_state(tree, p.settings)));
}

// Whose install this is, which saves the repository serves, and how many saves there are.
void records_checks(std::vector<Check>& checks, const Patient& p)
{
    checks.push_back(manifest_check(p.common));
    checks.push_back(served_check(p.git, p.common));
    checks.push_back(saves_check(p.common));
    checks.push_back(save_objects_check(p.common));
}

void watch_checks(std::vector<Check>& checks, const Patient& p)
{
    checks.push_back(watcher_check(p.common));
}

void limits_checks(std::vector<Check>& checks, const Patient& p)
{
    Cover c{.locked = p.settings.lock_worktrees};
    for (const auto& check : checks)
        c.shim_on_path = c.shim_on_path || (check.name == "shim_on_path" && check.ok);
    std::error_code ec;
    c.system = fs::is_symlink("/usr/bin/git", ec) && fs::read_symlink("/usr/bin/git", ec).filename() == "git-guard-shim";
    WatchStatus w = watch_status();
    c.watched = w.running && std::find(w.repos.begin(), w.repos.end(), p.common.string()) != w.repos.end();
    c.interval = snapshot_interval(p.common);
    checks.push_back(limits_check(c));
}

// The checks of a guarded repository, in the order doctor prints them. A new check
// (such as the shim's exec-path set-up) is one more entry.
constexpr RepoCheck k_repo_checks[] = {shim_checks,    enabled_checks, hook_checks,
                                       gc_checks,      exec_path_checks, dir_checks,
                                       worktree_checks, records_checks, watch_checks,
                                       limits_checks};

// Whether git itself reads the repository at `here` (a format this git lacks, such as
// reftable before 2.45, is the one failure); throws "not in a repository".
bool repository_check(std::vector<Check>& checks, const Site& here)
{
    if (!here.common.empty()) {
        checks.push_back(passed("repository", "git reads " + here.common.string()));
        return true;
    }
    if (here.why.find("can read:") == std::string::npos)
        here.repository(); // not in a repository at all
    checks.push_back(failed("repository", here.why,
                            "use a git that knows this repository's format (git --version), "
                            "or repair it ('git fsck')"));
    return false;
}

} // namespace

std::vector<Check> diagnose(const Site& here)
{
    std::vector<Check> checks{version_check()};
    std::string git;
    checks.push_back(real_git_check(git));
    checks.push_back(system_install_check());
    if (!repository_check(checks, here)) {
        checks.push_back(limits_check({}));
        return checks;
    }
    Patient patient{git, here, here.common, read_settings(here.common)};
    for (RepoCheck check : k_repo_checks)
        check(checks, patient);
    return checks;
}

} // namespace guard
