// Branch deletions that no git-guard hook would see (DESIGN §6): core.hooksPath moved
// after install, or another tool's reference-transaction hook in place of ours. The shim
// then judges them itself, with the hook's own code, before git runs.
#include "guard/unhooked.hpp"

#include "guard/hook.hpp"
#include "guard/hookdir.hpp"
#include "guard/orphans.hpp"
#include "guard/worktrees.hpp"

#include <spdlog/spdlog.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace guard {

namespace {

// Whether the caller set core.hooksPath for this call itself (`-c`, `--config-env`, or
// git's config environment): the documented way to delete with the guard off.
bool sets_hooks_path(const GitCall& call)
{
    auto names_it = [](std::string text) {
        for (auto& c : text)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return text.find("core.hookspath") != std::string::npos;
    };
    for (size_t i = 0; i < call.globals.size(); ++i) {
        const std::string& g = call.globals[i];
        if ((g == "-c" || g == "--config-env") && i + 1 < call.globals.size() && names_it(call.globals[i + 1]))
            return true;
        if (g.starts_with("--config-env=") && names_it(g))
            return true;
    }
    if (const char* params = std::getenv("GIT_CONFIG_PARAMETERS"); params && names_it(params))
        return true;
    const char* count = std::getenv("GIT_CONFIG_COUNT");
    for (long i = 0, n = count ? std::strtol(count, nullptr, 10) : 0; i < n && i < 1000; ++i)
        if (const char* key = std::getenv(("GIT_CONFIG_KEY_" + std::to_string(i)).c_str()); key && names_it(key))
            return true;
    return false;
}

} // namespace

int guard_unhooked_deletion(const GitCall& call)
{
    std::vector<std::string> branches = deleted_branches(call);
    if (branches.empty() || sets_hooks_path(call))
        return 0; // not a deletion, or the caller turned the hooks off on purpose
    const CallSite& site = call_site(call);
    if (site.common.empty())
        return 0; // not a repository: git says so itself
    RunResult r = ask_git(call, {"rev-parse", "--git-path", "hooks"});
    fs::path dir = r.out.substr(0, r.out.find('\n'));
    if (dir.is_relative())
        dir = call.cwd / dir;
    if (r.status == 0 && guard_hook_runs(dir, site.top))
        return 0;
    spdlog::warn("no git-guard hook runs from {}: the shim judges the deletion of {} itself", dir.string(),
                 branches.front());
    return guard_branch_deletions(site.git_dir, site.common, branches, call.enabled_asked) == 0 ? 0 : 128;
}

} // namespace guard
