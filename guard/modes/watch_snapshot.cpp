// The time layer. A kept private index per tree (git's own staging, quiet: no filter or
// fsmonitor command of the repository's, git's own daemon where the user enabled it; then
// the changed files' bytes, staging_raw.hpp) makes an unchanged tree cost one stat pass of
// `git add -A` and write nothing: its blobs and trees exist already, and an unchanged
// (HEAD, index, working state) triple makes no commit and no ref.
#include "guard/modes/watch_snapshot.hpp"

#include "guard/save/chain.hpp"
#include "guard/base/clock.hpp"
#include "guard/base/error.hpp"
#include "guard/install/watch.hpp"
#include "guard/save/journal.hpp"
#include "guard/save/layout.hpp"
#include "guard/base/manifest.hpp"
#include "guard/base/pattern.hpp"
#include "guard/git/git.hpp"
#include "guard/git/repo.hpp"
#include "guard/save/snapshot.hpp"
#include "guard/save/staging.hpp"
#include "guard/judge/work.hpp"

#include <spdlog/spdlog.h>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace guard {

namespace {

template <class K, class V> const K& key_of(const std::pair<const K, V>& entry) { return entry.first; }
inline const std::string& key_of(const std::string& entry) { return entry; }

std::string tree_of(const Git& git, const std::string& commit)
{
    return first_line_of(git.out({"rev-parse", commit + "^{tree}"}, "read the tree of " + commit));
}

// guard.exclude (DESIGN §4.1) as every save applies it: what the staging added that a
// pattern names is never saved; a tracked path stays as `head` has it.
void drop_excluded(const Git& staged, const std::string& head, const Settings& settings)
{
    if (settings.exclude.empty())
        return;
    PatternList exclude(settings.exclude);
    auto fields = split(staged.out({"diff-index", "--cached", "-z", "--name-status", "--no-renames", head},
                                   "list the staged changes"));
    Work w;
    w.head = head;
    for (size_t i = 0; i + 1 < fields.size(); i += 2)
        if (auto pattern = exclude.match(fields[i + 1]))
            w.excluded.push_back({fields[i + 1], "guard.exclude '" + *pattern + "'", fields[i] != "A"});
    if (!w.excluded.empty())
        put_back_excluded(staged, w);
}

// The kept snapshot file `kind` ("index" or "state") of tree `id` ("" for the main tree).
fs::path kept_file(const fs::path& common, const std::string& kind, const std::string& id)
{
    return repo_watch_dir(common) / ("snapshot-" + kind + "-" + (id.empty() ? std::string("main") : id));
}

// The files `git add --ignore-errors` could not read, from its "unable to index file" errors.
std::vector<Unsaved> unindexed(const std::string& err)
{
    const std::string prefix = "error: unable to index file '";
    std::vector<Unsaved> out;
    for (const auto& line : split(err, '\n'))
        if (line.starts_with(prefix) && line.size() > prefix.size() && line.back() == '\'')
            out.push_back({line.substr(prefix.size(), line.size() - prefix.size() - 1), "unreadable"});
    return out;
}

} // namespace

// THE one place a snapshot commit becomes a save: a link on its tree's chain
// (refs/stranded/chain/tree/<name>, append_save), so the refs do not grow with the
// snapshots; its handle is refs/stranded/<name>/<stamp>, as an in-place save's.
Saved keep_snapshot(const fs::path& common, const std::string& name, const std::string& commit,
                    const SaveOptions& options)
{
    Saved s = append_save(common, name, commit, read_settings(common).lock_timeout);
    // Journaled, never pushed or notified one by one: a snapshot is the time layer's
    // routine, not an event for an orchestrator.
    journal_append(common, {.kind = "save", .ref = s.ref, .commit = commit, .path = options.path,
                            .branch = options.branch, .reason = options.reason});
    return s;
}

// Snapshots one live tree when its state differs from its last snapshot; returns whether
// it made one. Writes only objects, the kept index and a new save ref.
bool Snapshots::snapshot_tree(const fs::path& common, const std::string& id, const KnownTree& t)
{
    std::error_code ec;
    if (!fs::is_directory(t.path, ec) || !fs::exists(t.path / ".git", ec) || t.head.empty())
        return false;
    fs::path kept = kept_file(common, "index", id);
    fs::path copy = index_copy(common, id);
    Git git(t.git_dir, t.path);
    if (!fs::exists(kept, ec))
        fs::copy_file(copy, kept, ec); // seeded once: its stat data makes the next add cheap
    // Nothing of the repository's runs (DESIGN §15): no filter, no fsmonitor command.
    Git staged = quiet_git(git).with_index(kept);
    RunResult add = staged.run({"add", "-A", "--ignore-errors", "--", "."});
    if (add.status != 0 && add.status != 1)
        throw Error("git add -A into the kept index failed: " + add.err);
    Settings settings = read_settings(common);
    drop_excluded(staged, t.head, settings);
    std::vector<Unsaved> unsaved = unindexed(add.err);
    std::string work_tree = first_line_of(staged.out({"write-tree"}, "write the working state"));
    for (auto& u : stage_raw(staged, t.head, work_tree)) // the bytes on disk (DESIGN §4.1.1)
        unsaved.push_back(std::move(u));
    RunResult index = git.with_index(copy).run({"write-tree"});
    std::string index_tree = index.status == 0 ? first_line_of(index.out) : work_tree;
    std::string state = t.head + " " + index_tree + " " + work_tree;
    // Kept on disk too: a restarted watcher makes no second snapshot of the same state.
    fs::path state_file = kept_file(common, "state", id);
    auto& last = m_states[common.string() + "\n" + id];
    if (last.empty())
        last = read_bytes(state_file).value_or("");
    if (last == state)
        return false;
    auto remember = [&] {
        last = state;
        write_bytes(state_file, state, fs::perms(0644));
    };
    std::string head_tree = tree_of(git, t.head);
    if (work_tree == head_tree && index_tree == head_tree) {
        remember();
        return false; // clean: HEAD holds it all
    }
    Work w;
    w.path = t.path.string();
    w.branch = t.branch_ref.starts_with("refs/heads/") ? t.branch_ref.substr(11) : "";
    w.head = t.head;
    for (const auto& path : split(git.out({"diff-tree", "-r", "-z", "--name-only", head_tree, work_tree}, "diff")))
        w.changes.push_back({path, ChangeKind::modified});
    for (const auto& u : unsaved)
        spdlog::warn("watch: the snapshot of {} lacks {}: {}", t.path.string(), u.path, u.why);
    std::string commit = write_save(Git(common), w, {work_tree, index_tree, {}, unsaved}, settings, "snapshot");
    keep_snapshot(common, t.path.filename().string(), commit,
                  {.reason = "snapshot", .ref_prefix = "refs/stranded", .tree = work_tree, .path = w.path,
                   .branch = w.branch});
    remember(); // only a kept snapshot counts: a failed one is tried again next interval
    return true;
}

void Snapshots::take(const std::map<std::string, std::unique_ptr<RepoWatch>>& repos)
{
    auto now = Clock::now();
    if (now >= m_due)
        learn_interval(repos); // a tick: the config files are looked at, and read if they changed
    m_due = now + std::chrono::hours(24);
    for (const auto& [name, repo] : repos) {
        long long interval = interval_of(*repo);
        if (interval <= 0)
            continue;
        for (const auto& [id, tree] : repo->trees()) {
            std::string key = name + "\n" + id;
            auto& due = m_next[key];
            if (due == Clock::time_point{} || now >= due) {
                try {
                    if (!unchanged(key, tree) && snapshot_tree(repo->common(), id, tree))
                        m_last = utc_millis("%Y-%m-%dT%H:%M:%S");
                } catch (const std::exception& e) {
                    m_dirty.insert(key); // checked again at the next interval
                    // A full disk or a tree mid-change: said once per interval, tried again at the next.
                    spdlog::warn("watch: cannot snapshot {}: {}", tree.path.string(), e.what());
                }
                due = tick_after(now, interval);
            }
            m_due = std::min(m_due, due);
        }
    }
}

// The first point of the `interval` grid after `now`: every tree of one interval is due at
// the same instant, so 250 trees cost one wake per interval, not 250 spread over it.
Clock::time_point Snapshots::tick_after(Clock::time_point now, long long interval) const
{
    auto period = std::chrono::seconds(interval);
    return m_epoch + ((now - m_epoch) / period + 1) * period;
}

// An unchanged tree costs no git: every directory watched, no event since the last check,
// the same HEAD and index. Otherwise it is checked, and what changes from now on is news.
bool Snapshots::unchanged(const std::string& key, const KnownTree& tree)
{
    std::string seen = tree.head + " " + tree.index_stamp;
    bool same = m_watched.count(key) && !m_dirty.count(key) && m_seen[key] == seen;
    m_dirty.erase(key);
    m_seen[key] = seen;
    return same;
}

long long Snapshots::interval_of(const RepoWatch& repo)
{
    auto known = m_intervals.find(repo.common().string());
    if (known != m_intervals.end())
        return known->second;
    learn(repo);
    return m_intervals[repo.common().string()];
}

void Snapshots::learn(const RepoWatch& repo)
{
    // guard_config asks git only when a config file it read changed: otherwise a few stats.
    long long interval = snapshot_interval(repo.common());
    auto [known, fresh] = m_intervals.try_emplace(repo.common().string(), interval);
    if (fresh || known->second == interval)
        return;
    known->second = interval;
    std::string prefix = repo.common().string() + "\n";
    std::erase_if(m_next, [&](const auto& e) { return e.first.starts_with(prefix); }); // checked now, then on the new grid
}

void Snapshots::learn_interval(const std::map<std::string, std::unique_ptr<RepoWatch>>& repos)
{
    for (const auto& [name, repo] : repos)
        learn(*repo);
}

long long Snapshots::interval() const
{
    long long shortest = 0; // the polling fallback reads the ref store this often
    for (const auto& [common, interval] : m_intervals)
        if (interval > 0 && (shortest == 0 || interval < shortest))
            shortest = interval;
    return shortest > 0 ? shortest : 60;
}

void Snapshots::erase_trees(const std::function<bool(const std::string&)>& gone)
{
    auto erase = [&](auto& keyed) { std::erase_if(keyed, [&](const auto& e) { return gone(key_of(e)); }); };
    erase(m_next);
    erase(m_states);
    erase(m_dirty);
    erase(m_watched);
    erase(m_seen);
}

void Snapshots::forget(const std::string& common)
{
    std::string prefix = common + "\n";
    erase_trees([&](const std::string& key) { return key.starts_with(prefix); });
    m_intervals.erase(common);
}

void Snapshots::prune(const RepoWatch& repo)
{
    std::string prefix = repo.common().string() + "\n";
    erase_trees([&](const std::string& key) {
        return key.starts_with(prefix) && !repo.trees().count(key.substr(prefix.size()));
    });
    // The files, by name: a vanished tree's save needs only its index copy (index-<id>,
    // RepoWatch::save_lost), never these, so they go at once, also while that save waits
    // for a retry.
    std::error_code ec;
    for (fs::directory_iterator it(repo_watch_dir(repo.common()), ec), end; !ec && it != end; it.increment(ec)) {
        std::string file = it->path().filename().string();
        for (std::string kind : {"snapshot-index-", "snapshot-state-"})
            if (file.starts_with(kind) && file != kind + "main" && !repo.trees().count(file.substr(kind.size()))) {
                std::error_code gone;
                fs::remove(it->path(), gone);
            }
    }
}

} // namespace guard
