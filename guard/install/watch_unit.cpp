// The watcher's systemd user unit. systemctl is asked, never imitated: whether a session
// exists is `systemctl --user show-environment` reaching the manager, and the unit is
// enabled by its absolute path, so a manager whose search path differs from ours still
// finds it.
#include "guard/install/watch_unit.hpp"

#include "guard/base/error.hpp"
#include "guard/base/manifest.hpp"
#include "guard/git/process.hpp"
#include "guard/install/watch.hpp"

#include <cstdlib>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr const char* k_unit = "git-guard-watch.service";

fs::path home_dir()
{
    const char* home = std::getenv("HOME");
    return home && *home ? fs::path(home) : fs::path("/");
}

RunResult systemctl(std::vector<std::string> args)
{
    args.insert(args.begin(), {"systemctl", "--user"});
    try {
        return run(args);
    } catch (const std::exception& e) {
        return {127, "", e.what()}; // no systemctl at all
    }
}

std::string trimmed(std::string text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    return text;
}

// The git-guard this process is: the unit must run the same binary, by absolute path.
fs::path guard_binary()
{
    fs::path self = self_path();
    return self.filename() == "git-guard" ? self : self.parent_path() / "git-guard";
}

} // namespace

fs::path watch_unit_file()
{
    const char* config = std::getenv("XDG_CONFIG_HOME");
    fs::path base = config && *config && fs::path(config).is_absolute() ? fs::path(config) : home_dir() / ".config";
    return base / "systemd" / "user" / k_unit;
}

namespace {

// systemd expands %-specifiers in both lines: a literal % is %%.
std::string escaped(const fs::path& path)
{
    std::string out;
    for (char c : path.string())
        out += c == '%' ? std::string("%%") : std::string(1, c);
    return out;
}

} // namespace

std::string watch_unit_text(const fs::path& binary, const fs::path& home)
{
    // Restart only on failure: a watcher that ends because no guarded repository is left
    // exits 0 and stays ended; the next install or guarded git call starts one again.
    return "[Unit]\n"
           "Description=git-guard watcher: saves what tools that bypass git's command line destroy\n"
           "Documentation=man:git-guard(1)\n"
           "\n"
           "[Service]\n"
           "Type=simple\n"
           "Environment=\"HOME=" + escaped(home) + "\"\n"
           "ExecStart=\"" + escaped(binary) + "\" watch --foreground\n"
           "Restart=on-failure\n"
           "RestartSec=5\n"
           "\n"
           "[Install]\n"
           "WantedBy=default.target\n";
}

bool user_session()
{
    return systemctl({"show-environment"}).status == 0;
}

std::string enable_watch_unit(Start start)
{
    if (start == Start::yes && !user_session())
        throw Error("there is no systemd user session here (systemctl --user cannot reach a user manager), so no "
                    "unit was installed: git guard install already starts the watcher and every guarded git call "
                    "restarts it if it died (a supervisor of your own can run git guard watch --foreground; "
                    "--enable --no-start writes the unit without starting it)");
    fs::path file = watch_unit_file();
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    write_bytes(file, watch_unit_text(guard_binary(), home_dir()), fs::perms(0644));
    if (start == Start::no)
        return "wrote " + file.string() + " (not enabled: systemctl --user enable --now " + file.string() + ")";
    stop_watcher(); // one watcher per user: the unit's replaces the one install started
    systemctl({"daemon-reload"});
    RunResult r = systemctl({"enable", "--now", file.string()});
    if (r.status != 0)
        throw Error("systemctl --user enable --now " + file.string() + " failed: " + trimmed(r.err) +
                    " (the unit file stays; git guard watch starts the watcher without it)");
    return "enabled and started " + std::string(k_unit) + " (" + file.string() + ")";
}

std::string disable_watch_unit()
{
    fs::path file = watch_unit_file();
    std::error_code ec;
    bool had = fs::exists(file, ec);
    std::string done;
    if (user_session()) {
        RunResult r = systemctl({"disable", "--now", k_unit});
        done = r.status == 0 ? "disabled and stopped " + std::string(k_unit) : "";
    }
    fs::remove(file, ec);
    if (had && user_session())
        systemctl({"daemon-reload"});
    if (!had && done.empty())
        return "no watcher unit was installed (" + file.string() + ")";
    return (done.empty() ? "" : done + "; ") + "removed " + file.string();
}

} // namespace guard
