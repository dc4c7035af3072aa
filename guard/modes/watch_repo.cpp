// The event layer's view of one repository. Every fact is asked of git (for-each-ref,
// worktree list), so loose refs, packed-refs and reftable read alike; the watcher only
// remembers the last answer and compares.
#include "guard/modes/watch_repo.hpp"

#include "guard/base/clock.hpp"
#include "guard/base/error.hpp"
#include "guard/save/journal.hpp"
#include "guard/base/lock.hpp"
#include "guard/base/manifest.hpp"
#include "guard/git/git.hpp"
#include "guard/git/repo.hpp"
#include "guard/modes/transaction.hpp"
#include "guard/install/watch.hpp"
#include "guard/modes/watch_hold.hpp"
#include "guard/modes/watch_lost.hpp"

#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <fstream>
#include <set>
#include <sstream>
#include <chrono>
#include <thread>

namespace fs = std::filesystem;

namespace guard {

fs::path repo_watch_dir(const fs::path& common) { return common / "guard" / "watch"; }

bool repo_alive(const fs::path& common)
{
    std::error_code ec;
    return fs::is_directory(common / "objects", ec) && fs::exists(common / "HEAD", ec);
}

bool make_watch_dir(const fs::path& common)
{
    // One level at a time, never `create_directories`: a repository being deleted (`rm -rf`
    // while the watcher works) must not get its directories back from us, or the path stays
    // taken and `git clone` into it fails.
    std::error_code ec;
    if (!repo_alive(common))
        return false;
    fs::create_directory(common / "guard", ec);
    if (ec)
        return false;
    fs::create_directory(repo_watch_dir(common), ec);
    return !ec;
}

namespace {

// The index file's identity: a rewrite (git renames index.lock over it) changes it.
std::string file_stamp(const fs::path& file)
{
    struct stat st{};
    if (::stat(file.c_str(), &st) != 0)
        return "";
    return std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
           std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

// Every ref git lists, as (oid, name); nothing when git cannot list them.
std::optional<std::vector<std::pair<std::string, std::string>>> read_refs(const fs::path& common)
{
    RunResult r = Git(common).run({"for-each-ref", "--format=%(objectname) %(refname)"});
    if (r.status != 0)
        return std::nullopt;
    std::vector<std::pair<std::string, std::string>> refs;
    for (const auto& line : split(r.out, '\n'))
        if (auto sp = line.find(' '); sp != std::string::npos)
            refs.emplace_back(line.substr(0, sp), line.substr(sp + 1));
    return refs;
}

} // namespace

fs::path index_copy(const fs::path& common, const std::string& id)
{
    return repo_watch_dir(common) / ("index-" + (id.empty() ? std::string("main") : id));
}

namespace {

std::string dir_identity(const fs::path& dir)
{
    struct stat st{};
    if (::stat(dir.c_str(), &st) != 0)
        return "";
    return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

} // namespace

RepoWatch::RepoWatch(fs::path common) : m_common(std::move(common)), m_identity(dir_identity(m_common)) { load(); }

bool RepoWatch::same_repository() const
{
    std::string now = dir_identity(m_common);
    return !now.empty() && now == m_identity;
}

// Hold first: what is new is held before anything is judged or saved, and what vanished
// stays held until its save is written (or while it is pending a retry).
void RepoWatch::hold_and_save(const std::vector<Lost>& lost, const KnownRefs& known,
                              const std::set<std::string>& published)
{
    std::set<std::string> lost_ids;
    for (const auto& l : lost)
        if (!l.oid.empty())
            lost_ids.insert(l.oid);
    if (m_learned && !lost.empty()) {
        hold_more(m_common, held(lost_ids), published);
        save_lost(lost, known);
    }
    hold_tips(m_common, held({}), published);
}

// Every tip and tree HEAD known now, every save still pending, and `more`.
std::set<std::string> RepoWatch::held(std::set<std::string> more) const
{
    for (const auto& [ref, oid] : m_tips)
        more.insert(oid);
    for (const auto& [id, t] : m_trees)
        if (!t.head.empty())
            more.insert(t.head);
    for (const auto& [key, p] : m_pending)
        if (!p.lost.oid.empty())
            more.insert(p.lost.oid);
    return more;
}

std::vector<fs::path> RepoWatch::watched_dirs() const
{
    std::vector<fs::path> dirs{m_common, m_common / "worktrees", m_common / "reftable"};
    std::error_code ec;
    for (fs::recursive_directory_iterator it(m_common / "refs", ec), end; !ec && it != end; it.increment(ec))
        if (it->is_directory(ec))
            dirs.push_back(it->path());
    dirs.push_back(m_common / "refs");
    // Every admin entry on disk, known or not: one made since the last scan is watched
    // before git has finished writing it, so its HEAD and index are never missed.
    for (fs::directory_iterator it(m_common / "worktrees", ec), end; !ec && it != end; it.increment(ec))
        if (it->is_directory(ec))
            dirs.push_back(it->path());
    return dirs;
}

bool RepoWatch::scan()
{
    std::error_code ec;
    if (!fs::is_directory(m_common, ec))
        return false;
    std::string read_at = utc_millis("%Y-%m-%dT%H:%M:%S"); // before git is asked: a discard after it is newer
    auto refs = read_refs(m_common);
    if (!refs)
        refs = read_refs(m_common); // a ref store being packed right now answers next time
    std::vector<Worktree> listed;
    try {
        listed = list_worktrees(m_common);
    } catch (const Error& e) {
        spdlog::warn("watch: cannot list the worktrees of {}: {}", m_common.string(), e.what());
        return false;
    }
    if (!refs)
        return false;
    std::set<std::string> named, published;
    std::map<std::string, std::string> tips;
    bool remotes = false;
    for (const auto& [oid, ref] : *refs) {
        named.insert(oid);
        remotes = remotes || ref.starts_with("refs/remotes/");
        if (ref.starts_with("refs/remotes/"))
            published.insert(oid);
        if (ref.starts_with("refs/heads/") && !is_save_ref(ref))
            tips[ref] = oid;
    }
    std::map<std::string, KnownTree> trees;
    for (const auto& t : listed) {
        named.insert(t.head);
        auto old = m_trees.find(t.name);
        trees[t.name] = {t.path, t.git_dir, t.head, t.branch_ref, old == m_trees.end() ? "" : old->second.index_stamp};
    }
    std::vector<Lost> lost;
    // A commit one event took from several branches, one of them deleted, is one loss:
    // judged and saved once, under the first deleted name (a deletion is judged with no
    // new tip as a base, so it finds at least as much at risk as any move of it would).
    // Branches that only moved are each judged with their own new tip, as the hook would.
    std::set<std::string> deleted; // the oids already lost under a deleted name
    for (const auto& [ref, oid] : m_tips)
        if (!named.count(oid) && !tips.count(ref) && deleted.insert(oid).second)
            lost.push_back({ref, oid, "", "", {}, false});
    for (const auto& [ref, oid] : m_tips)
        if (!named.count(oid) && tips.count(ref) && !deleted.count(oid))
            lost.push_back({ref, oid, tips[ref], "", {}, false});
    for (const auto& [id, t] : m_trees) {
        auto now = trees.find(id);
        bool gone = now == trees.end();
        bool head_lost = t.branch_ref.empty() && !t.head.empty() && !named.count(t.head) &&
                         (gone || now->second.head != t.head);
        if (head_lost || (gone && !id.empty()))
            lost.push_back({"", t.head, gone ? "" : now->second.head, id, t, gone});
    }
    add_due_retries(lost);
    m_seen_before = m_seen_at;
    m_seen_at = read_at;
    m_tips = std::move(tips);
    m_trees = std::move(trees);
    hold_and_save(lost, {{named.begin(), named.end()}, remotes}, published);
    m_learned = true;
    copy_indexes();
    store();
    return true;
}

// Copies each live tree's index when git rewrote it, so that a tree whose admin entry
// vanishes with its index still has its staged state saved. Reads the index, never
// writes it; the copy goes through a temporary name, so a kill leaves a whole copy.
void RepoWatch::copy_indexes()
{
    std::error_code ec;
    if (!make_watch_dir(m_common))
        return;
    for (auto& [id, t] : m_trees) {
        fs::path index = t.git_dir / "index";
        std::string stamp = file_stamp(index);
        if (stamp.empty() || stamp == t.index_stamp)
            continue;
        fs::path copy = index_copy(m_common, id);
        fs::path tmp = copy.string() + ".tmp";
        fs::copy_file(index, tmp, fs::copy_options::overwrite_existing, ec);
        if (!ec)
            fs::rename(tmp, copy, ec);
        if (ec) {
            spdlog::warn("watch: cannot copy the index of {}: {}", t.path.string(), ec.message());
            fs::remove(tmp, ec);
            continue;
        }
        t.index_stamp = stamp;
    }
}

namespace {

std::string pending_key(const std::string& ref, const std::string& oid, const std::string& id)
{
    return ref + "\n" + oid + "\n" + id;
}

} // namespace

void RepoWatch::add_due_retries(std::vector<Lost>& lost)
{
    auto now = std::chrono::steady_clock::now();
    std::set<std::string> listed;
    for (const auto& l : lost)
        listed.insert(pending_key(l.ref, l.oid, l.id));
    for (const auto& [key, p] : m_pending)
        if (p.next <= now && !listed.count(key))
            lost.push_back(p.lost);
}

std::optional<std::chrono::steady_clock::time_point> RepoWatch::next_retry() const
{
    std::optional<std::chrono::steady_clock::time_point> next;
    for (const auto& [key, p] : m_pending)
        if (!next || p.next < *next)
            next = p.next;
    return next;
}

// A save that failed is tried again after 1 s, then 2, 4, … up to 5 minutes: a full disk
// is waited out without spinning, and what is freed is saved soon after.
void RepoWatch::save_lost(const std::vector<Lost>& lost, const KnownRefs& known)
{
    // A repository being deleted (`rm -rf`) loses its refs and trees on the way: saving
    // into it is futile, and git (fast-import, pack-objects) would make its directories
    // again, so the path stays taken. A moment's wait tells a deletion under way apart.
    if (!lost.empty() && repo_alive(m_common))
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!repo_alive(m_common)) {
        spdlog::info("watch: {} is being deleted: nothing saved into it", m_common.string());
        return;
    }
    std::vector<LostTip> tips;
    for (const auto& l : lost) {
        bool retry = m_pending.count(pending_key(l.ref, l.oid, l.id)) > 0;
        tips.push_back({l.ref, l.oid, l.now, l.tree.path.string(), l.tree.branch_ref, l.gone,
                        l.gone ? index_copy(m_common, l.id) : fs::path(), retry, m_seen_before});
    }
    auto failed = save_vanished(m_common, tips, known);
    std::map<std::string, Pending> pending;
    for (size_t i : failed) {
        const Lost& l = lost[i];
        std::string key = pending_key(l.ref, l.oid, l.id);
        auto before = m_pending.find(key);
        auto backoff = before == m_pending.end() ? std::chrono::seconds(1)
                                                 : std::min(before->second.backoff * 2, std::chrono::seconds(300));
        spdlog::warn("watch: will try to save {} ({}) again in {} s", l.ref.empty() ? l.tree.path.string() : l.ref,
                     l.oid, backoff.count());
        pending[key] = {l, std::chrono::steady_clock::now() + backoff, backoff};
    }
    for (const auto& l : lost)
        m_pending.erase(pending_key(l.ref, l.oid, l.id));
    m_pending.merge(pending);
    // A vanished tree's index copy goes with it once its save is done (bounded growth):
    // one still pending keeps its copy for the next try.
    std::error_code ec;
    for (const auto& l : lost)
        if (l.gone && !m_trees.count(l.id) && !m_pending.count(pending_key(l.ref, l.oid, l.id)))
            fs::remove(index_copy(m_common, l.id), ec);
}

} // namespace guard
