// The shim link (`<shim dir>/git` -> the installed git-guard-shim), the registry of the
// repositories that share it, and where the front ends live (contract C5).
#include "guard/install/shimlink.hpp"

#include "guard/base/error.hpp"
#include "guard/git/process.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

bool same_file(const fs::path& a, const fs::path& b)
{
    std::error_code ec;
    return fs::equivalent(a, b, ec);
}

// The line to print about PATH: whether `git` on the caller's PATH already runs the shim.
std::string path_advice(const fs::path& dir, const fs::path& shim)
{
    fs::path git = first_git_on_path(caller_path());
    if (!git.empty() && same_file(git, shim))
        return dir.string() + " is first on PATH already: git runs the shim";
    return "put the shim first on PATH (add this line to ~/.profile or ~/.bashrc):\n  export "
           "PATH=\"" +
           dir.string() + ":$PATH\"";
}

} // namespace

// The installed shim. A `git` at `link` that is not a git-guard shim is never
// replaced: it may be the user's real git.
fs::path check_shim(const fs::path& link)
{
    fs::path shim = front_end("git-guard-shim");
    if (::access(shim.c_str(), X_OK) != 0)
        throw Error("the shim " + shim.string() + " is missing; reinstall git-guard");
    std::error_code ec;
    bool shim_link =
        fs::is_symlink(link, ec) && fs::read_symlink(link, ec).filename() == "git-guard-shim";
    if (exists_at_all(link) && !shim_link && !same_file(link, shim))
        throw Error(link.string() +
                    " exists and is not the git-guard shim; git-guard never "
                    "replaces a real git. Choose another directory with --shim-dir");
    return shim;
}

void link_shim(Installation& ctx, const fs::path& link)
{
    fs::path shim = check_shim(link);
    if (!ctx.manifest.find("shim", link.string()))
        ctx.record({"shim", link.string()});
    if (same_file(link, shim)) {
        ctx.say("the shim is already linked at " + link.string(), false);
    } else {
        std::error_code ec;
        fs::create_directories(link.parent_path());
        fs::remove(link, ec); // a link to an older installation's shim
        fs::create_symlink(shim, link);
        ctx.say("linked the shim: " + link.string() + " -> " + shim.string());
    }
    fs::path registry = registry_file();
    if (!ctx.manifest.find("registry", registry.string()))
        ctx.record({"registry", registry.string()});
    auto repos = read_registry(registry);
    if (std::find(repos.begin(), repos.end(), ctx.site.common.string()) == repos.end()) {
        repos.push_back(ctx.site.common.string());
        write_registry(registry, repos);
        ctx.say("registered " + ctx.site.common.string() + " in " + registry.string());
    }
    ctx.say(path_advice(link.parent_path(), shim), false);
}

// Drops this repository from the registry; removes the shared link when no other
// registered repository's manifest still names it.
void unlink_shim(Installation& ctx)
{
    auto registry = ctx.manifest.find("registry");
    if (!registry)
        return;
    auto repos = read_registry((*registry)[1]);
    std::erase(repos, ctx.site.common.string());
    repos.empty() ? void(fs::remove((*registry)[1])) : write_registry((*registry)[1], repos);
    for (const auto& record : ctx.manifest.records()) {
        if (record[0] != "shim")
            continue;
        fs::path link = record[1];
        size_t users = std::count_if(repos.begin(), repos.end(), [&](const std::string& other) {
            Manifest theirs;
            return theirs.load(other) && theirs.find("shim", link.string());
        });
        std::error_code ec;
        if (users > 0) {
            ctx.say("kept the shim " + link.string() + ": " + std::to_string(users) +
                        " other guarded repositories use it",
                    false);
        } else if (fs::is_symlink(link, ec) &&
                   fs::read_symlink(link, ec).filename() == "git-guard-shim") {
            fs::remove(link);
            fs::remove(link.parent_path(), ec); // only when empty
            ctx.say("removed the shim " + link.string());
        }
    }
}

fs::path front_end(const char* name)
{
    // Installed: <prefix>/bin/git-guard and <prefix>/libexec/git-guard/<name> (contract C5),
    // where git never looks for subcommands. The build tree has all three in bin/.
    fs::path bin = fs::path(self_path()).parent_path();
    fs::path installed = bin.parent_path() / "libexec/git-guard" / name;
    return exists_at_all(installed) ? installed : bin / name;
}

std::string caller_path()
{
    if (const char* given = std::getenv("GIT_GUARD_CALLER_PATH"))
        return given;
    const char* env = std::getenv("PATH");
    std::string path = env ? env : "";
    // git puts its exec path first on PATH (and in GIT_EXEC_PATH) for the commands it
    // starts, so `git guard doctor` sees /usr/lib/git-core/git first: that entry is git's.
    const char* exec = std::getenv("GIT_EXEC_PATH");
    std::string prefix = exec && *exec ? std::string(exec) : "";
    if (!prefix.empty() && (path == prefix || path.starts_with(prefix + ":")))
        path.erase(0, std::min(path.size(), prefix.size() + 1));
    return path;
}

fs::path first_git_on_path(const std::string& path)
{
    std::istringstream in(path);
    for (std::string entry; std::getline(in, entry, ':');) {
        fs::path git = fs::path(entry.empty() ? "." : entry) / "git";
        std::error_code ec;
        if (::access(git.c_str(), X_OK) == 0 && !fs::is_directory(git, ec))
            return git;
    }
    return {};
}

fs::path default_shim_dir()
{
    if (::geteuid() == 0)
        return "/usr/local/lib/git-guard/bin";
    const char* home = std::getenv("HOME");
    return fs::path(home ? home : "/") / ".local/share/git-guard/bin";
}

fs::path installed_shim_link(const fs::path& common)
{
    Manifest manifest;
    manifest.load(common);
    auto shim = manifest.find("shim");
    return shim ? fs::path((*shim)[1]) : fs::path();
}

} // namespace guard
