// Chained saves as listed saves: their handle, their backup state, their drop.
#include "guard/save/folded.hpp"

#include "guard/save/chain.hpp"
#include "guard/save/backup.hpp"
#include "guard/save/journal.hpp"
#include "guard/base/lock.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"

#include <spdlog/spdlog.h>

#include <map>

namespace fs = std::filesystem;

namespace guard {

void add_chained(std::vector<Save>& out, std::unordered_set<std::string>& seen,
                 std::vector<std::vector<std::string>>&& records,
                 const std::function<Save(std::vector<std::string>&)>& make,
                 const std::set<std::string>* pushed)
{
    std::map<std::string, bool> reached; // per chain: a pushed tip is at or above this link
    out.reserve(out.size() + records.size());
    seen.reserve(seen.size() + records.size());
    for (auto& f : records) {
        if (f.size() < 7 || !seen.insert(f[0] + " " + f[1]).second)
            continue;
        std::string link = std::move(f[5]);
        Save s = make(f);
        s.chain = std::move(f[6]);
        if (pushed) {
            bool& r = reached[s.chain];
            r = r || pushed->count(s.chain + " " + link) > 0;
            s.backed_up = r || pushed->count(s.ref + " " + s.commit) > 0;
        }
        out.push_back(std::move(s));
    }
}

namespace {

void journal_drop(const fs::path& common, const Save& s)
{
    spdlog::warn("dropped {} (was {})", s.ref, s.commit);
    journal_record(common, {.kind = "drop", .ref = s.ref, .commit = s.commit, .path = s.path,
                            .branch = s.branch, .reason = "drop", .detail = s.reason});
}

// No hook runs: ours refuses deleting a save with unique commits, and drop is how to let
// one go. The old value makes a ref that moved meanwhile stay.
bool delete_refs(const fs::path& common, const std::vector<const Save*>& saves)
{
    auto argv = git_without_hooks(common);
    argv.insert(argv.end(), {"update-ref", "-m", "git-guard: drop", "--stdin"});
    std::string input;
    for (const auto* s : saves)
        input += "delete " + s->ref + " " + s->commit + "\n";
    return run(argv, {.input = input}).status == 0;
}

} // namespace

std::string drop_folded(const fs::path& common, const Save& s)
{
    drop_link(common, s.chain, s.ref, read_settings(common).lock_timeout);
    journal_drop(common, s);
    return s.ref;
}

void drop_all(const fs::path& common, const std::vector<Save>& saves)
{
    std::vector<const Save*> refs;
    std::map<std::string, std::vector<const Save*>> chained;
    for (const auto& s : saves)
        (s.chain.empty() ? refs : chained[s.chain]).push_back(&s);
    std::vector<const Save*> gone = refs;
    if (!refs.empty() && !delete_refs(common, refs)) {
        gone.clear();
        for (const auto* s : refs)
            if (delete_refs(common, {s}))
                gone.push_back(s);
    }
    for (const auto& [chain, list] : chained) {
        PathLock lock(common, chain_lock_key(chain), read_settings(common).lock_timeout);
        std::vector<Link> links;
        for (const auto* s : list)
            links.push_back({s->ref, ""});
        append_links(Git(common), chain, links);
        gone.insert(gone.end(), list.begin(), list.end());
    }
    for (const auto* s : gone)
        journal_drop(common, *s);
}

} // namespace guard
