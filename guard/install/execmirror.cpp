// exec_path_intact: `git guard doctor`'s check of the exec-path mirror the front end
// keeps for git's own children (front/execpath.h). The front end builds the mirror; this
// only asks it where the mirror is and checks it against git's real exec path.
#include "guard/install/execmirror.hpp"

#include "guard/git/process.hpp"

#include <filesystem>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace guard {

namespace {

bool same_file(const fs::path& a, const fs::path& b)
{
    struct stat x {}, y {};
    return ::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev &&
           x.st_ino == y.st_ino;
}

} // namespace

bool exec_path_intact(std::string& why)
{
    // Next to git-guard in the build tree, <prefix>/libexec/git-guard/ when installed (C5).
    fs::path bin = fs::path(self_path()).parent_path();
    fs::path shim = bin / "git-guard-shim";
    std::error_code ec;
    if (!fs::exists(shim, ec))
        shim = bin.parent_path() / "libexec" / "git-guard" / "git-guard-shim";
    if (!fs::exists(shim, ec)) {
        why = "the shim is missing (looked next to git-guard and in ../libexec/git-guard/)";
        return false;
    }
    // An empty GIT_EXEC_PATH is "unset" to git and to the front end: git's own default.
    auto r = run({shim.string(), "--guard-exec-path"}, {.env = {{"GIT_EXEC_PATH", ""}}});
    auto newline = r.out.find('\n');
    if (r.status != 0 || newline == std::string::npos) {
        why = "the shim cannot prepare its exec-path mirror: " + r.err;
        return false;
    }
    fs::path mirror = r.out.substr(0, newline);
    fs::path real = r.out.substr(newline + 1, r.out.find('\n', newline + 1) - newline - 1);
    for (const auto& entry : fs::directory_iterator(real, ec)) {
        std::string name = entry.path().filename().string();
        // git and git-receive-pack lead to the shim (a local push into a guarded repository).
        bool to_shim = name == "git" || name == "git-receive-pack";
        if (!same_file(mirror / name, to_shim ? shim : entry.path())) {
            why = "the exec-path mirror " + mirror.string() +
                  (to_shim ? " has no " + name + " leading to the shim" : " lacks git's " + name);
            return false;
        }
    }
    if (ec || !same_file(mirror / "git", shim)) {
        why = "the exec-path mirror " + mirror.string() + " has no git leading to the shim";
        return false;
    }
    auto printed = run({(mirror / "git").string(), "--exec-path"}, {.env = {{"GIT_EXEC_PATH", mirror.string()}}});
    if (printed.out != real.string() + "\n") {
        why = "git --exec-path through the shim prints '" + printed.out + "', not " + real.string();
        return false;
    }
    return true;
}

} // namespace guard
