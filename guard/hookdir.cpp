// The hooks directory, found the way git finds it, and the stubs install places there.
// Hooks are files we place and move ourselves: a hook that was there already is renamed,
// never rewritten, so it keeps its bytes, mode, owner, even a symlink.
#include "guard/hookdir.hpp"

#include "guard/error.hpp"
#include "guard/install.hpp"
#include "guard/process.hpp"
#include "guard/repo.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr const char* k_chained_suffix = ".guard-chained";

bool is_ours(const fs::path& hook)
{
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(hook, ec)))
        return false;
    return read_bytes(hook).value_or("").find(hook_marker(hook.filename().string())) !=
           std::string::npos;
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

// A relative core.hooksPath lies inside the worktree: keep what we add out of
// `git status`, or every tree would look dirty to git and to the guard itself.
void keep_out_of_status(Installation& ctx, const fs::path& root, const fs::path& file)
{
    auto rel = file.lexically_relative(root).string();
    if (rel.starts_with("..") ||
        run({ctx.git, "-C", root.string(), "check-ignore", "-q", "--", rel}).status == 0)
        return; // outside the tree, or ignored already
    fs::path exclude = ctx.common / "info" / "exclude";
    auto text = read_bytes(exclude);
    if (!ctx.manifest.find("exclude")) {
        if (text) {
            fs::create_directories(ctx.common / "guard" / "backup");
            write_bytes(Manifest::backup(ctx.common, "exclude.before"), *text, fs::perms(0644));
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

std::string hook_marker(const std::string& hook_name)
{
    return "# git-guard " + hook_name + " hook";
}

std::string hook_stub(const std::string& name)
{
    fs::path exe_dir = fs::path(self_path()).parent_path();
    fs::path path = exe_dir.parent_path() / "share/git-guard/hooks" / name;
    auto stub = read_bytes(path);
    if (!stub)
        throw Error("the hook template " + path.string() +
                    " is missing; reinstall git-guard "
                    "('cmake --install' puts it under share/git-guard/hooks)");
    fs::path front = front_end("git-guard-hook");
    if (::access(front.c_str(), X_OK) != 0)
        throw Error("the hook front end " + front.string() + " is missing; reinstall git-guard");
    const std::string placeholder = "@GUARD_HOOK_FRONT@";
    for (auto at = stub->find(placeholder); at != std::string::npos;
         at = stub->find(placeholder, at))
        stub->replace(at, placeholder.size(), front.string());
    return *stub;
}

HooksLocation locate_hooks(const std::string& git, git_repository* repo)
{
    HooksLocation hooks;
    fs::path common = common_dir(repo);
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
    if (value.is_absolute() || git_repository_is_bare(repo)) {
        hooks.dirs = {value.is_absolute() ? value : common / value};
        hooks.roots = {""};
        return hooks;
    }
    // Git runs hooks from the worktree's root, so a relative path means one
    // directory per worktree (git 2.39: `rev-parse --git-path hooks` agrees).
    for (const auto& tree : list_worktrees(repo)) {
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
    fs::path hook = dir / name;
    fs::path chained = dir / (name + k_chained_suffix);
    hook_stub(name); // the template and the front end are there
    if (is_ours(hook) || !exists_at_all(hook) || rewritten(hook, chained))
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
    fs::path hook = dir / name;
    fs::path chained = dir / (name + k_chained_suffix);
    std::string stub = hook_stub(name);
    if (is_ours(hook)) {
        if (read_bytes(hook) == stub)
            return ctx.say("the " + name + " hook is already installed in " + ctx.display(dir),
                           false);
        write_bytes(hook, stub, fs::perms(0755));
        return ctx.say("updated the " + name + " hook in " + ctx.display(dir));
    }
    bool had_hook = exists_at_all(hook);
    bool again = had_hook && rewritten(hook, chained);
    ensure_dir(ctx, dir);
    if (!ctx.manifest.find(had_hook ? "chain" : "hook", hook.string()))
        ctx.record({had_hook ? "chain" : "hook", hook.string()});
    // A rename keeps the user's hook as it was: bytes, mode, owner, even a symlink.
    if (again)
        fs::remove(hook);
    else if (had_hook)
        fs::rename(hook, chained);
    write_bytes(hook, stub, fs::perms(0755));
    if (!root.empty()) {
        keep_out_of_status(ctx, root, hook);
        if (had_hook)
            keep_out_of_status(ctx, root, chained);
    }
    if (again)
        return ctx.say("put back the " + name + " hook in " + ctx.display(dir) + ": " +
                       "the hook that was written over it is the one already kept as " + name +
                       k_chained_suffix);
    ctx.say("installed the " + name + " hook in " + ctx.display(dir) +
            (had_hook
                 ? " (the previous one is kept as " + name + k_chained_suffix + " and still runs)"
                 : ""));
}

void undo_hook(Installation& ctx, const Record& record)
{
    fs::path path = record[1];
    if (record[0] == "dir") {
        if (remove_if_empty(path))
            ctx.say("removed the directory " + ctx.display(path));
        return;
    }
    fs::path chained = path.string() + k_chained_suffix;
    if (is_ours(path))
        fs::remove(path);
    else if (exists_at_all(path))
        return ctx.say("left " + path.string() + " alone: it is no longer git-guard's hook" +
                           (record[0] == "chain"
                                ? "; the hook it replaced is kept as " + chained.string()
                                : ""),
                       false);
    if (record[0] == "chain" && exists_at_all(chained)) {
        fs::rename(chained, path);
        return ctx.say("restored the previous hook " + ctx.display(path));
    }
    ctx.say("removed the hook " + ctx.display(path));
}

} // namespace guard
