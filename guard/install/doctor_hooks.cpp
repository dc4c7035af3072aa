// doctor's hook checks: git runs hooks from the directory (or directories) core.hooksPath
// and the worktrees name; each must hold git-guard's current hook, executable, with any
// earlier hook chained, or the hook manager that runs it must run ours.
#include "guard/install/doctor_parts.hpp"

#include "guard/base/error.hpp"
#include "guard/base/file.hpp"
#include "guard/install/install.hpp"
#include "guard/install/managers.hpp"

#include <unistd.h>

namespace fs = std::filesystem;

namespace guard {

namespace {

std::string install_fix(const std::string& name)
{
    return "run 'git guard install" +
           std::string(name == "post-checkout" ? " --lock-worktrees'" : "'") +
           " (it keeps any hook that is there and chains it)";
}

// lefthook runs the hook: each tree it runs in must have our job in its local config.
Check lefthook_check(const fs::path& hook, const std::vector<fs::path>& roots,
                     const fs::path& common)
{
    for (const auto& root : roots) {
        if (has_lefthook_job(root) && !has_current_lefthook_job(root, common))
            return failed("hook",
                          "git-guard's job in " + lefthook_local(root).string() +
                              " runs another installation's front end",
                          "run 'git guard install'");
        if (!has_lefthook_job(root))
            return failed("hook",
                          "lefthook runs " + hook.string() + ", and " +
                              lefthook_local(root).string() +
                              " has no git-guard job: branch deletions in " + root.string() +
                              " are not guarded",
                          "run 'git guard install' (it adds the job to lefthook's local config)");
    }
    return passed("hook", "lefthook runs " + hook.string() +
                              ", with git-guard's job in every worktree's " +
                              lefthook_local(roots.empty() ? fs::path() : roots[0]).filename().string());
}

// One hook in one hooks directory: present, executable, ours, current, chain runnable.
// pre-commit's hook runs ours as `<name>.legacy`; lefthook's runs our job.
Check hook_check(const fs::path& dir, const std::string& name, const std::vector<fs::path>& roots,
                 const fs::path& common)
{
    std::string id = name == "post-checkout" ? "lock_hook" : "hook";
    if (name == "reference-transaction" && is_lefthook_hook(dir / name))
        return lefthook_check(dir / name, roots, common);
    fs::path hook = hook_slot(dir, name);
    fs::path chained = chained_hook(dir, name);
    std::string runner = hook.filename() == name ? "" : " (pre-commit's " + name + " hook runs it)";
    std::error_code ec;
    if (!exists_at_all(hook))
        return failed(id, "there is no " + name + " hook in " + dir.string(), install_fix(name));
    if (!is_guard_hook(hook, name))
        return failed(id, hook.string() + " is not git-guard's hook (something replaced it)",
                      install_fix(name));
    if (::access(hook.c_str(), X_OK) != 0)
        return failed(id, hook.string() + " is not executable, so git ignores it",
                      "chmod +x " + hook.string());
    try {
        if (!is_current_hook(hook, name))
            return failed(id, hook.string() + " runs another git-guard installation's front end",
                          install_fix(name));
    } catch (const Error& e) {
        return failed(id, e.what(), k_reinstall);
    }
    bool chain = fs::exists(chained, ec);
    if (chain && ::access(chained.c_str(), X_OK) != 0)
        return failed(
            id, "the chained hook " + chained.string() + " is not executable, so it no longer runs",
            "chmod +x " + chained.string());
    return passed(id, hook.string() + " is git-guard's" + runner +
                          (chain ? ", and runs the previous hook " + chained.filename().string()
                                 : ""));
}

} // namespace

void hook_checks(std::vector<Check>& checks, const Patient& p)
{
    auto hooks = locate_hooks(p.git, p.site);
    const fs::path& common = p.common;
    std::string where = "core.hooksPath=" + hooks.value + " comes from " + hooks.scope +
                        " config (" + hooks.origin + ")";
    bool shared = hooks.scope == "global" || hooks.scope == "system";
    std::string text = read_bytes(hooks.dirs[0] / "reference-transaction").value_or("");
    if (shared && text.find(hook_marker("reference-transaction")) == std::string::npos)
        checks.push_back(failed(
            "hooks_path",
            where + ": git runs hooks from there, not from this repository's hooks directory" +
                (p.site.top.empty()
                     ? "; this hub is unguarded for pushes from this user (receive-pack reads the same config)"
                     : "; a git called through the shim gets git-guard's hook back, a git called by "
                       "absolute path, a push into this repository and the hook-less tools do not"),
            "remove it (git config --" + hooks.scope +
                " --unset core.hooksPath), or guard "
                "every repository of the user with 'git guard install --force'"));
    else if (shared)
        checks.push_back(passed(
            "hooks_path", where + ": git-guard's hook there guards every repository that uses it"));
    else
        checks.push_back(
            passed("hooks_path", hooks.value.empty()
                                     ? "git runs hooks from " + hooks.dirs[0].string()
                                     : "core.hooksPath=" + hooks.value + " (" + hooks.scope + ")"));
    bool lock = p.settings.lock_worktrees;
    std::vector<fs::path> roots;
    for (const auto& tree : list_worktrees(common))
        if (!tree.prunable)
            roots.push_back(tree.path);
    for (size_t i = 0; i < hooks.dirs.size(); ++i) {
        auto trees = hooks.roots[i].empty() ? roots : std::vector<fs::path>{hooks.roots[i]};
        checks.push_back(hook_check(hooks.dirs[i], "reference-transaction", trees, common));
        if (lock)
            checks.push_back(hook_check(hooks.dirs[i], "post-checkout", trees, common));
    }
}

} // namespace guard
