#pragma once
// doctor's view of the backstop (DESIGN §12, §15): what covers the callers that bypass
// the shim and the hook on this machine.
#include "guard/install/doctor.hpp"

#include <filesystem>

namespace guard {

// "watcher": whether the watcher runs and watches the repository at `common`, its
// snapshot interval there, whether git is installed system-wide or on PATH only, and
// which callers each layer covers. Fails when the repository is registered but no
// watcher watches it, or when the watcher polls because inotify's limit is reached.
Check watcher_check(const std::filesystem::path& common);

// "save_objects": no save ref names a missing commit or tree (DESIGN §15); fails with the
// fix `git guard repair` when one does.
Check save_objects_check(const std::filesystem::path& common);

} // namespace guard
