// What covers whom, said plainly: the shim covers git found on PATH, the hook any git that
// runs hooks, the watcher everything else after the fact (commits and the index), and
// snapshots the files as of the last one.
#include "guard/install/watch_doctor.hpp"

#include "guard/base/manifest.hpp"
#include "guard/git/repo.hpp"
#include "guard/install/watch.hpp"
#include "guard/save/repair.hpp"

#include <algorithm>

namespace fs = std::filesystem;

namespace guard {

namespace {

// The system install (DESIGN §15) puts the shim at /usr/bin/git.
bool system_install()
{
    std::error_code ec;
    fs::path git = "/usr/bin/git";
    return fs::is_symlink(git, ec) && fs::read_symlink(git, ec).filename() == "git-guard-shim";
}

std::string coverage(const fs::path& common, bool watched)
{
    long long interval = snapshot_interval(common);
    std::string text = system_install() ? "system install: /usr/bin/git is the shim, so absolute-path callers, "
                                          "sudo, cron and services are guarded before git runs"
                                        : "PATH install only: a git called by absolute path (/usr/bin/git, "
                                          "env -i, sudo, cron) skips the shim";
    text += "; the hook covers every git that runs hooks";
    if (!watched)
        return text + "; libgit2, dulwich, isomorphic-git, hooks off and rm -rf are not covered (no watcher)";
    text += "; libgit2, dulwich, isomorphic-git, hooks off and absolute-path git: a tip or detached HEAD "
            "that loses its last name and a vanished tree's HEAD and index are saved by the watcher";
    text += interval > 0 ? "; files (rm -rf): as of the last snapshot, taken at most every " +
                               std::to_string(interval) + " s (guard.snapshotInterval)"
                         : "; files (rm -rf): not covered, snapshots are off (guard.snapshotInterval=0)";
    return text;
}

} // namespace

Check watcher_check(const fs::path& common)
{
    auto registered = read_registry(registry_file());
    bool listed = std::find(registered.begin(), registered.end(), common.string()) != registered.end();
    WatchStatus s = watch_status();
    bool watched = s.running && std::find(s.repos.begin(), s.repos.end(), common.string()) != s.repos.end();
    std::string state = watched ? "the watcher runs (pid " + std::to_string(s.pid) + ", " +
                                      std::to_string(s.repositories) + " repositories, last event " +
                                      (s.last_event.empty() ? "none" : s.last_event) + ", last snapshot " +
                                      (s.last_snapshot.empty() ? "none" : s.last_snapshot) + ")"
                                : "no watcher watches this repository";
    Check c{"watcher", true, state + "; " + coverage(common, watched), ""};
    if (watched && !s.polling.empty()) {
        c.ok = false;
        c.detail = state + "; " + s.polling + ": it polls the ref store every " +
                   std::to_string(s.snapshot_interval) + " s instead; " + coverage(common, watched);
        c.fix = s.polling.find("max_user_instances") != std::string::npos
                    ? "raise the limit, or end processes holding inotify instances: sysctl fs.inotify.max_user_instances=1024"
                    : "raise the limit: sysctl fs.inotify.max_user_watches=524288";
    } else if (!listed) {
        c.ok = false;
        c.detail = "this repository is not in the watcher's registry (" + registry_file().string() +
                   "), so no watcher will watch it; " + coverage(common, false);
        c.fix = "git guard install";
    } else if (!watched && stopped_by_user()) {
        c.ok = false;
        c.detail = "you stopped the watcher ('git guard watch --stop'): nothing starts it until you do; " +
                   coverage(common, false);
        c.fix = "git guard watch";
    } else if (!watched) {
        c.ok = false;
        c.detail = (s.running ? "the watcher runs (pid " + std::to_string(s.pid) + ") but does not watch this "
                                "repository (it could not read it, or it was made again at this path)"
                              : std::string("no watcher runs")) + "; " + coverage(common, false);
        c.fix = "git guard watch (returns once it watches this repository)";
    }
    return c;
}

Check save_objects_check(const fs::path& common)
{
    std::vector<BrokenSave> broken;
    try {
        broken = broken_saves(common);
    } catch (const std::exception& e) {
        return {"save_objects", false, std::string("the saves' objects cannot be checked: ") + e.what(), ""};
    }
    if (broken.empty())
        return {"save_objects", true, "every save names a commit and tree in the object store", ""};
    std::string detail = std::to_string(broken.size()) + " save(s) name objects not in the store (pruned before "
                         "they were kept: that work is lost), so git log --all fails:";
    for (const auto& b : broken)
        detail += " " + b.ref;
    return {"save_objects", false, detail, "git guard repair"};
}

} // namespace guard
