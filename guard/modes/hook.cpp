// The reference-transaction hook's slow path. The static front end (front/hook.c)
// sends only `prepared` transactions that delete or move a branch, a save or a detached
// HEAD in a way it could not prove harmless, once per transaction, and runs a chained
// user hook itself. One pass judges every deletion and move together by effect (DESIGN
// §0.6, §4.2: an old value the transaction leaves on no ref), bounded by guard.hookTimeout.
#include "guard/modes/hook.hpp"

#include "guard/git/bounded.hpp"
#include "guard/modes/keep.hpp"
#include "guard/git/history.hpp"
#include "guard/modes/transaction.hpp"
#include "guard/base/error.hpp"
#include "guard/base/lock.hpp"
#include "guard/base/log.hpp"
#include "guard/git/process.hpp"
#include "guard/save/report.hpp"
#include "guard/modes/shim.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace guard {

namespace {

std::vector<std::string> command_line(long pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> argv;
    for (size_t i = 0; i < cmd.size();) {
        size_t end = cmd.find('\0', i);
        argv.push_back(cmd.substr(i, end - i));
        i = end == std::string::npos ? cmd.size() : end + 1;
    }
    return argv;
}

// The git that runs this hook: our parent, or the parent of the static front end
// (git-guard-hook, or its link reference-transaction) when it did not exec us.
std::vector<std::string> git_command_line()
{
    long pid = ::getppid();
    auto argv = command_line(pid);
    std::string name = argv.empty() ? "" : fs::path(argv[0]).filename().string();
    if (name == "git-guard-hook" || name == "reference-transaction") {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
        std::istringstream rest(text.substr(text.rfind(')') + 1));
        std::string state;
        rest >> state >> pid;
        argv = command_line(pid);
    }
    return argv;
}

// `git [options] branch -m|-M|--move [<old>] <new>` deleting `ref`, which is not
// <new>: the rename's own deletion of the old name. The deletion of <new> itself
// (`-M` over an existing branch) is a real loss and is guarded.
bool runs_branch_move(const std::vector<std::string>& argv, const std::string& ref)
{
    size_t i = subcommand_index(argv);
    if (i >= argv.size() || argv[i] != "branch")
        return false;
    bool move = false;
    std::string last;
    for (++i; i < argv.size(); ++i) {
        if (argv[i] == "-m" || argv[i] == "-M" || argv[i] == "--move")
            move = true;
        else if (!argv[i].starts_with("-"))
            last = argv[i];
    }
    return move && !last.empty() && ref != "refs/heads/" + last;
}

// `git branch -m` (2.39 and 2.55) shows the hook only the old name's deletion. git has
// parked the old name's reflog at logs/refs/.tmp-renamed-log for the rename's
// duration (a stale one, left by a crash, still lies next to the ref's own reflog
// or ends at another tip); without a reflog, git's command line says it.
bool is_rename(const fs::path& common, const std::string& ref, const std::string& tip)
{
    std::error_code ec;
    std::ifstream parked(common / "logs" / "refs" / ".tmp-renamed-log");
    std::string line, last;
    while (std::getline(parked, line))
        if (!line.empty())
            last = line;
    size_t id = tip.size();
    if (last.size() > 2 * id && !fs::exists(common / "logs" / ref, ec) && last.substr(id + 1, id) == tip)
        return true;
    return runs_branch_move(git_command_line(), ref);
}

// git's pid and start time: our parent, or the front end's parent when it forked us.
std::string git_identity()
{
    auto stat_of = [](long pid) {
        std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::istringstream rest(text.substr(text.rfind(')') + 2));
        std::vector<std::string> fields{std::istream_iterator<std::string>(rest), {}};
        return fields; // fields[0] is field 3 (state)
    };
    long pid = ::getppid();
    auto name = command_line(pid);
    if (!name.empty() && (fs::path(name[0]).filename() == "git-guard-hook" ||
                          fs::path(name[0]).filename() == "reference-transaction")) {
        auto f = stat_of(pid);
        pid = f.size() > 1 ? std::stol(f[1]) : 0;
    }
    auto f = stat_of(pid);
    return f.size() > 19 ? std::to_string(pid) + " " + f[19] : "";
}

// Tells the front end what this git process already had judged (see already_judged
// in front/hook.c): git 2.39 runs the hook again for each loose ref of a branch -D.
// Written whole, then renamed: a killed run leaves at most a stray temporary file.
void record_judged(const fs::path& common, const RefTransaction& tx)
{
    std::string who = git_identity();
    if (who.empty())
        return;
    std::error_code ec;
    fs::create_directories(common / "guard", ec);
    fs::path tmp = common / "guard" / ("hook-judged." + std::to_string(::getpid()) + ".tmp");
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << who << "\n";
        for (const auto& d : tx.deletions)
            out << d.old_oid << " " << d.ref << "\n";
        if (!out)
            return;
    }
    fs::rename(tmp, common / "guard" / "hook-judged", ec);
    if (ec)
        fs::remove(tmp, ec);
}

// The repository git runs the hook for: its git dir and common dir.
std::pair<fs::path, fs::path> repository_dirs()
{
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

// Resolves old values git did not check (one cat-file for all), drops renames,
// creations and updates that keep their value, and leaves what must be judged.
void prepare(const fs::path& git_dir, const fs::path& common, RefTransaction& tx)
{
    drop_symbolic_head(git_dir, tx);
    std::string names;
    for (const auto& d : tx.deletions)
        if (d.old_oid.empty())
            names += d.ref + "\n";
    std::istringstream resolved;
    if (!names.empty()) {
        auto r = run_git_bounded(git_dir, {"cat-file", "--batch-check=%(objectname) %(rest)"}, names,
                                 Clock::now() + std::chrono::seconds(30));
        // Fail closed (§0.3): a tip we cannot read is no "nothing there".
        if (!r || r->status != 0)
            throw Error("cannot read the updated refs' old values (git cat-file failed)");
        resolved.str(r->out);
    }
    std::vector<Deletion> kept;
    for (auto& d : tx.deletions) {
        std::string line;
        // cat-file answers "<oid> " or "<ref> missing", in input order.
        if (d.old_oid.empty() && std::getline(resolved, line) && is_id_hex(line.substr(0, line.find(' '))))
            d.old_oid = line.substr(0, line.find(' '));
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

constexpr size_t k_lock_batch = 64;

int guard_transaction(const fs::path& git_dir, const fs::path& common, Input& in, const HookSettings& h)
{
    prepare(git_dir, common, in.tx);
    if (in.tx.deletions.empty())
        return 0;
    auto deadline = Clock::now() + h.timeout;
    auto verdicts = judge_deletions(git_dir, in.tx, h.settings, deadline);
    size_t unchecked = 0;
    std::vector<const BranchVerdict*> kept;
    for (const auto& v : verdicts) {
        if (!v.note.empty())
            std::fprintf(stderr, "git-guard: note: %s\n", v.note.c_str());
        if (v.commits.empty())
            continue;
        unchecked += v.unchecked;
        kept.push_back(&v);
    }
    // In name order, k_lock_batch refs at a time: each lock is held across its save, and a
    // process holding a thousand file locks pays for each new one (PathLock scans its fds).
    std::sort(kept.begin(), kept.end(), [](auto* a, auto* b) { return a->deletion.ref < b->deletion.ref; });
    bool ok = true;
    for (size_t at = 0; at < kept.size(); at += k_lock_batch) {
        std::vector<const BranchVerdict*> batch(kept.begin() + static_cast<long>(at),
                                                kept.begin() + static_cast<long>(std::min(kept.size(), at + k_lock_batch)));
        std::vector<PathLock> locks = lock_refs(common, batch, h.settings.lock_timeout);
        ok = keep_verdicts(git_dir, common, batch, h.mirror || h.refs_locked ? Bundle::yes : Bundle::no) && ok;
    }
    if (ok)
        record_judged(common, in.tx);
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
    Input in = parse_input(text);
    // git cannot be deleting a ref it cannot name: such lines are named and ignored, once:
    // the front end says when it named them already.
    bool named = args.size() > 2 && args[2] == "--unreadable-named";
    if (!in.unreadable.empty() && !named)
        std::fprintf(stderr, "git-guard: ignored %zu ref update line(s) git does not write, the first: %s\n",
                     in.unreadable.size(), shell_quote(in.unreadable[0].substr(0, 100)).c_str());
    if (in.tx.deletions.empty())
        return 0;
    try {
        if (only_fast_forwards(in.tx))
            return 0;
        auto [git_dir, common] = repository_dirs();
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
