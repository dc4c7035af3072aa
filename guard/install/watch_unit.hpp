#pragma once
// The watcher as a systemd user unit (DESIGN §15, lifecycle), for machines that have a
// user session: `git guard watch --enable|--disable`. Without one, install's own start and
// the revival by guarded git calls keep the watcher running; no service manager is needed.

#include <filesystem>
#include <string>

namespace guard {

// `${XDG_CONFIG_HOME:-~/.config}/systemd/user/git-guard-watch.service`.
std::filesystem::path watch_unit_file();

// The unit's text: `git-guard watch --foreground` as `binary` (absolute), for the home
// `home` whose registry it serves, restarted when it fails, not when it ends by itself.
std::string watch_unit_text(const std::filesystem::path& binary, const std::filesystem::path& home);

// Whether `systemctl --user` reaches a user manager here.
bool user_session();

enum class Start { yes, no };

// Writes the unit; with Start::yes also enables and starts it (the watcher started outside
// it is stopped first: one watcher per user). Returns what was done, in a sentence.
// Throws Error when Start::yes and there is no user session, writing nothing.
std::string enable_watch_unit(Start start);

// Disables and stops the unit where a session exists, and removes its file. Returns what
// was done, in a sentence.
std::string disable_watch_unit();

} // namespace guard
