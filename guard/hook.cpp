// The reference-transaction hook's slow path. The static front end
// (front/hook.c) sends only `prepared` transactions that delete a branch here,
// and runs a chained user hook itself.
#include "guard/hook.hpp"
#include "guard/journal.hpp"

#include "guard/lock.hpp"
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

bool is_oid(const std::string& value)
{
    return value.size() == GIT_OID_HEXSZ && value.find_first_not_of("0123456789abcdef") == std::string::npos;
}

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
bool is_rename(const fs::path& common, const std::string& ref, const git_oid& tip)
{
    std::error_code ec;
    std::ifstream parked(common / "logs" / "refs" / ".tmp-renamed-log");
    std::string line, last;
    while (std::getline(parked, line))
        if (!line.empty())
            last = line;
    if (last.size() > 2 * GIT_OID_HEXSZ && !fs::exists(common / "logs" / ref, ec) &&
        last.substr(GIT_OID_HEXSZ + 1, GIT_OID_HEXSZ) == to_hex(tip))
        return true;
    return runs_branch_move(git_command_line(), ref);
}

Pending pending_of(const std::vector<Update>& updates)
{
    Pending p;
    for (const auto& u : updates) {
        if (is_zero(u.new_value))
            p.deleted.push_back(u.ref);
        else if (is_oid(u.new_value))
            p.created.push_back(parse_oid(u.new_value));
    }
    return p;
}

// Saves one deleted branch's work. Returns false when the deletion must be refused.
bool guard_deletion(git_repository* repo, const Settings& settings, const Update& u,
                    const Pending& pending)
{
    std::string branch = u.ref.substr(11);
    git_oid tip;
    if (is_oid(u.old_value) && !is_zero(u.old_value)) {
        tip = parse_oid(u.old_value);
    } else if (git_reference_name_to_id(&tip, repo, u.ref.c_str()) < 0) {
        git_error_clear();
        return true; // nothing there to lose
    }
    if (is_rename(common_dir(repo), u.ref, tip))
        return true;
    PathLock lock(common_dir(repo), u.ref, settings.lock_timeout);
    Work work = inspect_branch(repo, branch, tip, settings, pending);
    if (work.verdict != Verdict::has_work)
        return true;
    if (branch.starts_with("stranded/")) {
        std::fprintf(stderr,
                     "git-guard: refusing to delete %s: it holds %zu commit(s) found on no other ref.\n"
                     "  inspect: git show --stat %s\n  let it go: git guard drop %s\n",
                     branch.c_str(), work.commits.size(), shell_quote(branch).c_str(),
                     shell_quote(branch).c_str());
        journal_refusal(common_dir(repo), work, "a save holding unique commits; git guard drop lets it go", "branch delete");
        return false;
    }
    try {
        Saved s = save_tip(repo, branch, tip, {.reason = "branch delete"});
        std::fprintf(stderr, "git-guard: saved branch %s to %s (git show --stat %s)\n", branch.c_str(),
                     s.ref.substr(11).c_str(), shell_quote(s.ref.substr(11)).c_str());
    } catch (const Error& e) {
        std::fprintf(stderr, "git-guard: %s", refusal_message(work, e.what(), "delete").c_str());
        journal_refusal(common_dir(repo), work, e.what(), "branch delete");
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
    Pending pending = pending_of(updates);
    bool deletes_branch = false;
    for (const auto& u : updates)
        deletes_branch = deletes_branch || (is_zero(u.new_value) && u.ref.starts_with("refs/heads/"));
    if (!deletes_branch)
        return 0;
    try {
        LibGit2 libgit2;
        Repository repo = open_repository(repository_start());
        Settings settings = read_settings(repo.get());
        if (!settings.enabled)
            return 0;
        init_log(common_dir(repo.get()), false);
        bool ok = true;
        for (const auto& u : updates)
            if (is_zero(u.new_value) && u.ref.starts_with("refs/heads/"))
                ok = guard_deletion(repo.get(), settings, u, pending) && ok;
        return ok ? 0 : 1;
    } catch (const std::exception& e) {
        // A deletion whose safety cannot be established is refused.
        std::fprintf(stderr, "git-guard: cannot check a branch deletion, refusing it: %s\n", e.what());
        return 1;
    }
}

} // namespace guard
