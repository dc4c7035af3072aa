// Which git is the real one (process.hpp): found once per run.
#include "guard/git/process.hpp"

#include "guard/base/error.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace guard {

std::string self_path()
{
    std::error_code ec;
    auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        throw Error("cannot find the running executable: " + ec.message());
    return path.string();
}

const std::string& real_git()
{
    static const std::string found = find_real_git();
    return found;
}

std::string find_real_git()
{
    if (const char* forced = std::getenv("GIT_GUARD_REAL_GIT"); forced && *forced)
        return forced;
    struct stat shim {};
    bool have_shim = false;
    // The shim is next to git-guard in the build tree, in libexec/git-guard/ when installed.
    auto dir = std::filesystem::path(self_path()).parent_path();
    for (const auto& at : {dir / "git-guard-shim", dir.parent_path() / "libexec/git-guard/git-guard-shim"})
        have_shim = have_shim || ::stat(at.c_str(), &shim) == 0;
    struct stat self {};
    ::stat("/proc/self/exe", &self);
    const char* path = std::getenv("PATH");
    std::string rest = path ? path : "/usr/bin:/bin";
    for (size_t start = 0; start <= rest.size();) {
        size_t end = rest.find(':', start);
        if (end == std::string::npos)
            end = rest.size();
        std::string candidate = rest.substr(start, end - start);
        candidate = (candidate.empty() ? "." : candidate) + "/git";
        start = end + 1;
        struct stat st {};
        bool found = ::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
                     ::access(candidate.c_str(), X_OK) == 0;
        bool is_shim = found && have_shim && st.st_dev == shim.st_dev && st.st_ino == shim.st_ino;
        bool is_self = found && st.st_dev == self.st_dev && st.st_ino == self.st_ino;
        if (found && !is_shim && !is_self)
            return candidate;
        // A system install's /usr/bin/git is the shim (or, broken, missing); the distribution's
        // git is beside it (docs/install.md, "System install").
        if (std::string diverted = candidate + ".distrib";
            ::stat(diverted.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(diverted.c_str(), X_OK) == 0)
            return diverted;
    }
    throw Error("no real git found on PATH (only the git-guard shim); set GIT_GUARD_REAL_GIT");
}

std::string process_identity(long pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto close = text.rfind(')');
    if (close == std::string::npos)
        return "";
    std::istringstream rest(text.substr(close + 2));
    std::vector<std::string> fields{std::istream_iterator<std::string>(rest), {}};
    return fields.size() > 19 ? std::to_string(pid) + " " + fields[19] : ""; // fields[0] is field 3
}

} // namespace guard
