// `git guard watch`: the backstop's watcher and what it found (DESIGN §15).
#include "guard/cli/cli_watch.hpp"

#include "guard/base/error.hpp"
#include "guard/base/json.hpp"
#include "guard/base/log.hpp"
#include "guard/base/manifest.hpp"
#include "guard/git/repo.hpp"
#include "guard/git/site.hpp"
#include "guard/install/watch.hpp"
#include "guard/install/watch_unit.hpp"
#include "guard/modes/watch_loop.hpp"
#include "guard/modes/watch_sweep.hpp"
#include "guard/save/repair.hpp"

#include <algorithm>
#include <cstdio>

namespace fs = std::filesystem;

namespace guard::cli {

namespace {

int print_status(bool json)
{
    WatchStatus s = watch_status();
    if (json) {
        JsonObject o;
        o.add("running", s.running);
        s.running ? o.add("pid", static_cast<long long>(s.pid)) : o.add_null("pid");
        o.add("repositories", static_cast<long long>(s.repositories))
            .add_raw("last_event", json_or_null(s.last_event))
            .add_raw("last_snapshot", json_or_null(s.last_snapshot))
            .add("snapshot_interval", s.snapshot_interval)
            .add_raw("polling", json_or_null(s.polling));
        std::printf("%s\n", o.str().c_str());
        return s.running ? 0 : 1;
    }
    if (!s.running) {
        std::printf("the watcher is not running (start it: git guard watch)\n");
        return 1;
    }
    std::printf("the watcher runs (pid %ld): %d repositories\n", s.pid, s.repositories);
    std::printf("last event: %s\nlast snapshot: %s\n", s.last_event.empty() ? "none" : s.last_event.c_str(),
                s.last_snapshot.empty() ? "none" : s.last_snapshot.c_str());
    if (!s.polling.empty())
        std::printf("polling every %llds: %s\n", s.snapshot_interval, s.polling.c_str());
    return 0;
}

int print_lost(const Invocation& inv, bool json)
{
    auto common = site_at(inv.cwd).common; // watch is no needs_repo row: --lost and --sweep ask
    auto lost = lost_commits(common);
    for (const auto& c : lost) {
        if (json)
            std::printf("%s\n", JsonObject().add("commit", c.oid).add("source", c.name).add("vanished", c.when).str().c_str());
        else
            std::printf("%s  %s  vanished %s\n", short_id(c.oid).c_str(), c.name.c_str(), c.when.c_str());
    }
    if (lost.empty() && !json)
        std::printf("no commit the watcher knew as a tip is unreachable\n");
    return 0;
}

} // namespace

int run_watch(const Invocation& inv)
{
    po::options_description options(
        "git guard watch [--status [--json] | --stop | --foreground | --lost | --sweep | --enable [--no-start] | --disable]");
    options.add_options()("status", "whether the watcher runs, what it watches, its last event and snapshot")(
        "json", "--status and --lost as JSON")("stop", "stop the running watcher")(
        "foreground", "run the watcher in this process (for a supervisor)")(
        "lost", "commits once known as tips that no ref reaches now, with when they vanished")(
        "sweep", "save the lost commits still at risk (what gc would prune)")(
        "enable", "run the watcher as a systemd user unit (where a user session exists)")(
        "no-start", "with --enable: only write the unit file")("disable", "stop and remove the systemd user unit");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    bool json = vm.count("json") > 0;
    if (vm.count("status"))
        return print_status(json);
    if (vm.count("lost"))
        return print_lost(inv, json);
    if (vm.count("sweep")) {
        auto common = site_at(inv.cwd).common; // watch is no needs_repo row: --lost and --sweep ask
        init_log(common, inv.verbose);
        int saved = sweep_lost(common, k_sweep_reason);
        if (saved)
            std::fprintf(stderr, "git-guard: saved %d lost commit(s) before gc (git guard list)\n", saved);
        return 0;
    }
    if (vm.count("enable") || vm.count("foreground"))
        clear_stop(); // the user starts it
    if (vm.count("enable")) {
        std::printf("%s\n", enable_watch_unit(vm.count("no-start") ? Start::no : Start::yes).c_str());
        return 0;
    }
    if (vm.count("disable")) {
        std::printf("%s\n", disable_watch_unit().c_str());
        return 0;
    }
    if (vm.count("stop")) {
        bool stopped = stop_watcher();
        std::printf("%s\n", stopped ? "stopped the watcher (it stays stopped until 'git guard watch')"
                                     : "no watcher was running (none starts until 'git guard watch')");
        return 0;
    }
    if (vm.count("foreground"))
        return run_watcher();
    std::string why;
    // doctor's fix: a registered repository here is watched again once this returns.
    fs::path here;
    try {
        auto common = site_at(inv.cwd).common;
        auto registered = read_registry(registry_file());
        if (std::find(registered.begin(), registered.end(), common.string()) != registered.end())
            here = common;
    } catch (const Error&) {
        // Outside a repository: start it for the registry only.
    }
    clear_stop(); // the user starts it: a stop of theirs ends here
    auto pid = start_watcher(here, why);
    if (!pid)
        throw Error("cannot start the watcher: " + why);
    std::printf("the watcher runs (pid %ld)\n", *pid);
    return 0;
}

int run_repair(const Invocation& inv)
{
    po::options_description options("git guard repair");
    options.add_options()("dry-run", "name the saves that name pruned objects, remove nothing");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    init_log(inv.site.common, inv.verbose);
    auto broken = broken_saves(inv.site.common);
    if (broken.empty()) {
        std::printf("every save names objects in the store: nothing to repair\n");
        return 0;
    }
    for (const auto& b : broken)
        std::printf("%s names %s, which was pruned: its work is lost\n", b.ref.c_str(), b.oid.c_str());
    if (vm.count("dry-run"))
        return 1;
    size_t removed = remove_broken(inv.site.common, broken, "repair");
    std::printf("removed %zu broken save ref(s) (journaled: git guard log)\n", removed);
    return removed == broken.size() ? 0 : 1;
}

} // namespace guard::cli
