// The reference-transaction hook's slow path. The static front end
// (front/hook.c) sends only `prepared` transactions that delete a branch here,
// and runs a chained user hook itself.
#include "guard/hook.hpp"
#include "guard/journal.hpp"

#include "guard/history.hpp"
#include "guard/lock.hpp"
#include "guard/plumbing.hpp"
#include "guard/log.hpp"
#include "guard/repo.hpp"
#include "guard/report.hpp"
#include "guard/shim.hpp"
#include "guard/snapshot.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

struct Update {
    std::string old_value;
    std::string new_value;
    std::string ref;
};

bool is_zero(const std::string& value)
{
    return is_oid(value) && value.find_first_not_of('0') == std::string::npos;
}

// Lines git cannot have written (or newer formats, `ref:<target>`) are skipped.
std::vector<Update> parse_updates(std::istream& in)
{
    std::vector<Update> updates;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        Update u;
        if (fields >> u.old_value >> u.new_value >> u.ref &&
            (is_oid(u.old_value) || u.old_value.starts_with("ref:")) &&
            (is_oid(u.new_value) || u.new_value.starts_with("ref:")))
            updates.push_back(u);
    }
    return updates;
}

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
// (git-guard-hook) when git ran us through it.
std::vector<std::string> git_command_line()
{
    long pid = ::getppid();
    auto argv = command_line(pid);
    if (!argv.empty() && fs::path(argv[0]).filename() == "git-guard-hook") {
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

// `git branch -m` on 2.39 shows the hook only the old name's deletion. git has
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
    if (last.size() > 2 * tip.size() && !fs::exists(common / "logs" / ref, ec) &&
        last.substr(tip.size() + 1, tip.size()) == tip)
        return true;
    return runs_branch_move(git_command_line(), ref);
}

RefTransaction transaction_of(const std::vector<Update>& updates)
{
    RefTransaction tx;
    for (const auto& u : updates) {
        if (!is_zero(u.new_value)) {
            if (is_oid(u.new_value))
                tx.written.push_back(u.new_value);
        } else if (u.ref.starts_with("refs/heads/") && is_oid(u.old_value)) {
            tx.deletions.push_back({u.ref, is_zero(u.old_value) ? "" : u.old_value});
        } else {
            tx.other_deleted.push_back(u.ref);
        }
    }
    return tx;
}

// Saves one deleted branch's work. Returns false when the deletion must be refused.
bool guard_deletion(const fs::path& common, const BranchVerdict& v)
{
    std::string branch = v.deletion.ref.substr(11);
    if (!v.note.empty())
        std::fprintf(stderr, "git-guard: note: %s\n", v.note.c_str());
    if (v.commits.empty())
        return true;
    Work work;
    work.branch = branch;
    work.head = v.deletion.old_oid;
    work.commits = v.commits;
    if (branch.starts_with("stranded/")) {
        std::fprintf(stderr,
                     "git-guard: refusing to delete %s: it holds %zu commit(s) found on no other ref.\n"
                     "  inspect: git show --stat %s\n  let it go: git guard drop %s\n",
                     branch.c_str(), work.commits.size(), shell_quote(branch).c_str(),
                     shell_quote(branch).c_str());
        journal_refusal(common, work, "a save holding unique commits; git guard drop lets it go", "branch delete");
        return false;
    }
    try {
        Saved s = save_existing(common, branch, v.deletion.old_oid, {.reason = "branch delete"});
        std::fprintf(stderr, "git-guard: saved branch %s to %s (git show --stat %s)\n", branch.c_str(),
                     short_ref(s.ref).c_str(), shell_quote(short_ref(s.ref)).c_str());
    } catch (const Error& e) {
        std::fprintf(stderr, "git-guard: %s", refusal_message(work, e.what(), "delete").c_str());
        journal_refusal(common, work, e.what(), "branch delete");
        return false;
    }
    return true;
}

fs::path repository_start()
{
    if (const char* dir = std::getenv("GIT_DIR"); dir && *dir)
        return dir;
    return fs::current_path();
}

} // namespace

int run_hook(const std::vector<std::string>& args)
{
    if (args.size() < 2 || args[0] != "reference-transaction" || args[1] != "prepared")
        return 0;
    auto updates = parse_updates(std::cin);
    bool deletes_branch = false;
    for (const auto& u : updates)
        deletes_branch = deletes_branch || (is_zero(u.new_value) && u.ref.starts_with("refs/heads/"));
    if (!deletes_branch)
        return 0;
    try {
        Location where = locate(repository_start());
        Settings settings = read_settings(where.common);
        if (!settings.enabled)
            return 0;
        init_log(where.common, false);
        RefTransaction tx = transaction_of(updates);
        for (auto& d : tx.deletions)
            if (d.old_oid.empty()) // no old value given: the ref as it is now
                d.old_oid = first_line_of(Git(where.common).run({"rev-parse", "-q", "--verify", d.ref}).out);
        std::erase_if(tx.deletions, [](const Deletion& d) { return d.old_oid.empty(); });
        // Renames (2.39 shows only the old name's deletion) are not deletions.
        std::erase_if(tx.deletions, [&](const Deletion& d) { return is_rename(where.common, d.ref, d.old_oid); });
        std::vector<PathLock> locks;
        for (const auto& d : tx.deletions)
            locks.emplace_back(where.common, d.ref, settings.lock_timeout);
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        bool ok = true;
        for (const auto& v : judge_deletions(where.git_dir, tx, settings, deadline))
            ok = guard_deletion(where.common, v) && ok;
        return ok ? 0 : 1;
    } catch (const std::exception& e) {
        // A deletion whose safety cannot be established is refused.
        std::fprintf(stderr, "git-guard: cannot check a branch deletion, refusing it: %s\n", e.what());
        return 1;
    }
}

} // namespace guard
