// The shim's worktree commands (DESIGN §6): `worktree remove` and `prune` save what
// git would destroy, then git runs; `worktree add` saves a tree it replaces and locks a
// tree it makes without checkout. Which trees go is git's answer (worktrees.hpp).
#include "guard/modes/shim_worktree.hpp"

#include "guard/base/error.hpp"
#include "guard/base/lock.hpp"
#include "guard/base/log.hpp"
#include "guard/git/arguments.hpp"
#include "guard/git/config.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"
#include "guard/git/worktrees.hpp"
#include "guard/install/install.hpp"
#include "guard/modes/removal.hpp"
#include "guard/modes/unhooked.hpp"
#include "guard/save/journal.hpp"
#include "guard/save/report.hpp"
#include "guard/save/snapshot.hpp"
#include "guard/save/saveref.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <optional>
#include <string_view>

namespace fs = std::filesystem;

namespace guard {

[[noreturn]] void exec_git(const GitCall& call)
{
    // The hook of this git reads the settings the front end listed (one config read per
    // guarded command, issue 17), when it runs for this same tree and nothing changed them.
    if (call.config && call.site && !call.hooks_off && !call.site->git_dir.empty())
        hand_config_down(call.site->git_dir, *call.config);
    exec(git_argv(call));
}

bool config_true(const GitCall& call, const std::string& key)
{
    auto r = ask_git(call, {"config", "--bool", key});
    return r.status == 0 && r.out == "true\n";
}

namespace {

void report_saved(const Saved& s, const std::string& what)
{
    std::fprintf(stderr, "git-guard: %s %s to %s (%s)\n",
                 s.existing ? "already saved" : "saved", what.c_str(),
                 short_ref(s.ref).c_str(), restore_hint(s.ref).c_str());
}

int refuse(const Work& w, const std::string& why)
{
    std::fprintf(stderr, "fatal: git-guard: %s", refusal_message(w, why).c_str());
    spdlog::warn("refused to let git run on {}: {}", w.path, why);
    journal_refusal({}, w, why, "git worktree");
    return 128;
}

// The tree `git worktree remove <arg>` names: the last non-option word after "remove".
std::string remove_target(const std::vector<std::string>& words)
{
    std::string path;
    bool options = true;
    for (size_t i = 2; i < words.size(); ++i) {
        if (options && words[i] == "--")
            options = false;
        else if (!options || words[i].empty() || words[i][0] != '-')
            path = words[i];
    }
    return path;
}

// Saves what only the admin entry of the gone tree `tree` still holds (its commits, and
// its files when a moved-aside directory still points at it).
int save_admin(const GitCall& call, const ListedTree& tree, const std::string& reason)
{
    fs::path common = site_of(call).repository();
    Settings settings = read_settings(common);
    for (const auto& t : list_worktrees(common)) {
        if (t.name != tree.name)
            continue;
        PathLock lock(common, t.path.string(), settings.lock_timeout);
        Work work;
        work.path = t.path.string();
        try {
            work = inspect_admin(common, t, settings);
            if (auto s = save_work(common, work, t.path.filename().string(), settings, {.reason = reason}))
                report_saved(*s, "the work of " + t.path.string());
            return 0;
        } catch (const Error& e) {
            return refuse(work, e.what());
        }
    }
    return 0; // git no longer lists it either: nothing left to destroy
}

// Saves what removing or pruning `tree` destroys (DESIGN §4.1). A tree whose directory
// is gone goes to the engine first (it looks for a moved-aside directory), then, when the
// engine cannot open it, to its admin entry's commits.
// `trees`: git's list, read under a lock this caller holds for the tree (none: read here).
int save_listed(const GitCall& call, const ListedTree& tree, const std::string& reason,
                const std::vector<ListedTree>* trees = nullptr)
{
    bool gone = tree.git_prunable || !fs::exists(tree.path);
    SaveResult r;
    try {
        fs::path common = site_of(call).repository();
        r = save_tree(common, read_settings(common), tree.path, {.reason = reason}, trees);
    } catch (const Error& e) {
        if (gone)
            return save_admin(call, tree, reason);
        // Another remover may have taken this tree meanwhile: only this tree counts.
        bool listed = false;
        for (const auto& t : list_trees(call))
            listed = listed || absolute_path(t.path) == absolute_path(tree.path);
        if (!listed)
            return 0;
        throw;
    }
    if (!r.refused.empty())
        return refuse(r.work, r.work.reason);
    if (r.saved)
        report_saved(*r.saved, tree.path.string());
    return 0;
}

// How many times `git worktree remove` is forced (-f, --force, clusters; --no-force
// counts again from none), as git's parse-options counts them.
int force_count(const std::vector<std::string>& words)
{
    int force = 0;
    for (size_t i = 2; i < words.size() && words[i] != "--"; ++i) {
        const std::string& w = words[i];
        if (w.size() > 2 && w.starts_with("--"))
            force = std::string_view("--force").starts_with(w)      ? force + 1
                    : std::string_view("--no-force").starts_with(w) ? 0
                                                                    : force;
        else if (w.size() > 1 && w[0] == '-' && w.find_first_not_of('f', 1) == std::string::npos)
            force += static_cast<int>(w.size() - 1);
    }
    return force;
}

// Whether `dir` is `tree` or inside it.
bool inside(const fs::path& dir, const fs::path& tree)
{
    std::string d = absolute_path(dir).string() + "/", t = absolute_path(tree).string() + "/";
    return d.starts_with(t);
}

// The root of the tree `git worktree remove <arg>` names, for its lock: an absolute path
// to a tree root is its own answer (git's suffix match finds only it); anything else is
// git's list's. Nothing when git would find no tree, or the main one.
std::optional<fs::path> remove_key(const GitCall& call, const std::string& arg)
{
    std::error_code ec;
    if (fs::path(arg).is_absolute() && fs::exists(fs::path(arg) / ".git", ec))
        return absolute_path(arg);
    auto tree = find_listed(list_trees(call), call, arg);
    if (!tree || tree->is_main)
        return std::nullopt;
    return absolute_path(tree->path);
}

// `git worktree remove`, at any force level (DESIGN §0.2): save, then let git decide.
int guard_remove(const GitCall& call)
{
    std::string arg = remove_target(call.words);
    auto key = arg.empty() ? std::nullopt : remove_key(call, arg);
    if (!key)
        exec_git(call); // git refuses or reports it itself
    // Held until the git that removes is done (a child below; an exec, which the descriptor
    // survives, where git is left to refuse): racers removing this tree wait until git has
    // removed it, then find it gone. Only this tree's lock.
    fs::path common = site_of(call).repository();
    Settings settings = read_settings(common);
    std::vector<PathLock> removing;
    removing.emplace_back(common, removal_lock_key(*key), settings.lock_timeout);
    // Re-read once the lock is held (DESIGN §7); the save judges by this very list.
    std::vector<ListedTree> trees = list_trees(call);
    auto tree = find_listed(trees, call, arg);
    if (tree && !tree->is_main && absolute_path(tree->path) != *key) { // git means another tree
        removing.emplace_back(common, removal_lock_key(absolute_path(tree->path)), settings.lock_timeout);
        trees = list_trees(call);
        tree = find_listed(trees, call, arg);
    }
    if (!tree || tree->is_main)
        exec_git(call); // another process removed it while we waited, or git refuses itself
    bool ours = tree->locked && tree->lock_reason == "git-guard" && settings.lock_worktrees;
    // Held from before the save until git is done: nothing committed, staged or written in
    // the tree after the save can be lost with it. Moved aside only when git deletes it
    // whatever it holds (with no --force git judges the files where they are).
    int force = force_count(call.words);
    bool aside = force >= 1 && (!tree->locked || ours || force >= 2) && !inside(call.cwd, tree->path);
    RemovalHold hold(*tree, aside, std::min(settings.lock_timeout, std::chrono::seconds(5)));
    if (hold.moved())
        for (auto& t : trees)
            t.prunable = t.prunable || t.name == tree->name; // its files are aside now
    if (int rc = save_listed(call, *tree, "worktree remove", &trees))
        return rc;
    if (hold.interrupted())
        return 130; // the tree goes back where it was, then the signal ends this process
    if (ours)
        ask_git(call, {"worktree", "unlock", tree->path.string()});
    // Point of no return: the work is on a verified branch; git removes the tree.
    auto r = run(git_argv(call), {.capture = false, .judged = true});
    fs::path moved_to;
    Outcome outcome = r.status == 0 ? hold.removed(common, moved_to) : Outcome::removed;
    if (outcome == Outcome::moved)
        std::fprintf(stderr, "git-guard: could not delete %s; moved it whole to %s\n", tree->path.c_str(),
                     moved_to.c_str());
    else if (outcome == Outcome::kept)
        std::fprintf(stderr, "git-guard: could not delete %s; its files are left at %s\n", tree->path.c_str(),
                     moved_to.c_str());
    return outcome == Outcome::kept ? 1 : r.status;
}

// `git worktree prune`: save every tree git itself says it would prune.
int guard_prune(const GitCall& call)
{
    if (parse_arguments(call.words, 2, GUARD_TABLE(worktree_prune)).has("dry-run"))
        exec_git(call); // the last of -n and --no-dry-run is git's
    for (const auto& tree : prune_candidates(call))
        if (int rc = save_listed(call, tree, "worktree prune"))
            return rc;
    exec_git(call);
}

// `add -f` over a tree git still lists (its directory gone or empty) deletes that tree's
// admin entry, its HEAD and index (git's check_candidate_path): save it first, as a prune.
int save_replaced(const GitCall& call, const fs::path& path)
{
    fs::path wanted = absolute_path(path.is_absolute() ? path : call.cwd / path);
    for (const auto& tree : list_trees(call))
        if (!tree.is_main && absolute_path(tree.path) == wanted)
            return save_listed(call, tree, "worktree add -f");
    return 0;
}

// `git worktree add --no-checkout` runs no post-checkout hook: lock the tree here.
int guard_add(const GitCall& call)
{
    bool no_checkout = false, force = false;
    std::string path;
    for (size_t i = 2; i < call.words.size(); ++i) {
        const std::string& w = call.words[i];
        if (w == "--no-checkout")
            no_checkout = true;
        else if (w == "-b" || w == "-B" || w == "--reason")
            ++i;
        else if (w.size() > 2 && w.starts_with("--") && std::string_view("--force").starts_with(w))
            force = true;
        else if (w.size() > 1 && w[0] == '-' && w[1] != '-' && w.find('f') != std::string::npos &&
                 w.find_first_of("bB") > w.find('f'))
            force = true; // -f, or a cluster holding it before a value-taking -b/-B
        else if (path.empty() && !w.empty() && w[0] != '-')
            path = w;
    }
    if (path.empty())
        exec_git(call);
    if (force)
        if (int rc = save_replaced(call, path))
            return rc;
    auto r = run(git_argv(call), {.capture = false, .judged = true});
    if (r.status == 0 && no_checkout && config_true(call, "guard.lockWorktrees"))
        ask_git(call, {"worktree", "lock", "--reason", "git-guard", path});
    if (r.status == 0) // the new tree's hooks (husky's .husky/_ is missing there), lefthook job
        guard_new_worktree(call.cwd / path);
    return r.status;
}

} // namespace

int guard_worktree(const GitCall& call)
{
    init_log(site_of(call).repository(), false);
    spdlog::info("shim: git worktree");
    const std::string& what = call.words.size() > 1 ? call.words[1] : "";
    if (what == "remove")
        return guard_remove(call);
    if (what == "prune")
        return guard_prune(call);
    if (what == "add")
        return guard_add(call);
    exec_git(call);
}

} // namespace guard
