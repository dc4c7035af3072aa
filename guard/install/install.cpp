// git guard install (uninstall.cpp undoes it). Config and worktree locks go through the real git's
// own commands (`git config`, `git worktree lock`) so the files they write are exactly
// what git would write; hooks are placed by guard/hookdir. Every change is recorded in
// the manifest (guard/manifest) before it is made, so uninstall can put back each byte
// even after an install that stopped half way.
#include "guard/install/install.hpp"
#include "guard/install/install_parts.hpp"

#include "guard/base/error.hpp"
#include "guard/install/hookdir.hpp"
#include "guard/install/managers.hpp"
#include "guard/install/privacy.hpp"
#include "guard/install/shimlink.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"
#include "guard/install/watch.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace fs = std::filesystem;

namespace guard {

RunResult git_in(const Installation& ctx, std::vector<std::string> args)
{
    args.insert(args.begin(), {ctx.git, "--git-dir=" + ctx.site.common.string()});
    RunResult r = run(args);
    forget_config(); // install and uninstall change it: later reads ask git again
    return r;
}

void git_checked(const Installation& ctx, const std::vector<std::string>& args)
{
    auto result = git_in(ctx, args);
    if (result.status != 0)
        throw Error("'git " + args[0] + " " + args[1] + "' failed in " + ctx.site.common.string() +
                    ": " + result.err);
}

// A manifest copied with the repository (`cp -a`) names the original's files: load() read
// them as this repository's, and from now on the manifest says whose it is.
void note_copy(Installation& ctx)
{
    if (!ctx.manifest.origin().empty())
        ctx.say("the install manifest was copied from " + ctx.manifest.origin().string() +
                    ": acting on this repository only, never on that one", false);
    auto repo = ctx.manifest.find("repo");
    if (repo && ctx.manifest.origin().empty())
        return;
    ctx.manifest.set_repo(ctx.site.common);
    if (exists_at_all(Manifest::file(ctx.site.common)) || !ctx.manifest.records().empty())
        ctx.manifest.save(ctx.site.common);
}

void Installation::say(std::string line, bool changed)
{
    report.lines.push_back(std::move(line));
    report.changed = report.changed || changed;
}

void Installation::record(Record r)
{
    manifest.add(std::move(r));
    manifest.save(site.common);
}

std::string Installation::display(const fs::path& path) const
{
    auto rel = path.lexically_relative(site.common.parent_path());
    return !rel.empty() && *rel.begin() != ".." ? rel.string() : path.string();
}

namespace {

void set_config(Installation& ctx, const std::string& key, const std::string& value)
{
    auto current = git_in(ctx, {"config", "--local", "--get", key});
    std::string old = current.out.substr(0, current.out.find('\n'));
    if (current.status == 0 && old == value)
        return ctx.say(key + " is already " + value, false);
    if (!ctx.manifest.find("config", key))
        ctx.record({"config", key, current.status == 0 ? "set" : "absent", old});
    git_checked(ctx, {"config", "--local", key, value});
    ctx.say("set " + key + "=" + value);
}

void lock_worktrees(Installation& ctx)
{
    for (const auto& tree : list_worktrees(ctx.site.common)) {
        if (tree.is_main || tree.prunable)
            continue;
        if (tree.locked) {
            ctx.say("worktree " + tree.path.string() + " is already locked", false);
            continue;
        }
        ctx.record({"lock", tree.path.string()});
        git_checked(ctx, {"worktree", "lock", "--reason", k_lock_reason, tree.path.string()});
        ctx.say("locked worktree " + tree.path.string() + " (reason: git-guard)");
    }
}

void check_git(Installation& ctx, const InstallOptions& options)
{
    auto [major, minor] = git_version(ctx.git);
    if (major > 2 || (major == 2 && minor >= 38))
        return;
    std::string lost =
        "git " + std::to_string(major) + "." + std::to_string(minor) + " at " + ctx.git +
        " is older than 2.38 and has no 'merge-tree --write-tree', so git-guard cannot "
        "tell published (rebased or squash-merged) history from unpublished: it would "
        "save every deleted branch whose commits no other ref holds";
    if (!options.force)
        throw Error(lost + ". Upgrade git, or run 'git guard install --force' to accept that");
    ctx.say("warning: " + lost);
}

// A bare hub on git >= 2.54 also runs our hook as a configured hook (`hook.git-guard.*`):
// a pusher's GIT_CONFIG_GLOBAL and ~/.gitconfig reach the hub's receive-pack, and a
// core.hooksPath there switches the hooks directory off, never a configured hook. Both run
// for one transaction: the second finds it judged (front/hook.c, already_judged). Only in
// hubs: elsewhere the shim asks git which hook runs, and a second run costs every update.
void register_configured_hook(Installation& ctx)
{
    auto [major, minor] = git_version(ctx.git);
    if (!ctx.site.top.empty() || major < 2 || (major == 2 && minor < 54))
        return;
    set_config(ctx, "hook.git-guard.event", "reference-transaction");
    set_config(ctx, "hook.git-guard.command", front_end(k_hook_front).string());
}

// `git gc` and `maintenance run` run `git worktree prune` themselves. Through the shim
// that child is guarded (the exec-path mirror); a git that bypasses the shim is not: the
// scheduled maintenance job names the real git, and so do cron and absolute-path callers.
// With gc.worktreePruneExpire=never they prune no worktree (docs/decisions.md, round 5).
void keep_gc_from_pruning(Installation& ctx)
{
    auto effective = git_in(ctx, {"config", "--get", "gc.worktreePruneExpire"});
    std::string was = effective.out.substr(0, effective.out.find('\n'));
    set_config(ctx, "gc.worktreePruneExpire", "never");
    if (was != "never")
        ctx.say("  (" + (effective.status == 0 ? "it was " + was : std::string("it was unset: 3.months.ago")) +
                "; a gc or scheduled maintenance that bypasses the shim would prune the admin entries "
                "of deleted worktrees, and their work, unsaved; uninstall puts it back)",
                false);
}

// The worktree roots whose lefthook config must hold our job: every tree's, once lefthook
// runs the reference-transaction hook of any tree or has a config in any (lefthook reads
// the config of the tree it runs in). None when lefthook is not in use.
std::vector<fs::path> lefthook_roots(const Installation& ctx, const HooksLocation& hooks)
{
    if (ctx.site.bare)
        return {};
    bool lefthook = ctx.manifest.find("lefthook").has_value();
    for (const auto& dir : hooks.dirs)
        lefthook = lefthook || is_lefthook_hook(dir / "reference-transaction");
    std::vector<fs::path> roots;
    for (const auto& tree : list_worktrees(ctx.site.common)) {
        if (tree.prunable)
            continue;
        roots.push_back(tree.path);
        lefthook = lefthook || has_lefthook_config(tree.path);
    }
    return lefthook ? roots : std::vector<fs::path>{};
}

// Whether hook `name` in `dir` is left to lefthook, which runs our job instead.
bool left_to_lefthook(const fs::path& dir, const std::string& name)
{
    return name == "reference-transaction" && is_lefthook_hook(dir / name);
}

// Whether `root` is `tree`, however each is spelled (git registers the path it was given).
bool same_tree(const fs::path& root, const fs::path& tree)
{
    std::error_code ec;
    return !root.empty() && (root == tree || fs::equivalent(root, tree, ec));
}

void place_hooks(Installation& ctx, const HooksLocation& hooks, const std::vector<std::string>& names,
                 const fs::path& only_root = {})
{
    for (size_t i = 0; i < hooks.dirs.size(); ++i) {
        if (!only_root.empty() && !same_tree(hooks.roots[i], only_root))
            continue;
        for (const auto& name : names) {
            if (!left_to_lefthook(hooks.dirs[i], name))
                place_hook(ctx, hooks.dirs[i], name, hooks.roots[i]);
            else
                ctx.say("lefthook runs the " + name + " hook " + ctx.display(hooks.dirs[i] / name) +
                            ": git-guard runs as its job instead",
                        false);
        }
    }
}

} // namespace

std::pair<int, int> git_version(const std::string& git)
{
    auto result = run({git, "--version"});
    int major = 0, minor = 0;
    if (result.status != 0 ||
        std::sscanf(result.out.c_str(), "git version %d.%d", &major, &minor) != 2)
        return {0, 0};
    return {major, minor};
}

namespace {

// The backstop (DESIGN §15): install returns once the watcher watches this repository.
void start_watching(Installation& ctx)
{
    std::string why;
    if (auto pid = start_watcher(ctx.site.common, why))
        ctx.say("the watcher runs (pid " + std::to_string(*pid) + "): what bypasses git's command line is saved too", false);
    else
        ctx.say("could not start the watcher (" + why + "): run 'git guard watch'", false);
}

} // namespace

InstallReport install(const Site& here, const InstallOptions& options)
{
    here.repository(); // outside a repository: the Error says so
    Installation ctx{find_real_git(), here, {}, {}};
    check_git(ctx, options);
    auto hooks = locate_hooks(ctx.git, ctx.site);
    check_hooks_scope(hooks, options.force);
    fs::path link = (options.shim_dir.empty() ? default_shim_dir() : options.shim_dir) / "git";
    check_shim(link);
    std::vector<std::string> names{"reference-transaction", "pre-auto-gc"};
    if (options.lock_worktrees)
        names.push_back("post-checkout");
    for (size_t i = 0; i < hooks.dirs.size(); ++i)
        for (const auto& name : names)
            if (!left_to_lefthook(hooks.dirs[i], name))
                check_hook(ctx.git, hooks.dirs[i], name, hooks.roots[i]);
    bool first = !ctx.manifest.load(ctx.site.common);
    auto lefthook = lefthook_roots(ctx, hooks);
    for (const auto& root : lefthook)
        check_lefthook_job(root);
    // Everything is validated: from here on, each change is recorded before it is made.
    snapshot_config(ctx.site.common, first);
    note_copy(ctx);
    place_hooks(ctx, hooks, names);
    for (const auto& root : lefthook)
        add_lefthook_job(ctx, root);
    set_config(ctx, "guard.enabled", "true");
    keep_gc_from_pruning(ctx);
    hide_saves(ctx);
    register_configured_hook(ctx);
    if (options.lock_worktrees) {
        set_config(ctx, "guard.lockWorktrees", "true");
        lock_worktrees(ctx);
    }
    link_shim(ctx, link);
    keep_installed_config(ctx.site.common);
    start_watching(ctx);
    if (!ctx.report.changed)
        ctx.say("git-guard is already installed in " + ctx.site.common.string() + ": nothing changed",
                false);
    return ctx.report;
}

void guard_new_worktree(const fs::path& tree)
{
    try {
        Installation ctx{find_real_git(), site_at(tree), {}, {}};
        if (!ctx.manifest.load(ctx.site.common))
            return;
        Settings settings = read_settings(ctx.site.common);
        if (!settings.enabled)
            return;
        fs::path root = ctx.site.top.empty() ? tree : ctx.site.top;
        std::vector<std::string> names{"reference-transaction", "pre-auto-gc"};
        bool lock = settings.lock_worktrees;
        if (lock)
            names.push_back("post-checkout");
        auto hooks = locate_hooks(ctx.git, ctx.site);
        // Only a relative core.hooksPath (husky's .husky/_) gives the new tree hooks of its own.
        for (size_t i = 0; i < hooks.dirs.size(); ++i)
            for (const auto& name : names)
                if (same_tree(hooks.roots[i], root) && !left_to_lefthook(hooks.dirs[i], name))
                    check_hook(ctx.git, hooks.dirs[i], name, hooks.roots[i]);
        if (ctx.manifest.find("lefthook"))
            check_lefthook_job(root);
        place_hooks(ctx, hooks, names, root);
        if (ctx.manifest.find("lefthook"))
            add_lefthook_job(ctx, root);
        for (const auto& other : list_worktrees(ctx.site.common))
            if (lock && !other.is_main && !other.locked && same_tree(other.path, root))
                git_checked(ctx, {"worktree", "lock", "--reason", k_lock_reason, root.string()});
    } catch (const std::exception& e) {
        std::fprintf(stderr,
                     "git-guard: the new worktree %s may be unguarded: %s; run 'git guard "
                     "install' there\n",
                     tree.c_str(), e.what());
    }
}

} // namespace guard
