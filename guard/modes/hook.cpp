// The reference-transaction hook's slow path. The static front end (front/hook.c)
// sends only `prepared` transactions that delete or move a branch, a save or a detached
// HEAD in a way it could not prove harmless, once per transaction, and runs a chained
// user hook itself. One pass judges every deletion and move together by effect (DESIGN
// §0.6, §4.2: an old value the transaction leaves on no ref), bounded by guard.hookTimeout.
#include "guard/modes/hook.hpp"

#include "guard/save/fold.hpp"

#include "guard/base/error.hpp"
#include "guard/base/lock.hpp"
#include "guard/base/log.hpp"
#include "guard/git/bounded.hpp"
#include "guard/git/child.hpp"
#include "guard/git/history.hpp"
#include "guard/judge/deletions.hpp"
#include "guard/modes/hook_caller.hpp"
#include "guard/modes/keep.hpp"
#include "guard/modes/transaction.hpp"
#include "guard/save/report.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <sys/resource.h>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace guard {

namespace {

// The repository git runs the hook for: its git dir and common dir.
std::pair<fs::path, fs::path> repository_dirs()
{
    // The front end found both already (front/hook.c, hand_dirs): only run alone do we ask.
    const char* handed_git_dir = std::getenv("GIT_GUARD_HOOK_GIT_DIR");
    const char* handed_common = std::getenv("GIT_GUARD_HOOK_COMMON_DIR");
    if (handed_git_dir && *handed_git_dir && handed_common && *handed_common)
        return {handed_git_dir, handed_common};
    // git runs a hook in the tree root (the git dir when bare): ask git from there.
    auto plain = run_git_bounded({}, {"rev-parse", "--absolute-git-dir", "--git-common-dir"}, "",
                                 Clock::now() + std::chrono::seconds(30));
    if (!plain || plain->status != 0)
        throw Error("cannot find the repository the hook runs for (git rev-parse failed)");
    std::istringstream lines(plain->out);
    std::string git_dir, common;
    std::getline(lines, git_dir);
    std::getline(lines, common);
    fs::path common_path = fs::path(common).is_absolute() ? fs::path(common) : fs::current_path() / common;
    return {git_dir, common_path.lexically_normal()};
}

bool is_id_hex(const std::string& v)
{
    return (v.size() == 40 || v.size() == 64) && v.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// HEAD is guarded only while detached; a symbolic HEAD holds nothing, and the branch it
// names has its own line. Asked of git once, when the transaction names HEAD.
void drop_symbolic_head(const fs::path& git_dir, RefTransaction& tx)
{
    auto names_head = [](const Deletion& d) { return d.ref == "HEAD"; };
    if (std::none_of(tx.deletions.begin(), tx.deletions.end(), names_head))
        return;
    auto r = run_git_bounded(git_dir, {"symbolic-ref", "-q", "HEAD"}, "", Clock::now() + std::chrono::seconds(30));
    if (!r || (r->status != 0 && r->status != 1))
        throw Error("cannot tell whether HEAD is detached (git symbolic-ref failed)");
    if (r->status == 0)
        std::erase_if(tx.deletions, names_head);
}

// Resolves old values git did not name, drops renames, creations and updates that keep
// their value, and leaves what must be judged. The refs' listing (`seen`, which the
// judgement then walks with) names the old values: git holds each ref's lock, so a ref
// it deletes still lists at its old value. What it does not list (HEAD, a symbolic or a
// broken ref) is asked of one cat-file, with its tree (a save of the tip needs it).
void prepare(const fs::path& git_dir, const fs::path& common, RefTransaction& tx, std::optional<SeenRefs>& seen)
{
    drop_symbolic_head(git_dir, tx);
    auto unnamed = [](const Deletion& d) { return d.old_oid.empty(); };
    if (std::any_of(tx.deletions.begin(), tx.deletions.end(), unnamed)) {
        ChildBound listing(Clock::now() + std::chrono::seconds(30), "the listing of the refs (30s)");
        seen = see_refs(common);
    }
    std::string names;
    for (auto& d : tx.deletions) {
        if (!d.old_oid.empty())
            continue;
        if (std::string listed = seen ? seen_value(*seen, d.ref, git_dir) : ""; !listed.empty())
            d.old_oid = listed; // present unless the walk finds it gone (judge_deletions)
        else
            names += d.ref + "\n" + d.ref + "^{tree}\n";
    }
    std::istringstream resolved;
    if (!names.empty()) {
        auto r = run_git_bounded(git_dir, {"cat-file", "--batch-check=%(objectname) %(objecttype)"}, names,
                                 Clock::now() + std::chrono::seconds(30));
        // Fail closed (§0.3): a tip we cannot read is no "nothing there".
        if (!r || r->status != 0)
            throw Error("cannot read the updated refs' old values (git cat-file failed)");
        resolved.str(r->out);
    }
    std::vector<Deletion> kept;
    for (auto& d : tx.deletions) {
        std::string line, tree;
        // cat-file answers "<oid> <type>" or "<ref> missing", in input order: a type read
        // is the object's presence, which the judgement then need not ask again.
        if (d.old_oid.empty() && std::getline(resolved, line) && std::getline(resolved, tree) &&
            is_id_hex(line.substr(0, line.find(' ')))) {
            d.old_oid = line.substr(0, line.find(' '));
            d.present = !line.ends_with(" missing");
            if (tree.ends_with(" tree") && is_id_hex(tree.substr(0, tree.find(' '))))
                d.tree = tree.substr(0, tree.find(' '));
        }
        bool deletion = d.new_value.empty();
        if (d.old_oid.empty() || d.old_oid == d.new_value ||
            (deletion && !is_save_ref(d.ref) && d.ref.starts_with("refs/heads/") && is_rename(common, d.ref, d.old_oid)))
            tx.other_deleted.push_back(d.ref); // nothing there, unchanged, or a rename: nothing to lose
        else
            kept.push_back(d);
    }
    tx.deletions = kept;
}

// One lock per ref to keep, taken in name order (two hooks never wait on each other in
// a circle) and held across the saves (DESIGN §7). git itself holds each ref's own lock
// from before `prepared` to the end, so the value judged cannot change meanwhile.
std::vector<PathLock> lock_refs(const fs::path& common, const std::vector<const BranchVerdict*>& kept,
                                std::chrono::seconds timeout)
{
    std::set<std::string> refs;
    for (const auto* v : kept)
        refs.insert(v->deletion.ref == "HEAD" ? "HEAD of " + fs::current_path().string() : v->deletion.ref);
    std::vector<PathLock> locks;
    for (const auto& ref : refs)
        locks.emplace_back(common, ref, timeout);
    return locks;
}

// How many refs' locks are held at once: each is an open descriptor (kept across the save's
// gits), so the batch fits well inside the open-files limit; at most 256, so that a
// `branch -D` of hundreds is a couple of transactions, not one per 64 refs.
size_t lock_batch()
{
    rlimit files {};
    rlim_t soft = ::getrlimit(RLIMIT_NOFILE, &files) == 0 ? files.rlim_cur : 1024;
    rlim_t room = soft == RLIM_INFINITY || soft > 1024 ? 1024 : soft;
    return std::clamp<size_t>(room > 64 ? (room - 64) / 2 : 1, 1, 256);
}

int guard_transaction(const fs::path& git_dir, const fs::path& common, Input& in, const HookSettings& h)
{
    std::optional<SeenRefs> seen;
    prepare(git_dir, common, in.tx, seen);
    if (in.tx.deletions.empty())
        return 0;
    auto deadline = Clock::now() + h.timeout;
    std::string bound = "guard.hookTimeout (" + std::to_string(h.timeout.count()) + "s)";
    std::vector<BranchVerdict> verdicts;
    {
        // Every git the judgement starts stops at the bound: a walk cut off proves nothing
        // published, so its tips are saved unchecked (history.hpp).
        ChildBound judging(deadline, bound);
        verdicts = judge_deletions(git_dir, in.tx, h.settings, deadline, std::move(seen));
    }
    size_t unchecked = 0;
    std::vector<const BranchVerdict*> kept;
    for (const auto& v : verdicts) {
        if (!v.note.empty()) // nothing was saved: git's words alone on stderr (DESIGN §2.5)
            spdlog::info("{}", v.note);
        if (v.commits.empty())
            continue;
        unchecked += v.unchecked;
        kept.push_back(&v);
    }
    // In name order, lock_batch() refs at a time: each lock is held across its save.
    std::sort(kept.begin(), kept.end(), [](auto* a, auto* b) { return a->deletion.ref < b->deletion.ref; });
    bool ok = true;
    // The saves get as long again, at least 30 s: a git that hangs there is stopped and the
    // transaction refused, naming the bound. A bundle keeps its own, longer bound (keep.cpp).
    Bundle bundle = h.mirror || h.refs_locked ? Bundle::yes : Bundle::no;
    std::optional<ChildBound> saving;
    auto save_deadline = Clock::now() + std::max(h.timeout, std::chrono::seconds(30));
    if (bundle == Bundle::no)
        saving.emplace(save_deadline, bound + " for the saves");
    const size_t per_batch = lock_batch();
    for (size_t at = 0; at < kept.size(); at += per_batch) {
        std::vector<const BranchVerdict*> batch(kept.begin() + static_cast<long>(at),
                                                kept.begin() + static_cast<long>(std::min(kept.size(), at + per_batch)));
        std::vector<PathLock> locks = lock_refs(common, batch, h.settings.lock_timeout);
        ok = keep_verdicts(git_dir, common, batch, bundle) && ok;
    }
    if (ok)
        record_judged(common, in.tx);
    else if (saving && Clock::now() >= save_deadline)
        std::fprintf(stderr, "git-guard: the saves were stopped at their time bound, %s for the saves: git did not "
                             "answer in time (a git that hangs? raise guard.hookTimeout to wait longer)\n",
                     bound.c_str());
    if (unchecked && Clock::now() >= deadline)
        std::fprintf(stderr, "git-guard: guard.hookTimeout (%llds) passed: kept %zu tip(s) without "
                             "checking whether they are published\n",
                     static_cast<long long>(h.timeout.count()), unchecked);
    return ok ? 0 : 1;
}

// Whether every entry is a move between two ids that git calls a fast-forward: a pull
// or fetch the front end could not prove from loose objects (a kept pack, a long history).
// One `merge-base --is-ancestor` each, before any other git call; only for a few moves,
// since the full judgement settles any number in one walk.
bool only_fast_forwards(const RefTransaction& tx)
{
    if (tx.deletions.size() > 4)
        return false;
    for (const auto& d : tx.deletions) {
        if (!is_id_hex(d.old_oid) || !is_id_hex(d.new_value))
            return false;
        auto r = run_git_bounded({}, {"merge-base", "--is-ancestor", d.old_oid, d.new_value}, "",
                                 Clock::now() + std::chrono::seconds(30));
        if (!r || r->status != 0)
            return false;
    }
    return true;
}

} // namespace

int guard_branch_deletions(const fs::path& git_dir, const fs::path& common, const std::vector<std::string>& branches,
                           bool inherited)
{
    Input in;
    for (const auto& branch : branches)
        in.tx.deletions.push_back({"refs/heads/" + branch, "", ""}); // prepare() reads the tips
    HookSettings h = hook_settings(git_dir);
    if (!h.settings.enabled && !inherited)
        return 0;
    init_log(common, false);
    return guard_transaction(git_dir, common, in, h);
}

int run_hook(const std::vector<std::string>& args)
{
    // The front end sends `preparing` only in a reftable repository (see front/hook.c).
    if (args.size() < 2 || args[0] != "reference-transaction" ||
        (args[1] != "prepared" && args[1] != "preparing"))
        return 0;
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    // The front end hands its classification of git's lines over, having named the
    // unreadable ones on git's stderr (front/hook.c); run alone, we classify with its code.
    bool classified = std::find(args.begin() + 2, args.end(), "--classified") != args.end();
    Input in = classified ? read_classified(text) : parse_input(text);
    // git cannot be deleting a ref it cannot name: such lines are named and ignored, once.
    if (!in.unreadable.empty() && !classified)
        std::fprintf(stderr, "git-guard: ignored %zu ref update line(s) git does not write, the first: %s\n",
                     in.unreadable.size(), shell_quote(in.unreadable[0]).c_str());
    if (in.tx.deletions.empty())
        return 0;
    try {
        if (only_fast_forwards(in.tx))
            return 0;
        auto [git_dir, common] = repository_dirs();
        // The shim's listing is taken only from the git it exec'd (config.hpp): one a
        // caller put in the environment names another process and is never read.
        std::string owner = git_identity();
        accept_handoff_from(owner);
        // Our saves may pass guard.keepBranches: their fold waits for this git's transaction.
        fold_after(owner.empty() ? "0 unknown" : owner);
        HookSettings h = hook_settings(git_dir);
        if (!h.settings.enabled)
            return 0;
        std::error_code ec;
        bool reftable = fs::exists(common / "reftable", ec);
        if (args[1] == "preparing" && !reftable)
            return 0; // the files backend is judged in `prepared`, as git locked it
        // git < 2.54 has no `preparing`: the locked reftable store takes no save ref.
        h.refs_locked = reftable && args[1] == "prepared";
        init_log(common, false);
        return guard_transaction(git_dir, common, in, h);
    } catch (const std::exception& e) {
        // A deletion whose safety cannot be established is refused.
        std::fprintf(stderr, "git-guard: cannot check a ref update that may leave commits on no ref, refusing it: %s\n",
                     e.what());
        return 1;
    }
}

} // namespace guard
