// The watcher's saves: the hook's judgement (judge_deletions) on what lost its last name,
// and save_existing / write_save for the save itself, so a watcher save is listed, shown,
// logged, notified and restored like any other; only its Stranded-Reason differs.
#include "guard/modes/watch_lost.hpp"

#include "guard/base/clock.hpp"
#include "guard/base/error.hpp"
#include "guard/judge/deletions.hpp"
#include "guard/save/journal.hpp"
#include "guard/save/layout.hpp"
#include "guard/base/lock.hpp"
#include "guard/git/git.hpp"
#include "guard/git/repo.hpp"
#include "guard/save/snapshot.hpp"
#include "guard/install/watch.hpp"
#include "guard/modes/watch_repo.hpp"
#include "guard/modes/watch_sweep.hpp"
#include "guard/judge/work.hpp"
#include "guard/save/repair.hpp"
#include "guard/save/saveref.hpp"

#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace guard {

namespace {

// `git guard discard` deletes a branch and journals it under the branch's lock: a discard
// of this very commit since the watcher last saw it alive is the user letting it go. A
// drop (of a save) or an older discard is not: the commit may have come back since.
bool discarded(const fs::path& common, const LostTip& t)
{
    if (t.oid.empty() || t.seen.empty())
        return false;
    for (const auto& e : read_journal(common))
        if (e.event.kind == "discard" && e.event.commit == t.oid && e.time >= t.seen)
            return true;
    return false;
}

// The tree of the watcher's copy of a vanished tree's index ("" when there is none).
std::string index_tree_of(const Git& git, const LostTip& t)
{
    std::error_code ec;
    if (t.index.empty() || !fs::exists(t.index, ec))
        return "";
    RunResult r = git.with_index(t.index).run({"write-tree"});
    return r.status == 0 ? first_line_of(r.out) : "";
}

// Whether a save holds exactly what the watcher last knew of a vanished tree: its HEAD
// and its index (a layout-2 save's Stranded-Head and Stranded-Index-Tree, or a save of
// HEAD itself when the index was HEAD's). A path or a time is never the test.
bool tree_held(const Git& git, const LostTip& t, const std::string& index_tree, const std::string& head_tree)
{
    RunResult r = git.run({"for-each-ref",
                           "--format=%(objectname)%00%(trailers:key=Stranded-Head,valueonly,separator=)%00"
                           "%(trailers:key=Stranded-Index-Tree,valueonly,separator=)%00",
                           "refs/heads/stranded/", "refs/stranded/"});
    if (r.status != 0)
        return false; // unreadable saves hold nothing for sure: save
    auto f = split(r.out);
    for (size_t i = 0; i + 2 < f.size(); i += 3) {
        std::string commit = f[i].starts_with("\n") ? f[i].substr(1) : f[i];
        bool itself = commit == t.oid && (index_tree.empty() || index_tree == head_tree);
        bool layout = f[i + 1] == (t.oid.empty() ? "unborn" : t.oid) && (index_tree.empty() || f[i + 2] == index_tree);
        if (itself || layout)
            return true;
    }
    return false;
}

std::string save_name(const LostTip& t)
{
    return t.ref.starts_with("refs/heads/") ? t.ref.substr(11) : fs::path(t.path).filename().string();
}

// A vanished admin entry: its HEAD, and its index as the copy the watcher kept (the
// staged blobs are in the object store), as a save commit when the index differs from HEAD.
std::string save_tree(const fs::path& common, const LostTip& t, const std::vector<std::string>& commits,
                      const Settings& settings)
{
    Git git(common);
    std::string branch = t.branch_ref.starts_with("refs/heads/") ? t.branch_ref.substr(11) : "";
    SaveOptions options{.reason = k_watch_reason, .path = t.path, .branch = branch};
    std::string head_tree = t.oid.empty() ? git.empty_tree()
                                          : first_line_of(git.out({"rev-parse", t.oid + "^{tree}"}, "read HEAD's tree"));
    std::string index_tree = index_tree_of(git, t);
    if (tree_held(git, t, index_tree, head_tree))
        return ""; // the shim's or the hook's save holds it already
    if (index_tree.empty() || index_tree == head_tree)
        return commits.empty() ? "" : save_existing(common, save_name(t), t.oid, options).ref;
    Work w;
    w.path = t.path;
    w.branch = branch;
    if (!t.oid.empty())
        w.head = t.oid;
    w.commits = commits;
    for (const auto& path : split(git.out({"diff-tree", "-r", "-z", "--name-only", head_tree, index_tree}, "diff the index")))
        w.changes.push_back({path, ChangeKind::staged});
    std::string commit = write_save(git, w, {index_tree, index_tree, {}}, settings, k_watch_reason);
    options.tree = index_tree;
    return save_existing(common, save_name(t), commit, options).ref;
}

// The hook's judgement (§4.2) of each tip: the deleted ones in one pass; a moved one on
// its own, with its new value as one more base, as the hook judges a rewrite (a rebase or
// an amend whose new tip holds the old content saves nothing).
std::map<std::string, std::vector<std::string>> judge_as_hook(const fs::path& common,
                                                              const std::vector<LostTip>& lost,
                                                              const Settings& settings)
{
    std::map<std::string, RefTransaction> passes; // new value ("" for the deleted) -> its tips
    for (const auto& t : lost)
        if (!t.oid.empty() && (!t.ref.empty() || t.branch_ref.empty()))
            passes[t.now].deletions.push_back({t.ref.empty() ? "refs/guard-watch/HEAD" : t.ref, t.oid});
    std::map<std::string, std::vector<std::string>> at_risk;
    for (auto& [now, tx] : passes) {
        Settings with = settings;
        if (!now.empty())
            with.base_refs.push_back(now);
        for (const auto& v : judge_deletions(common, tx, with, Clock::now() + std::chrono::seconds(30)))
            if (!v.commits.empty())
                at_risk[v.deletion.old_oid] = v.commits;
    }
    return at_risk;
}

// The hook's judgement (§4.2) of each tip, in one rev-list walk against what the watcher's
// read found named (`known`): a lost tip's commits that no ref or HEAD holds. The published
// check has candidates only where remote-tracking refs or guard.baseRef exist (a deleted
// branch has no upstream left to list); a moved tip has its new value as one more base, as
// the hook judges a rewrite. A walk git refuses (a missing object) is judged the hook's way.
std::map<std::string, std::vector<std::string>> judge(const fs::path& common, const std::vector<LostTip>& lost,
                                                      const Settings& settings, const KnownRefs& known)
{
    std::vector<std::string> tips;
    for (const auto& t : lost)
        if (!t.oid.empty() && (!t.ref.empty() || t.branch_ref.empty()))
            tips.push_back(t.oid);
    std::map<std::string, std::vector<std::string>> at_risk;
    try {
        at_risk = unique_commits(Git(common), tips, known.holders);
    } catch (const Error& e) {
        spdlog::info("watch: judging {} the hook's way: {}", common.string(), e.what());
        return judge_as_hook(common, lost, settings);
    }
    std::erase_if(at_risk, [](const auto& entry) { return entry.second.empty(); });
    if (at_risk.empty())
        return at_risk;
    bool moved = std::any_of(lost.begin(), lost.end(), [](const LostTip& t) { return !t.now.empty(); });
    if (!known.remotes && settings.base_refs.empty() && !moved)
        return at_risk;
    PublishedCheck published(common, settings);
    for (const auto& t : lost) {
        if (!at_risk.count(t.oid))
            continue;
        std::string branch = t.ref.starts_with("refs/heads/") ? t.ref.substr(11) : "";
        if (published(t.oid, branch) || (is_oid(t.now) && published.contained(t.oid, t.now)))
            at_risk.erase(t.oid);
    }
    return at_risk;
}

} // namespace

bool named_now(const fs::path& common, const std::string& oid)
{
    RunResult r = Git(common).run({"for-each-ref", "--count=1", "--format=%(refname)", "--points-at", oid});
    return r.status == 0 && !r.out.empty();
}

namespace {

// One lost tip, under its lock: read again what the hook, the sweep or a discard did
// meanwhile, then save.
// Returns the save ref written ("" when none was due).
std::string save_one(const fs::path& common, const LostTip& t, const std::vector<std::string>& commits,
                     const Settings& settings)
{
    PathLock lock(common, t.ref.empty() ? t.path : t.ref, settings.lock_timeout);
    if (discarded(common, t) || (!t.gone && named_now(common, t.oid)))
        return "";
    if (!commits.empty())
        record_lost(common, t.oid, save_name(t));
    if (t.gone)
        return save_tree(common, t, commits, settings);
    return save_existing(common, save_name(t), t.oid,
                         {.reason = k_watch_reason, .path = t.ref.empty() ? t.path : "",
                          .branch = t.ref.empty() ? "" : save_name(t)})
        .ref;
}

// A save that lost the race to a prune (its commit or tree is gone) is removed and
// journaled as lost, never left as a ref that breaks `git log --all`.
void prove_kept(const fs::path& common, const std::vector<std::string>& refs)
{
    if (refs.empty())
        return;
    try {
        remove_broken(common, broken_saves(common, refs), k_watch_reason);
    } catch (const std::exception& e) {
        spdlog::error("watch: cannot check the saves just written in {}: {}", common.string(), e.what());
    }
}

// Every lost branch tip of one event saved in one transaction and one read-back (LESSONS
// 29: per operation, not per item), under all their locks at once, after one read of the
// refs and one of the journal. Returns the indexes of `lost` it settled or saved; none
// when there are fewer than two, or the batch cannot be written as one (each is then
// saved on its own).
std::set<size_t> save_batch(const fs::path& common, const std::vector<LostTip>& lost,
                            const std::map<std::string, std::vector<std::string>>& at_risk, const Settings& settings,
                            std::vector<std::string>& written)
{
    std::set<std::string> keys;
    for (const auto& t : lost)
        if (!t.gone && !t.ref.empty() && at_risk.count(t.oid))
            keys.insert(t.ref);
    if (keys.size() < 2)
        return {};
    std::vector<PathLock> locks;
    for (const auto& key : keys) // sorted: two batches never wait on each other in a cycle
        locks.emplace_back(common, key, settings.lock_timeout);
    std::set<std::string> named;
    for (const auto& oid : split(Git(common).out({"for-each-ref", "--format=%(objectname)"}, "list the refs"), '\n'))
        named.insert(oid);
    std::set<size_t> handled;
    std::vector<NamedTip> tips;
    for (size_t i = 0; i < lost.size(); ++i) {
        const LostTip& t = lost[i];
        if (t.gone || t.ref.empty() || !at_risk.count(t.oid))
            continue;
        handled.insert(i);
        if (named.count(t.oid) || discarded(common, t))
            continue;
        record_lost(common, t.oid, save_name(t));
        tips.push_back({save_name(t), t.oid, "", save_name(t)});
    }
    if (tips.empty())
        return handled;
    auto saves = save_existing_batch(common, tips, {.reason = k_watch_reason});
    if (!saves)
        return {};
    for (const auto& saved : *saves)
        written.push_back(saved.ref);
    return handled;
}

} // namespace

std::vector<size_t> save_vanished(const fs::path& common, const std::vector<LostTip>& lost, const KnownRefs& known)
{
    std::vector<size_t> failed;
    try {
        Settings settings = read_settings(common);
        if (!settings.enabled)
            return failed;
        auto at_risk = judge(common, lost, settings, known);
        std::vector<std::string> written;
        std::set<size_t> batched;
        try {
            batched = save_batch(common, lost, at_risk, settings, written);
        } catch (const std::exception& e) {
            spdlog::warn("watch: batched save in {}: {} (each is saved on its own)", common.string(), e.what());
        }
        for (size_t i = 0; i < lost.size(); ++i) {
            if (batched.count(i))
                continue;
            const LostTip& t = lost[i];
            auto commits = at_risk.count(t.oid) ? at_risk[t.oid] : std::vector<std::string>{};
            if (commits.empty() && !t.gone)
                continue;
            try {
                if (std::string ref = save_one(common, t, commits, settings); !ref.empty())
                    written.push_back(ref);
            } catch (const std::exception& e) {
                spdlog::error("watch: cannot save {} ({}): {}", save_name(t), t.oid, e.what());
                failed.push_back(i);
                if (t.retry)
                    continue;
                Work w;
                w.path = t.path;
                w.branch = t.ref.empty() ? "" : save_name(t);
                w.commits = commits;
                journal_refusal(common, w, e.what(), k_watch_reason);
            }
        }
        prove_kept(common, written);
    } catch (const std::exception& e) {
        spdlog::error("watch: cannot judge what vanished from {}: {}", common.string(), e.what());
        for (size_t i = 0; i < lost.size(); ++i)
            failed.push_back(i); // not judged is not safe: judged again later
    }
    return failed;
}

} // namespace guard
