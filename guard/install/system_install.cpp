// The system install: the shim at /usr/bin/git, so that callers that name git by its
// absolute path, cron's PATH=/usr/bin:/bin, sudo's secure_path and services are guarded
// too (DESIGN §15). dpkg owns /usr/bin/git, so the distribution's git is diverted, never
// overwritten: git upgrades then land at the diverted path, where the shim finds them.
#include "guard/install/system_install.hpp"
#include "guard/install/system_parts.hpp"

#include "guard/base/error.hpp"
#include "guard/base/manifest.hpp"
#include "guard/git/git.hpp"
#include "guard/git/process.hpp"
#include "guard/version.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

namespace fs = std::filesystem;

namespace guard {

void say(InstallReport& report, std::string line, bool changed)
{
    report.lines.push_back(std::move(line));
    report.changed = report.changed || changed;
}

bool is_shim_link(const fs::path& path)
{
    std::error_code ec;
    return fs::is_symlink(path, ec) && fs::read_symlink(path, ec).filename() == "git-guard-shim";
}

void link_atomically(const fs::path& link, const fs::path& target)
{
    fs::path temp = link.parent_path() / (".git-guard-link." + std::to_string(::getpid()));
    std::error_code ec;
    fs::remove(temp, ec);
    fs::create_symlink(target, temp);
    fs::rename(temp, link, ec);
    if (ec) {
        fs::remove(temp);
        throw Error("cannot link " + link.string() + " to " + target.string() + ": " + ec.message());
    }
}

namespace {

struct Diversion {
    std::string package; // "LOCAL" for a local diversion (dpkg-divert --local)
    fs::path to;
};

std::string dpkg_divert()
{
    for (const char* at : {"/usr/bin/dpkg-divert", "/usr/sbin/dpkg-divert", "/bin/dpkg-divert"})
        if (::access(at, X_OK) == 0)
            return at;
    return "";
}

// dpkg's own answer, never a parse of its database: who diverts `git`, and where to.
std::optional<Diversion> read_diversion(const std::string& divert, const fs::path& git)
{
    auto package = run({divert, "--listpackage", git.string()});
    auto truename = run({divert, "--truename", git.string()});
    if (package.status != 0 || truename.status != 0)
        throw Error("dpkg-divert cannot read the diversion of " + git.string() + ": " +
                    first_line_of(package.err + truename.err));
    std::string to = first_line_of(truename.out);
    if (first_line_of(package.out).empty() && to == git.string())
        return std::nullopt;
    return Diversion{first_line_of(package.out), to};
}

void require_root(const char* command)
{
    if (::geteuid() != 0)
        throw Error(std::string("'git guard ") + command +
                    " --system' must run as root: it changes /usr/bin/git and dpkg's diversions "
                    "for every user of this machine (run it with sudo); nothing was changed");
}

// /usr/bin/git runs for every user: a shim under a private home would break their git.
void check_shim(const fs::path& shim)
{
    std::string said = first_line_of(run({shim.string(), "--guard-version"}).out);
    if (said != std::string("git-guard-shim ") + GUARD_VERSION)
        throw Error("the shim " + shim.string() + " is missing or not this version (it says '" +
                    said + "'); reinstall git-guard");
    for (fs::path at = fs::canonical(shim); at != at.root_path(); at = at.parent_path()) {
        struct stat st {};
        if (::stat(at.c_str(), &st) != 0 || !(st.st_mode & S_IXOTH))
            throw Error("the shim " + shim.string() + " cannot be run by every user (" +
                        at.string() + " is not executable by others), so /usr/bin/git would "
                        "fail for them; install git-guard where all users can run it "
                        "(installer/install.sh --system installs into /usr/local)");
    }
}

void check_ours(const Diversion& d, const SystemLayout& layout)
{
    if (d.package != "LOCAL")
        throw Error(layout.git.string() + " is diverted by the package " + d.package + " to " +
                    d.to.string() + ": git-guard leaves that diversion alone");
    if (d.to != layout.diverted)
        throw Error(layout.git.string() + " has a local diversion to " + d.to.string() +
                    " that git-guard did not make; remove it first (dpkg-divert --local --rename "
                    "--remove " + layout.git.string() + ")");
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(layout.diverted, ec)))
        throw Error("the distribution's git " + layout.diverted.string() +
                    " is missing; reinstall it first ('apt-get install --reinstall git' puts it "
                    "there while the diversion stands)");
}

void divert_git(InstallReport& report, const std::string& divert, const SystemLayout& layout,
                const fs::path& shim)
{
    std::error_code ec;
    if (!exists_at_all(layout.git) || fs::equivalent(layout.git, shim, ec) || is_shim_link(layout.git))
        throw Error(layout.git.string() + " is " +
                    (exists_at_all(layout.git) ? "the git-guard shim already" : "missing") +
                    ", but no diversion keeps the distribution's git; reinstall git first "
                    "(apt-get install --reinstall git)");
    if (exists_at_all(layout.diverted))
        throw Error(layout.diverted.string() + " exists, but dpkg has no diversion for " +
                    layout.git.string() + "; move it away first");
    // Everything is validated. From here on, a step that fails undoes those before it.
    // A hard link and --no-rename instead of --rename: /usr/bin/git never goes missing.
    if (::link(layout.git.c_str(), layout.diverted.c_str()) != 0)
        throw Error("cannot keep " + layout.git.string() + " as " + layout.diverted.string() + ": " +
                    std::strerror(errno));
    auto added = run({divert, "--local", "--no-rename", "--divert", layout.diverted.string(), "--add",
                      layout.git.string()});
    if (added.status != 0) {
        fs::remove(layout.diverted, ec);
        throw Error("dpkg-divert refused to divert " + layout.git.string() + ": " + first_line_of(added.err));
    }
    try {
        link_atomically(layout.git, shim);
    } catch (const std::exception&) {
        run({divert, "--local", "--no-rename", "--remove", layout.git.string()});
        fs::remove(layout.diverted, ec);
        throw;
    }
    say(report, "diverted " + layout.git.string() + " to " + layout.diverted.string() +
                    " (dpkg-divert --local): the distribution's git, and each upgrade of it, is there");
    say(report, "linked the shim: " + layout.git.string() + " -> " + shim.string());
}

void relink(InstallReport& report, const SystemLayout& layout, const fs::path& shim)
{
    std::error_code ec;
    if (is_shim_link(layout.git) && fs::read_symlink(layout.git, ec) == shim)
        return say(report, layout.git.string() + " is the shim already (-> " + shim.string() + ")", false);
    if (exists_at_all(layout.git) && !is_shim_link(layout.git))
        throw Error(layout.git.string() + " is diverted to " + layout.diverted.string() +
                    " but holds a file that is not the git-guard shim; it was left alone (move it "
                    "away, then run 'git guard install --system' again)");
    bool had = exists_at_all(layout.git);
    link_atomically(layout.git, shim);
    say(report, (had ? "re-pointed the shim: " : "put the missing shim back: ") + layout.git.string() +
                    " -> " + shim.string());
}

} // namespace

InstallReport install_system(const SystemLayout& layout)
{
    require_root("install");
    fs::path shim = front_end("git-guard-shim");
    check_shim(shim);
    std::string divert = dpkg_divert();
    if (divert.empty())
        throw Error("dpkg-divert is missing: a system install diverts /usr/bin/git with Debian's dpkg "
                    "(elsewhere, put the shim first on PATH: git guard install)");
    InstallReport report;
    if (auto d = read_diversion(divert, layout.git)) {
        check_ours(*d, layout);
        relink(report, layout, shim);
    } else {
        divert_git(report, divert, layout, shim);
    }
    place_login(report, layout, shim);
    if (!report.changed)
        say(report, "the system install is in place already: nothing changed", false);
    say(report, "every git on this machine now runs the shim; 'git guard uninstall --system' restores "
                "the distribution's git", false);
    return report;
}

InstallReport uninstall_system(const SystemLayout& layout)
{
    require_root("uninstall");
    InstallReport report;
    std::string divert = dpkg_divert();
    auto d = divert.empty() ? std::nullopt : read_diversion(divert, layout.git);
    if (d) {
        check_ours(*d, layout);
        if (exists_at_all(layout.git) && !is_shim_link(layout.git))
            throw Error(layout.git.string() + " holds a file that is not the git-guard shim; it was "
                        "left alone, and so were " + layout.diverted.string() + " and the diversion");
        // Validated. The distribution's git goes back first (rename: the same file, in one
        // step), then the diversion goes: git is never missing.
        std::error_code ec;
        fs::rename(layout.diverted, layout.git, ec);
        if (ec)
            throw Error("cannot move " + layout.diverted.string() + " back to " + layout.git.string() +
                        ": " + ec.message());
        auto removed = run({divert, "--local", "--no-rename", "--remove", layout.git.string()});
        if (removed.status != 0)
            throw Error("the distribution's git is back at " + layout.git.string() +
                        ", but dpkg-divert kept the diversion: " + first_line_of(removed.err) +
                        "; run 'dpkg-divert --local --no-rename --remove " + layout.git.string() + "'");
        say(report, "restored the distribution's git at " + layout.git.string() + " (from " +
                        layout.diverted.string() + ") and removed the diversion");
    }
    remove_login(report, layout);
    if (!report.changed)
        say(report, "there is no system install here (" + layout.git.string() +
                        " is not diverted by git-guard): nothing changed", false);
    return report;
}

Check system_install_check(const SystemLayout& layout)
{
    std::string divert = dpkg_divert();
    std::optional<Diversion> d;
    try {
        d = divert.empty() ? std::nullopt : read_diversion(divert, layout.git);
    } catch (const Error& e) {
        return {"system_install", false, e.what(), "repair dpkg's database (dpkg --audit)"};
    }
    std::error_code ec;
    bool shim = is_shim_link(layout.git);
    bool runs = shim && fs::exists(layout.git, ec) && ::access(layout.git.c_str(), X_OK) == 0;
    std::string as_root = "as root: " + self_path() + " install --system (puts the shim back), or " +
                          self_path() + " uninstall --system (restores the distribution's git)";
    if (!d || d->package != "LOCAL" || d->to != layout.diverted) {
        if (shim)
            return {"system_install", false,
                    layout.git.string() + " is the git-guard shim, but no diversion keeps the "
                    "distribution's git: a git upgrade overwrites it",
                    "as root: apt-get install --reinstall git, then " + self_path() + " install --system"};
        return {"system_install", true,
                "PATH only: " + layout.git.string() + " is not the shim, so a git called by that path "
                "(cron, sudo, services, env -i) is not guarded ('git guard install --system' as root "
                "covers them)", ""};
    }
    if (!fs::is_regular_file(fs::symlink_status(layout.diverted, ec)))
        return {"system_install", false,
                "broken system install: the distribution's git " + layout.diverted.string() +
                " is missing, so the shim at " + layout.git.string() + " has no git to run",
                "as root: apt-get install --reinstall git (it goes to " + layout.diverted.string() + ")"};
    if (!runs)
        return {"system_install", false,
                "broken system install: " + layout.git.string() + " is diverted to " +
                layout.diverted.string() + " but " + layout.git.string() + " is " +
                (shim ? "a dangling link to " + fs::read_symlink(layout.git, ec).string()
                      : exists_at_all(layout.git) ? "not the git-guard shim" : "missing") +
                ": a git called by that path " + (shim || !exists_at_all(layout.git) ? "fails" : "is not guarded"),
                as_root};
    return {"system_install", true,
            "system install: " + layout.git.string() + " is the git-guard shim (-> " +
            fs::read_symlink(layout.git, ec).string() + "), the distribution's git is " +
            layout.diverted.string() + " (dpkg-divert): callers by absolute path, cron, sudo and "
            "services are guarded", ""};
}

} // namespace guard
