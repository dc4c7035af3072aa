// The git process that runs the hook: its command line, its identity, and the record of
// what it already had judged (see hook_caller.hpp).
#include "guard/modes/hook_caller.hpp"

#include "guard/modes/shim.hpp"

#include <fstream>
#include <iterator>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

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
std::vector<std::string> read_git_command_line()
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

// Read once: a `branch -D` of hundreds of branches asks it for each deleted ref.
const std::vector<std::string>& git_command_line()
{
    static const std::vector<std::string> argv = read_git_command_line();
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

} // namespace

std::string git_identity()
{
    long pid = ::getppid();
    auto name = command_line(pid);
    if (!name.empty() && (fs::path(name[0]).filename() == "git-guard-hook" ||
                          fs::path(name[0]).filename() == "reference-transaction")) {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
        std::istringstream rest(text.substr(text.rfind(')') + 1));
        std::string state;
        rest >> state >> pid;
    }
    return process_identity(pid);
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

} // namespace guard
