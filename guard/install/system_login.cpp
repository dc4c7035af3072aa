// The system install's login-shell entry: /etc/profile.d/git-guard.sh puts the shim first
// on a login shell's PATH too, where another git comes before /usr/bin (docs/install.md).
#include "guard/install/system_parts.hpp"

#include "guard/base/file.hpp"
#include "guard/git/git.hpp"

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr const char* k_profile_marker = "# git-guard system install";
constexpr const char* k_login_key = "git_guard_login=";

fs::path login_dir(const fs::path& shim)
{
    return shim.parent_path().parent_path().parent_path() / "lib/git-guard/login";
}

std::string profile_text(const fs::path& dir)
{
    return std::string(k_profile_marker) +
           " (git guard install --system); 'git guard uninstall --system' removes it.\n"
           "# /usr/bin/git is the git-guard shim already. This puts the shim first on PATH too,\n"
           "# so that a login shell's git is guarded also where another git (/usr/local/bin,\n"
           "# /opt) comes before /usr/bin; the shim then runs that git (docs/install.md).\n" +
           k_login_key + dir.string() +
           "\ncase \":$PATH:\" in\n*\":$git_guard_login:\"*) ;;\n"
           "*) [ -x \"$git_guard_login/git\" ] && PATH=$git_guard_login:$PATH && export PATH ;;\n"
           "esac\nunset git_guard_login\n";
}

} // namespace

void place_login(InstallReport& report, const SystemLayout& layout, const fs::path& shim)
{
    fs::path dir = login_dir(shim);
    std::error_code ec;
    if (fs::read_symlink(dir / "git", ec) != shim) {
        fs::create_directories(dir);
        link_atomically(dir / "git", shim);
        say(report, "linked the shim for login shells: " + (dir / "git").string());
    }
    std::string text = profile_text(dir);
    if (read_bytes(layout.profile) != text) {
        write_bytes(layout.profile, text, fs::perms(0644));
        say(report, "wrote " + layout.profile.string() + ": login shells put " + dir.string() +
                        " first on PATH");
    }
}

// The profile entry and its link, when they are ours.
void remove_login(InstallReport& report, const SystemLayout& layout)
{
    auto text = read_bytes(layout.profile);
    if (!text || !text->starts_with(k_profile_marker))
        return;
    size_t at = text->find(k_login_key);
    fs::path dir = at == std::string::npos
                       ? fs::path()
                       : fs::path(first_line_of(text->substr(at + std::string(k_login_key).size())));
    std::error_code ec;
    if (!dir.empty() && is_shim_link(dir / "git")) {
        fs::remove(dir / "git", ec);
        fs::remove(dir, ec); // only when empty
    }
    fs::remove(layout.profile);
    say(report, "removed " + layout.profile.string() + " and the login shells' shim link");
}

} // namespace guard
