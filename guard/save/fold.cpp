// Folding saves onto chains: links first, read back, then the names go (DESIGN §13).
#include "guard/save/fold.hpp"

#include "guard/save/chain.hpp"
#include "guard/save/chain_index.hpp"
#include "guard/save/kept.hpp"
#include "guard/base/lock.hpp"
#include "guard/base/progress.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"
#include "guard/save/saveref.hpp"
#include "guard/save/tree_chains.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr std::size_t k_default_keep = 50;
constexpr std::size_t k_chunk = 2000; // links per fast-import, refs per deleting transaction
constexpr std::size_t k_imports_to_roll_up = 8; // fast-imports in one fold that leave packs worth joining

struct SaveName {
    std::string ref;
    std::string commit;
};

// Oldest first by the stamp ending the name (`YYYYMMDDTHHMMSS.mmmZ[-N]`), then by -N.
bool older(const SaveName& a, const SaveName& b)
{
    auto key = [](const std::string& ref) {
        std::string stamp = ref.substr(ref.rfind('/') + 1);
        auto dash = stamp.find("Z-");
        int n = dash == std::string::npos ? 1 : std::atoi(stamp.c_str() + dash + 2);
        return std::pair{stamp.substr(0, dash == std::string::npos ? stamp.size() : dash + 1), n};
    };
    return key(a.ref) < key(b.ref);
}

// Branches some worktree has checked out (one restored by hand onto a save's own name).
std::set<std::string> checked_out(const Git& git)
{
    std::set<std::string> out;
    for (const auto& field : split(git.run({"worktree", "list", "--porcelain", "-z"}).out))
        if (field.starts_with("branch "))
            out.insert(field.substr(7));
    return out;
}

// The save refs to fold, by chain, oldest first: of a kind with more than `keep`, all but
// the newest `down_to` (<= keep). Puts the tree chains the listing shows in `tree_chains`.
std::map<std::string, std::vector<SaveName>> to_fold(const Git& git, std::size_t keep, std::size_t down_to,
                                                     std::set<std::string>& tree_chains)
{
    RunResult r = git.run({"for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/stranded/",
                           "refs/stranded/"});
    if (r.status != 0)
        throw Error("cannot list the saves to fold: " + r.err);
    std::vector<SaveName> branches, in_place;
    for (const auto& line : split(r.out, '\n')) {
        auto space = line.rfind(' ');
        if (space == std::string::npos)
            continue;
        SaveName s{line.substr(0, space), line.substr(space + 1)};
        if (!is_chain_ref(s.ref))
            (s.ref.starts_with("refs/heads/") ? branches : in_place).push_back(s);
        else if (s.ref != k_archive_chain)
            tree_chains.insert(s.ref);
    }
    std::map<std::string, std::vector<SaveName>> chains;
    if (branches.size() > keep) {
        std::sort(branches.begin(), branches.end(), older);
        auto busy = checked_out(git);
        for (size_t i = 0; i + down_to < branches.size(); ++i)
            if (!busy.count(branches[i].ref))
                chains[k_archive_chain].push_back(branches[i]);
    }
    if (in_place.size() > keep) {
        std::sort(in_place.begin(), in_place.end(), older);
        for (size_t i = 0; i + down_to < in_place.size(); ++i)
            chains[chain_of_handle(in_place[i].ref)].push_back(in_place[i]);
    }
    for (auto& [chain, saves] : chains)
        std::sort(saves.begin(), saves.end(), older);
    return chains;
}

// The folded names go, each only if it still holds its save (delete_folded).
void delete_names(const Git& git, const std::vector<SaveName>& saves)
{
    std::vector<std::pair<std::string, std::string>> refs;
    for (const auto& s : saves)
        refs.emplace_back(s.ref, s.commit);
    if (std::string err = delete_folded(git, refs); !err.empty())
        spdlog::warn("folded {} save(s) but could not delete their refs (they stay listed once): {}",
                     saves.size(), err);
}

// "<handle> <commit>" of every save some chain already holds: a fold whose names could not
// be deleted (a lock of git's) links them once, and the next fold only deletes the names.
std::set<std::string> already_linked(const fs::path& common)
{
    std::set<std::string> linked;
    for (const auto& f : all_chain_records(common))
        if (f.size() >= 2)
            linked.insert(f[0] + " " + f[1]);
    return linked;
}

// Appends `saves` to `chain` (one fast-import per k_chunk, counted in `imports`), then
// deletes their names.
void fold_chain(const Git& git, const std::string& chain, const std::vector<SaveName>& saves, Progress& meter,
                std::size_t& done, std::size_t& imports)
{
    PathLock lock(git.common(), chain_lock_key(chain), read_settings(git.common()).lock_timeout);
    std::set<std::string> linked = already_linked(git.common()); // under the chain's lock
    for (size_t at = 0; at < saves.size(); at += k_chunk) {
        std::vector<SaveName> part(saves.begin() + static_cast<long>(at),
                                   saves.begin() + static_cast<long>(std::min(saves.size(), at + k_chunk)));
        std::vector<Link> links;
        for (const auto& s : part)
            if (!linked.count(s.ref + " " + s.commit))
                links.push_back({s.ref, s.commit});
        if (!links.empty())
            append_links(git, chain, links); // read back: the chain reaches every one of them
        ++imports;
        delete_names(git, part);         // only now may a name go
        done += part.size();
        meter.update(done);
        spdlog::info("folded {} save(s) into {}", part.size(), chain);
    }
}

// A fast-import of more than a hundred objects leaves a pack of its own: a migration that
// folds into dozens of chains leaves dozens, and every later git opens each one (a
// `write-tree` took 2.0 ms with 56 such packs, 1.7 ms after this). A geometric repack joins
// the small packs and leaves a large one (the repository's own history) alone; it deletes
// only packs whose objects it has just packed again.
void roll_up_packs(const Git& git, std::size_t imports)
{
    if (imports < k_imports_to_roll_up)
        return;
    RunResult r = git.run({"repack", "-d", "-q", "--geometric=2"});
    if (r.status != 0)
        spdlog::warn("folded, but could not join the packs the fold wrote: {}", first_line_of(r.err));
}

} // namespace

std::size_t fold_floor(std::size_t keep)
{
    return keep == 0 ? 0 : keep + 1 - std::max<std::size_t>(1, keep / 5);
}

std::size_t keep_branches(const fs::path& common)
{
    for (const auto& [key, value] : guard_config(common))
        if (key == "guard.keepbranches") {
            long n = std::atol(value.c_str());
            return n >= 0 && !value.empty() && value.find_first_not_of("0123456789") == std::string::npos
                       ? static_cast<std::size_t>(n)
                       : k_default_keep;
        }
    return k_default_keep;
}

std::string delete_folded(const Git& git, const std::vector<std::pair<std::string, std::string>>& refs)
{
    // git holds packed-refs.lock through a whole deletion, and another git waits for it only
    // core.packedRefsTimeout (1 s) before it fails "Unable to create packed-refs.lock": a
    // fold of a thousand names in one transaction, on a loaded machine, made the user's next
    // `git branch -D` fail. So the names go in small transactions, and after each the lock
    // stays free as long as it was held, so a waiting git's retries find it free. Each waits
    // for the lock as git waits by default (a fold never runs inside git's own transaction:
    // fold_beyond_keep starts a detached one there).
    constexpr size_t k_chunk = 100;
    std::vector<std::string> args = hooks_off(git);
    args.insert(args.end(), {"-c", "core.packedRefsTimeout=1000", "update-ref", "-m", "git-guard: fold", "--stdin"});
    for (size_t at = 0; at < refs.size(); at += k_chunk) {
        std::string input = "start\n";
        for (size_t i = at; i < std::min(refs.size(), at + k_chunk); ++i)
            input += "delete " + refs[i].first + " " + refs[i].second + "\n";
        auto began = std::chrono::steady_clock::now();
        RunResult r = git.run(args, input + "commit\n");
        if (r.status != 0)
            return first_line_of(r.err).empty() ? "update-ref failed" : first_line_of(r.err);
        if (at + k_chunk < refs.size())
            std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
                std::chrono::steady_clock::now() - began, std::chrono::milliseconds(200)));
    }
    return "";
}

Folded fold_saves(const fs::path& common, std::optional<std::size_t> keep, bool in_steps)
{
    Git git(common);
    std::size_t limit = keep.value_or(keep_branches(common));
    std::size_t down_to = in_steps ? fold_floor(limit) : limit;
    std::set<std::string> tree_chains; // as listed, then with the ones this fold makes
    auto chains = to_fold(git, limit, down_to, tree_chains);
    Folded folded;
    std::size_t total = 0, done = 0, imports = 0;
    bool made_chain = false;
    for (const auto& [chain, saves] : chains)
        total += saves.size();
    Progress meter("git-guard: folding saves", total);
    for (const auto& [chain, saves] : chains) {
        fold_chain(git, chain, saves, meter, done, imports);
        (chain == k_archive_chain ? folded.branches : folded.loose) += saves.size();
        if (chain != k_archive_chain && tree_chains.insert(chain).second)
            made_chain = true;
    }
    roll_up_packs(git, imports);
    // Trees that are gone leave their chains behind: beyond the bound, into the archive.
    // After a save, only a chain this fold made can have taken their count past it; the
    // listing counted them, so a fold within the bound asks git nothing more.
    if (tree_chains.size() > limit && (made_chain || !in_steps))
        folded.trees = fold_tree_chains(common, limit, down_to);
    // History that never changes again, written once rather than by every gc (after a
    // fold that moved saves, and on demand).
    if (total || folded.trees || !in_steps)
        keep_folded_history(git);
    if (total)
        meter.done();
    return folded;
}

namespace {
std::string s_transaction_owner; // set inside a reference-transaction hook: git's identity
} // namespace

void fold_after(std::string git_identity) { s_transaction_owner = std::move(git_identity); }

bool ref_store_locked(const fs::path& common)
{
    std::error_code ec;
    return fs::exists(common / "packed-refs.lock", ec) || fs::exists(common / "reftable" / "tables.list.lock", ec);
}

void fold_beyond_keep(const fs::path& common, std::optional<std::size_t> saves_before)
{
    try {
        // Another process's save meanwhile at most delays a fold to the next save.
        if (saves_before && *saves_before + 1 <= keep_branches(common))
            return;
        if (!s_transaction_owner.empty() || ref_store_locked(common)) {
            // Inside git's hook its transaction is open (`branch -D` on the files backend
            // takes packed-refs.lock more than once before it ends), so the names could not go
            // now. A detached fold waits for that git to end and the lock to go, then folds
            // (issue 35 item 1).
            fs::path self = self_path();
            if (self.filename() != "git-guard")
                self = self.parent_path() / "git-guard";
            if (!start_detached({self.string(), "-C", common.string(), "fold", "--after-git", s_transaction_owner}))
                spdlog::warn("cannot start the fold that waits for git's transaction: the next save folds");
            return;
        }
        fold_saves(common, std::nullopt, true);
    } catch (const std::exception& e) {
        spdlog::warn("cannot fold the oldest saves yet (they stay branches): {}", e.what());
    }
}

} // namespace guard
