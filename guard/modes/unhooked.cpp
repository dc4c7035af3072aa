// Ref updates that no git-guard hook would see (DESIGN §2.4, §6). Two cases:
// - the caller switched hooks off for its own call (`-c core.hooksPath=/dev/null`,
//   GIT_CONFIG_COUNT, hook.*.enabled=false…): hooks off is not guard off, so git runs with
//   our hook alone, from a private hooks directory, and the hook judges every ref update
//   of every command, as it does with hooks on; none of the caller's hooks runs;
// - the repository's own configuration lost our hook (core.hooksPath moved after install,
//   another tool's reference-transaction in its place): the user's hooks still run, and
//   the shim judges `branch -d|-D` itself, with the hook's own code, before git runs.
#include "guard/modes/unhooked.hpp"

#include "guard/base/error.hpp"
#include "guard/modes/hook.hpp"
#include "guard/install/hookdir.hpp"
#include "guard/install/install.hpp"
#include "guard/base/log.hpp"
#include "guard/base/manifest.hpp"
#include "guard/judge/orphans.hpp"
#include "guard/git/process.hpp"
#include "guard/git/worktrees.hpp"

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace guard {

namespace {

// Whether git, with the caller's configuration, runs our reference-transaction hook (in
// the hooks directory git named with the call's site). hook.<event>.enabled=false (git
// >= 2.54) switches off the event's configured hooks only, never a hooks-directory hook.
bool our_hook_runs(const GitCall&, const Site& site)
{
    return !site.hooks.empty() && guard_hook_runs(site.hooks, site.top);
}

// Writes `bytes` to `file` through a temporary name: a racing git never runs half a hook.
void replace_file(const fs::path& file, const std::string& bytes, fs::perms mode)
{
    fs::path temp = file.string() + ".tmp." + std::to_string(::getpid());
    write_bytes(temp, bytes, mode);
    fs::rename(temp, file);
}

// `<common>/guard/hooks-only`: git-guard's reference-transaction hook and nothing else: a
// copy of the hook front end, which git starts directly, and its sidecar naming this
// binary (contract C5), as install places it; rewritten when either has changed.
fs::path private_hooks(const fs::path& common)
{
    fs::path dir = common / "guard" / "hooks-only";
    fs::path hook = dir / "reference-transaction";
    std::string front = read_bytes(front_end(k_hook_front)).value_or("");
    if (front.empty())
        throw Error("the hook front end " + front_end(k_hook_front).string() + " is missing; reinstall git-guard");
    if (read_bytes(hook) == front && read_bytes(dir / k_hook_sidecar) == self_path())
        return dir;
    fs::create_directories(dir);
    replace_file(dir / k_hook_sidecar, self_path(), fs::perms(0644));
    replace_file(hook, front, fs::perms(0755));
    return dir;
}

// Names as git branch -D reads them (`@{upstream}`, `@{-1}`): the local branch each means.
std::vector<std::string> local_names(const GitCall& call, const std::vector<std::string>& names)
{
    std::vector<std::string> out;
    for (const auto& name : names) {
        if (name.find('@') == std::string::npos) {
            out.push_back(name);
            continue;
        }
        RunResult r = ask_git(call, {"rev-parse", "-q", "--symbolic-full-name", name, "--"});
        std::string full = r.out.substr(0, r.out.find('\n'));
        if (r.status == 0 && full.starts_with("refs/heads/") && full.size() > 11)
            out.push_back(full.substr(11));
        else if (r.status != 0)
            out.push_back(name); // git names it as it is: judged as it is
    }
    return out;
}

// `call` as the caller gave it (its global options, also those an alias added; git reads
// -c in order, so the last one wins), with git's hooks from `hooks`.
std::vector<std::string> with_hooks_path(const GitCall& call, const std::string& hooks)
{
    std::vector<std::string> argv = {call.real_git, "-C", call.cwd.string()};
    argv.insert(argv.end(), call.globals.begin(), call.globals.end());
    argv.insert(argv.end(), {"-c", "core.hooksPath=" + hooks});
    argv.insert(argv.end(), call.words.begin(), call.words.end());
    return argv;
}

} // namespace

std::vector<std::string> git_argv(const GitCall& call)
{
    std::vector<std::string> argv = call.argv;
    argv[0] = call.real_git;
    if (!call.hooks_off)
        return argv;
    const Site& site = site_of(call);
    if (site.common.empty() || our_hook_runs(call, site))
        return argv;
    fs::path hooks = private_hooks(site.common);
    spdlog::info("the caller's hooks are off: git {} runs with git-guard's hook alone ({})", call.words[0],
                 hooks.string());
    return with_hooks_path(call, hooks.string());
}

namespace {

bool packs_refs(const std::vector<std::string>& words)
{
    if (words.empty())
        return false;
    if (words[0] == "gc")
        return std::find(words.begin(), words.end(), "--auto") == words.end(); // --auto: pre-auto-gc
    return words[0] == "pack-refs" || (words[0] == "refs" && words.size() > 1 && words[1] == "optimize");
}

// Whether the one reference-transaction hook git would run here is ours: at its own slot
// (no hook manager's), with no hook chained behind it, and no hook in the configuration
// (git >= 2.54 runs `hook.<name>.command` whatever core.hooksPath says).
bool our_hook_alone(const GitCall& call, const Site& site)
{
    const std::string name = "reference-transaction";
    if (site.hooks.empty() || !call.config)
        return false;
    for (const auto& [key, value] : *call.config)
        if (key.starts_with("hook.") && !key.starts_with("hook.git-guard."))
            return false;
    fs::path hook = site.hooks / name;
    std::error_code ec;
    if (hook_slot(site.hooks, name) != hook || !is_guard_hook(hook, name) || ::access(hook.c_str(), X_OK) != 0 ||
        fs::exists(chained_hook(site.hooks, name), ec))
        return false;
    auto copies = renamed_copies(hook);
    return std::none_of(copies.begin(), copies.end(), [&](const fs::path& p) { return fs::exists(p, ec); });
}

// Whether git would run no reference-transaction hook at all for `call`: no hook.* key but
// ours, and nothing executable at the slot of the hooks directory git names (a caller's
// core.hooksPath=/dev/null, or gc's own pack-refs child, which inherits gc's).
bool no_hook_runs(const GitCall& call, const Site& site)
{
    if (!call.config)
        return false;
    for (const auto& [key, value] : *call.config)
        if (key.starts_with("hook.") && !key.starts_with("hook.git-guard."))
            return false;
    fs::path hook = site.hooks / "reference-transaction";
    return site.hooks.empty() || ::access(hook.c_str(), X_OK) != 0;
}

} // namespace

std::optional<std::vector<std::string>> packing_argv(const GitCall& call)
{
    if (!packs_refs(call.words))
        return std::nullopt;
    const Site& site = site_of(call);
    // Only when ours is the one hook git would run: `hooks_off` now says only that git's
    // listing for this call names core.hooksPath or a hook.* key, which may be the user's
    // own configured hook (a caller's hooks-off pack-refs runs with our hook alone, per ref).
    if (site.common.empty() || !(our_hook_alone(call, site) || no_hook_runs(call, site)))
        return std::nullopt;
    spdlog::info("git {} packs refs: it runs with hooks off (ours would only pass each pruned ref)", call.words[0]);
    auto argv = with_hooks_path(call, "/dev/null");
    // A hub's configured hook of ours (install.cpp) runs whatever core.hooksPath says.
    argv.insert(argv.end() - static_cast<long>(call.words.size()), {"-c", "hook.git-guard.enabled=false"});
    return argv;
}

int guard_unhooked_deletion(const GitCall& call)
{
    if (call.hooks_off)
        return 0; // git_argv puts our hook back for this call: the hook judges
    std::vector<std::string> branches = deleted_branches(call);
    if (branches.empty())
        return 0;
    const Site& site = site_of(call);
    if (site.common.empty() || our_hook_runs(call, site))
        return 0; // not a repository (git says so itself), or the hook judges
    branches = local_names(call, branches);
    if (branches.empty())
        return 0;
    init_log(site.common, false);
    spdlog::warn("no git-guard hook runs here: the shim judges the deletion of {} itself", branches.front());
    return guard_branch_deletions(site.git_dir, site.common, branches, call.enabled_asked) == 0 ? 0 : 128;
}

} // namespace guard
