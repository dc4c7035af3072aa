#pragma once
// Running nothing of the repository's (DESIGN §4.1.1, §15). A repository's config names
// programs git runs on its own: clean and smudge filters, a core.fsmonitor command, hooks.
// A save adds none of them to what the user's command runs, and a process that acts on no
// user command's behalf (the watcher) runs none of them at all.

#include <filesystem>
#include <string>

namespace guard {

// This process acts on no user command's behalf (the watcher): every git the Git class
// runs from now on is quiet, and guard.onSave is read from the user's own config only.
void act_unattended();
bool unattended();

// The GIT_CONFIG_PARAMETERS entries ('key'='value', space-separated) that keep a git in
// the repository whose common dir is `common` from running its programs: every configured
// filter driver emptied (`filter.<x>.process=`, which git reads before `clean` and
// `smudge`, and not required), `core.fsmonitor` off unless it names git's own daemon
// (`true`), the post-index-change hook off (git >= 2.54's configured hooks; hooksPath
// covers the rest). Appended after a caller's own, so its `-c` cannot turn them back on.
std::string quiet_parameters(const std::filesystem::path& common);

} // namespace guard
