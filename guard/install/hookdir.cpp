// The hooks directory, found the way git finds it, and the stubs install places there.
// Hooks are files we place and move ourselves: a hook that was there already is renamed,
// never rewritten, so it keeps its bytes, mode, owner, even a symlink.
#include "guard/install/hookdir.hpp"

#include "guard/base/error.hpp"
#include "guard/install/install.hpp"
#include "guard/install/managers.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr const char* k_chained_suffix = ".guard-chained";

} // namespace

fs::path chained_hook(const fs::path& dir, const std::string& name)
{
    return dir / (name + k_chained_suffix);
}

namespace {

// reference-transaction is a copy of the static front end, which git starts directly
// (contract C5), with a sidecar naming the full binary. A copy rather than a link: a front
// end that has gone missing (git-guard removed without `git guard uninstall`) cannot speak,
// and git skips a dangling link in silence; the copy is still there to say so and to refuse
// the branch deletions it can no longer check (issue 8).
void place_front_end(Installation& ctx, const fs::path& hook)
{
    fs::path sidecar = hook.parent_path() / k_hook_sidecar;
    if (!ctx.manifest.find("sidecar", sidecar.string()))
        ctx.record({"sidecar", sidecar.string()});
    write_bytes(sidecar, self_path(), fs::perms(0644)); // one line, no newline
    write_bytes(hook, read_bytes(front_end(k_hook_front)).value_or(""), fs::perms(0755));
}

void write_hook(Installation& ctx, const fs::path& hook, const std::string& name)
{
    if (name == "reference-transaction" && hook_is_front_end())
        return place_front_end(ctx, hook);
    write_bytes(hook, hook_stub(name), fs::perms(0755));
}

// Creates `dir` and records the topmost directory that did not exist before.
void ensure_dir(Installation& ctx, const fs::path& dir)
{
    fs::path top;
    for (fs::path p = dir; p.has_relative_path() && !exists_at_all(p); p = p.parent_path())
        top = p;
    if (top.empty())
        return;
    ctx.record({"dir", top.string()});
    fs::create_directories(dir);
    ctx.say("created the hooks directory " + ctx.display(dir));
}

void refuse_tracked(const std::string& git, const fs::path& root, const fs::path& hook)
{
    auto rel = hook.lexically_relative(root).string();
    if (run({git, "-C", root.string(), "ls-files", "--error-unmatch", "--", rel}).status != 0)
        return;
    throw Error("the hook " + hook.string() +
                " is tracked in the repository; chaining it would "
                "change a tracked file in every worktree. Point core.hooksPath at an untracked "
                "directory (or unset it) and run install again");
}

// A hook manager that reinstalls (husky on every `npm install`, lefthook) writes its hook
// over ours again: the same file we chained already. Only then may it be replaced.
bool rewritten(const fs::path& hook, const fs::path& chained)
{
    std::error_code ec;
    auto a = fs::symlink_status(hook, ec), b = fs::symlink_status(chained, ec);
    return fs::is_regular_file(a) && fs::is_regular_file(b) && a.permissions() == b.permissions() &&
           read_bytes(hook) == read_bytes(chained);
}

// Removes `dir` when it holds nothing but empty directories.
bool remove_if_empty(const fs::path& dir)
{
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (!entry.is_directory(ec) || entry.is_symlink(ec) || !remove_if_empty(entry.path()))
            return false;
    return !ec && fs::remove(dir, ec);
}

} // namespace

// A relative core.hooksPath lies inside the worktree: keep what we add out of
// `git status`, or every tree would look dirty to git and to the guard itself.
void keep_out_of_status(Installation& ctx, const fs::path& root, const fs::path& file)
{
    auto rel = file.lexically_relative(root).string();
    if (rel.starts_with("..") ||
        run({ctx.git, "-C", root.string(), "check-ignore", "-q", "--", rel}).status == 0)
        return; // outside the tree, or ignored already
    fs::path exclude = ctx.site.common / "info" / "exclude";
    auto text = read_bytes(exclude);
    if (!ctx.manifest.find("exclude")) {
        if (text) {
            fs::create_directories(ctx.site.common / "guard" / "backup");
            write_bytes(Manifest::backup(ctx.site.common, "exclude.before"), *text, fs::perms(0644));
        }
        ctx.record({"exclude", text ? "present" : "absent"});
    }
    std::string lines = text.value_or("");
    if (!lines.empty() && lines.back() != '\n')
        lines += '\n';
    fs::create_directories(exclude.parent_path());
    write_bytes(exclude, lines + "/" + rel + "\n");
    ctx.say("excluded /" + rel + " from git status (in info/exclude)");
}

HooksLocation locate_hooks(const std::string& git, const Site& site)
{
    HooksLocation hooks;
    const fs::path& common = site.common;
    auto found = run({git, "--git-dir=" + common.string(), "config", "--show-scope",
                      "--show-origin", "--get", "core.hooksPath"});
    std::istringstream fields(found.out.substr(0, found.out.find('\n')));
    std::getline(fields, hooks.scope, '\t');
    std::getline(fields, hooks.origin, '\t');
    std::getline(fields, hooks.value);
    if (found.status != 0 || hooks.value.empty()) {
        hooks = {{common / "hooks"}, {""}, "", "", ""};
        return hooks;
    }
    // git reads core.hooksPath as a pathname: "~/" is the home directory.
    const char* home = std::getenv("HOME");
    fs::path value = hooks.value.rfind("~/", 0) == 0 && home
                         ? fs::path(home) / hooks.value.substr(2)
                         : fs::path(hooks.value);
    if (value.is_absolute() || site.bare) {
        hooks.dirs = {value.is_absolute() ? value : common / value};
        hooks.roots = {""};
        return hooks;
    }
    // Git runs hooks from the worktree's root, so a relative path means one
    // directory per worktree (git 2.39: `rev-parse --git-path hooks` agrees).
    for (const auto& tree : list_worktrees(common)) {
        if (tree.prunable)
            continue;
        hooks.dirs.push_back(tree.path / value);
        hooks.roots.push_back(tree.path);
    }
    return hooks;
}

void check_hooks_scope(const HooksLocation& hooks, bool force)
{
    if (force || (hooks.scope != "global" && hooks.scope != "system"))
        return;
    throw Error(
        "core.hooksPath=" + hooks.value + " comes from " + hooks.scope + " config (" +
        hooks.origin +
        "): a hook written there would guard every repository of the user. "
        "Set a local core.hooksPath, or run 'git guard install --force' to write there anyway");
}

void check_hook(const std::string& git, const fs::path& dir, const std::string& name,
                const fs::path& root)
{
    fs::path hook = hook_slot(dir, name);
    fs::path chained = chained_hook(dir, name);
    if (name != "reference-transaction" || !hook_is_front_end())
        hook_stub(name); // the template and the front end are there
    else if (::access(front_end(k_hook_front).c_str(), X_OK) != 0)
        throw Error("the hook front end " + front_end(k_hook_front).string() +
                    " is missing; reinstall git-guard");
    if (is_guard_hook(hook, name) || !exists_at_all(hook) || rewritten(hook, chained))
        return;
    if (exists_at_all(chained))
        throw Error(chained.string() + " already exists, so the hook " + hook.string() +
                    " cannot be chained; move one of them away and run install again");
    if (!root.empty())
        refuse_tracked(git, root, hook);
}

void place_hook(Installation& ctx, const fs::path& dir, const std::string& name,
                const fs::path& root)
{
    fs::path hook = hook_slot(dir, name);
    fs::path chained = chained_hook(dir, name);
    std::string where = ctx.display(hook);
    if (is_guard_hook(hook, name)) {
        if (is_current_hook(hook, name))
            return ctx.say("the " + name + " hook is already installed: " + where, false);
        fs::remove(hook);
        write_hook(ctx, hook, name);
        return ctx.say("updated the " + name + " hook: " + where);
    }
    bool had_hook = exists_at_all(hook);
    bool again = had_hook && rewritten(hook, chained);
    ensure_dir(ctx, dir);
    if (!ctx.manifest.find(had_hook ? "chain" : "hook", hook.string()))
        ctx.record({had_hook ? "chain" : "hook", hook.string(), chained.string()});
    // A rename keeps the user's hook as it was: bytes, mode, owner, even a symlink.
    if (again)
        fs::remove(hook);
    else if (had_hook)
        fs::rename(hook, chained);
    write_hook(ctx, hook, name);
    if (!root.empty()) {
        keep_out_of_status(ctx, root, hook);
        if (had_hook)
            keep_out_of_status(ctx, root, chained);
    }
    if (again)
        return ctx.say("put back the " + name + " hook " + where + ": " +
                       "the hook that was written over it is the one already kept as " + name +
                       k_chained_suffix);
    ctx.say("installed the " + name + " hook: " + where +
            (hook.filename() != name ? " (pre-commit's " + name + " hook runs it)" : "") +
            (had_hook
                 ? " (the previous one is kept as " + name + k_chained_suffix + " and still runs)"
                 : ""));
}

namespace {

// Removes our hook at `path` and at the names a manager may have moved it to; the first
// place it was found, or "" when it was nowhere.
fs::path remove_ours(const fs::path& path)
{
    fs::path found;
    std::vector<fs::path> places{path};
    for (const auto& copy : renamed_copies(path))
        places.push_back(copy);
    for (const auto& place : places) {
        if (!is_guard_hook(place, base_hook_name(path)))
            continue;
        fs::remove(place);
        if (found.empty())
            found = place;
    }
    return found;
}

} // namespace

void undo_hook(Installation& ctx, const Record& record)
{
    fs::path path = record[1];
    if (record[0] == "dir") {
        if (remove_if_empty(path))
            ctx.say("removed the directory " + ctx.display(path));
        return;
    }
    if (record[0] == "sidecar") {
        if (fs::remove(path))
            ctx.say("removed " + ctx.display(path));
        return;
    }
    fs::path chained = record.size() > 2 ? fs::path(record[2]) : fs::path(path.string() + k_chained_suffix);
    fs::path found = remove_ours(path);
    bool theirs = record[0] == "chain" && exists_at_all(chained);
    if (found.empty() && theirs && rewritten(path, chained)) {
        // A manager wrote the hook we chained over ours again (husky's `npx husky`): it is
        // back in its place, and the chained copy is a duplicate of it.
        fs::remove(chained);
        return ctx.say("removed " + ctx.display(chained) + ": " + ctx.display(path) +
                       " is that same hook again, written back by its manager");
    }
    if (found.empty() && exists_at_all(path))
        return ctx.say("left " + ctx.display(path) + " alone: it is no longer git-guard's hook" +
                           (theirs ? "; the hook it replaced is kept as " + ctx.display(chained) : ""),
                       false);
    if (!theirs)
        return ctx.say(found.empty() ? "the hook " + ctx.display(path) + " was gone already"
                                     : "removed the hook " + ctx.display(found));
    // The chained hook goes back where ours was last: a manager that moved ours there
    // (lefthook's .old, pre-commit's .legacy) keeps it as it would have kept it itself.
    fs::path back = found.empty() ? path : found;
    fs::rename(chained, back);
    ctx.say("restored the previous hook as " + ctx.display(back) +
            (back == path ? "" : " (where " + back.filename().string() + " keeps it)"));
}

bool guard_hook_runs(const fs::path& dir, const fs::path& root)
{
    const std::string name = "reference-transaction";
    if (is_lefthook_hook(dir / name))
        return !root.empty() && has_lefthook_job(root);
    fs::path hook = hook_slot(dir, name);
    return is_guard_hook(hook, name) && ::access(hook.c_str(), X_OK) == 0;
}

} // namespace guard
