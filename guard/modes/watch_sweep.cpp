// The watcher's record of lost tips and the sweep before gc (DESIGN §15): the commits it
// once knew as tips that no ref reaches now, and their saves before gc can prune them.
#include "guard/modes/watch_sweep.hpp"

#include "guard/base/clock.hpp"
#include "guard/base/lock.hpp"
#include "guard/git/git.hpp"
#include "guard/install/watch.hpp"
#include "guard/judge/deletions.hpp"
#include "guard/modes/watch_lost.hpp"
#include "guard/modes/watch_repo.hpp"
#include "guard/save/journal.hpp"
#include "guard/save/kept.hpp"
#include "guard/save/snapshot.hpp"
#include "guard/save/saveref.hpp"

#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace guard {

void record_lost(const fs::path& common, const std::string& oid, const std::string& name)
{
    if (!make_watch_dir(common))
        return;
    std::ofstream out(repo_watch_dir(common) / "lost", std::ios::app);
    out << std::time(nullptr) << " " << oid << " " << name << "\n";
}

namespace {

// The lost record and the watcher's last known tips (a watcher that died knew them).
std::vector<LostCommit> candidates(const fs::path& common)
{
    std::vector<LostCommit> out;
    std::ifstream lost(repo_watch_dir(common) / "lost");
    for (std::string line; std::getline(lost, line);) {
        std::istringstream in(line);
        long long when = 0;
        LostCommit c;
        if (in >> when >> c.oid && std::getline(in >> std::ws, c.name) && is_oid(c.oid))
            out.push_back({c.oid, c.name, utc_iso(static_cast<std::time_t>(when)) + "Z"});
    }
    struct stat st{};
    std::string when = ::stat((repo_watch_dir(common) / "tips").c_str(), &st) != 0
                           ? "unknown"
                           : "after " + utc_iso(st.st_mtime) + "Z (no watcher ran)";
    for (const auto& [oid, name] : known_tips(common))
        out.push_back({oid, name, when});
    return out;
}

} // namespace

std::vector<LostCommit> lost_commits(const fs::path& common)
{
    auto all = candidates(common);
    std::set<std::string> oids;
    for (const auto& c : all)
        oids.insert(c.oid);
    if (oids.empty())
        return {};
    // One walk (the hook's): a candidate is unreachable when no ref, HEAD or per-worktree
    // ref reaches it; a missing object has nothing left to save.
    std::string input;
    for (const auto& oid : oids)
        input += oid + "\n";
    std::vector<std::string> tips;
    RunResult present = Git(common).run({"cat-file", "--batch-check=%(objectname) %(objecttype)"}, input);
    for (const auto& line : split(present.out, '\n'))
        if (line.ends_with(" commit"))
            tips.push_back(line.substr(0, line.find(' ')));
    std::vector<std::string> hide;
    for (const auto& ref : list_refs(common, list_worktrees(common)))
        hide.push_back(ref.oid);
    std::set<std::string> unreachable;
    if (!tips.empty())
        for (const auto& [tip, commits] : unique_commits(Git(common), tips, hide))
            if (!commits.empty())
                unreachable.insert(tip);
    std::vector<LostCommit> out;
    std::set<std::string> shown;
    for (const auto& c : all)
        if (unreachable.count(c.oid) && shown.insert(c.oid).second)
            out.push_back(c);
    return out;
}

int sweep_lost(const fs::path& common, const std::string& reason)
{
    auto lost = lost_commits(common);
    if (lost.empty())
        return 0;
    Settings settings = read_settings(common);
    RefTransaction tx;
    for (const auto& c : lost)
        tx.deletions.push_back({"refs/guard-watch/lost", c.oid});
    int saved = 0;
    for (const auto& v : judge_deletions(common, tx, settings, Clock::now() + std::chrono::seconds(30))) {
        if (v.commits.empty())
            continue;
        auto it = std::find_if(lost.begin(), lost.end(), [&](const LostCommit& c) { return c.oid == v.deletion.old_oid; });
        std::string name = it->name.starts_with("refs/heads/") ? it->name.substr(11) : fs::path(it->name).filename().string();
        try {
            PathLock lock(common, "refs/heads/" + name, settings.lock_timeout);
            if (named_now(common, v.deletion.old_oid))
                continue;
            save_existing(common, name, v.deletion.old_oid, {.reason = reason});
            ++saved;
        } catch (const std::exception& e) {
            spdlog::error("sweep: cannot save {} ({}): {}", name, v.deletion.old_oid, e.what());
        }
    }
    return saved;
}

void sweep_before_gc(const fs::path& common) noexcept
{
    // A kept pack of the chains' history that they no longer all reach goes back to gc.
    release_stale_kept(Git(common));
    try {
        if (int saved = sweep_lost(common, k_sweep_reason))
            std::fprintf(stderr, "git-guard: saved %d lost commit(s) before gc could prune them (git guard list)\n", saved);
    } catch (const std::exception& e) {
        spdlog::error("sweep: {}", e.what()); // gc runs anyway: the sweep is a backstop
    }
}

} // namespace guard
