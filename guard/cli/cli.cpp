// The command table and the only place that parses command lines.
#include "guard/cli/cli.hpp"
#include "guard/cli/cli_parts.hpp"
#include "guard/cli/cli_watch.hpp"

#include "guard/install/doctor.hpp"
#include "guard/base/error.hpp"
#include "guard/install/install.hpp"
#include "guard/base/json.hpp"
#include "guard/base/log.hpp"
#include "guard/git/repo.hpp"
#include "guard/install/system_install.hpp"
#include "guard/version.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <cstdlib>

namespace fs = std::filesystem;

namespace guard {

namespace cli {

namespace {
std::vector<std::string> g_operands; // the positional names of the options parse() saw last
}

bool asks_help(const std::vector<std::string>& args)
{
    for (const auto& a : args) {
        if (a == "--")
            return false;
        if (a == "-h" || a == "--help")
            return true;
    }
    return false;
}

po::variables_map parse(const Invocation& inv, po::options_description& options,
                        const po::positional_options_description& positional)
{
    options.add_options()("help,h", "show this help");
    g_operands.clear();
    for (unsigned i = 0; i < positional.max_total_count() && i < 8; ++i)
        if (std::find(g_operands.begin(), g_operands.end(), positional.name_for_position(i)) == g_operands.end())
            g_operands.push_back(positional.name_for_position(i));
    po::variables_map vm;
    if (asks_help(inv.args)) { // the usage, whatever else is given or missing
        po::store(po::command_line_parser(std::vector<std::string>{"--help"}).options(options).run(), vm);
        return vm;
    }
    try {
        po::store(po::command_line_parser(inv.args).options(options).positional(positional).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw UsageError(e.what());
    }
    return vm;
}

bool wants_help(const po::variables_map& vm, const po::options_description& options)
{
    if (!vm.count("help"))
        return false;
    // The usage line, the operands as <name>, then the options (boost would list the
    // operands as --name options, which no user types).
    std::ostringstream boost_text;
    boost_text << options; // its first line is the caption, with a ':'
    std::string caption = boost_text.str().substr(0, boost_text.str().find('\n'));
    if (caption.ends_with(':'))
        caption.pop_back();
    std::printf("%s\n", caption.c_str());
    for (const auto& o : options.options()) {
        bool operand = std::find(g_operands.begin(), g_operands.end(), o->long_name()) != g_operands.end();
        std::string name = operand ? "<" + o->long_name() + ">" : o->format_name() + " " + o->format_parameter();
        while (!name.empty() && name.back() == ' ')
            name.pop_back();
        std::printf("  %-26s %s\n", name.c_str(), o->description().c_str());
    }
    return true;
}

std::string short_id(const std::string& id) { return id.substr(0, 12); }

} // namespace cli

namespace {

using cli::Invocation;
using namespace cli;

struct Command {
    const char* name;
    const char* summary;
    bool needs_repo;
    int (*run)(const Invocation&);
};

int print_report(const InstallReport& report)
{
    for (const auto& line : report.lines)
        std::printf("%s\n", line.c_str());
    return 0;
}

int run_install(const Invocation& inv)
{
    po::options_description options("git guard install [--shim-dir DIR] [--lock-worktrees] [--force] | --system");
    options.add_options()("system", "as root: divert /usr/bin/git and put the shim there, for every caller")(
        "shim-dir", po::value<std::string>(), "where to link the git shim")(
        "lock-worktrees", "lock every worktree so a git that bypasses the shim refuses to remove it")(
        "force", "write into a global core.hooksPath; accept git older than 2.38");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    if (vm.count("system") && vm.size() > 1)
        throw UsageError("--system takes no other option: it guards the machine's /usr/bin/git; "
                         "run 'git guard install' in a repository to guard it");
    if (vm.count("system"))
        return print_report(install_system());
    InstallOptions opts;
    if (vm.count("shim-dir"))
        opts.shim_dir = absolute_path(inv.cwd / vm["shim-dir"].as<std::string>());
    opts.lock_worktrees = vm.count("lock-worktrees") > 0;
    opts.force = vm.count("force") > 0;
    return print_report(install(inv.site, opts));
}

int run_uninstall(const Invocation& inv)
{
    po::options_description options("git guard uninstall [--system]");
    options.add_options()("system", "as root: restore the distribution's /usr/bin/git, remove the diversion");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    if (vm.count("system"))
        return print_report(uninstall_system());
    return print_report(uninstall(inv.site));
}

int run_doctor(const Invocation& inv)
{
    po::options_description options("git guard doctor [--json]");
    options.add_options()("json", "one JSON object per check");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    int failed = 0;
    for (const auto& c : diagnose(inv.site)) {
        failed += c.ok ? 0 : 1;
        if (vm.count("json"))
            std::printf("%s\n", JsonObject().add("check", c.name).add("ok", c.ok).add("detail", c.detail)
                                    .add_raw("fix", json_or_null(c.fix)).str().c_str());
        else if (c.ok)
            std::printf("ok    %s: %s\n", c.name.c_str(), c.detail.c_str());
        else
            std::printf("FAIL  %s: %s\n      fix: %s\n", c.name.c_str(), c.detail.c_str(), c.fix.c_str());
    }
    return failed ? 1 : 0;
}

int run_version(const Invocation& inv)
{
    po::options_description options("git guard version [--json]");
    options.add_options()("json", "the version as a JSON object");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    if (vm.count("json"))
        std::printf("%s\n", JsonObject().add("version", GUARD_VERSION).str().c_str());
    else
        std::printf("git-guard %s\n", GUARD_VERSION);
    return 0;
}

int run_help(const Invocation& inv);

const Command k_commands[] = {
    {"status", "show what each worktree or branch holds that a removal would destroy", true, run_status},
    {"save", "save a worktree's work to a verified stranded/ branch", true, run_save},
    {"remove", "save, then remove a worktree (husks and read-only trees too)", true, run_remove},
    {"discard", "destroy a tree's or branch's unsaved work, explicitly", true, run_discard},
    {"list", "list the saves, with their source, reason and backup state", true, run_list},
    {"show", "what a save holds, where it came from, when and why", true, run_show},
    {"restore", "put a save back: the worktree as it was, or the deleted branch", true, run_restore},
    {"undo", "put back what the last destroyer took (--list: the recent ones)", true, run_undo},
    {"drop", "delete saves (or every published one: --published)", true, run_drop},
    {"log", "the journal: saves before destroyers, refusals, discards, drops, restores (--snapshots too)",
     true, run_log},
    {"push", "push the saves not yet backed up to guard.backupRemote", true, run_push},
    {"fold", "fold the oldest saves into chains: few refs, every save kept", true, run_fold},
    {"install", "guard this repository: hook, shim, guard.enabled", true, run_install},
    {"uninstall", "restore the hooks and config install changed", true, run_uninstall},
    {"repair", "remove saves that name pruned objects (doctor's save_objects fix)", true, run_repair},
    {"doctor", "check that this repository is guarded, with a fix for each problem", true, run_doctor},
    {"watch", "the backstop's watcher: start, --status, --stop, --foreground, --lost", false, run_watch},
    {"help", "show the commands, or one command's usage: help <command>", false, run_help},
    {"version", "print the version", false, run_version},
};

const Command* find_command(const std::string& name)
{
    for (const auto& c : k_commands)
        if (name == c.name)
            return &c;
    return nullptr;
}

int run_help(const Invocation& inv)
{
    if (!inv.args.empty() && !inv.args.front().starts_with("-")) {
        const Command* c = find_command(inv.args.front());
        if (!c)
            throw UsageError("'" + inv.args.front() + "' is not a git guard command (see 'git guard help')");
        std::printf("git guard %s: %s\n", c->name, c->summary);
        Invocation asked = inv;
        asked.args = {"--help"};
        return c->run(asked);
    }
    std::printf("usage: git guard [-v] [-C <path>] <command> [<args>]\n\n");
    for (const auto& c : k_commands)
        std::printf("   %-10s %s\n", c.name, c.summary);
    std::printf("\n  -v, --verbose  say more (each item of a bulk operation)\n  -C <path>      run as if started in <path>\n");
    std::printf("\n'git guard <command> --help' or 'git guard help <command>' shows a command's options.\n");
    return 0;
}

} // namespace

int run_cli(const std::vector<std::string>& args)
{
    Invocation inv;
    // As git -C: a deleted current directory matters only while no absolute -C replaced it.
    std::error_code gone;
    inv.cwd = fs::current_path(gone);
    auto require_cwd = [&] {
        if (gone)
            throw Error("the current directory is gone (" + gone.message() + "): use -C <absolute path>");
    };
    size_t i = 1;
    for (; i < args.size() && args[i].size() > 1 && args[i][0] == '-'; ++i) {
        if (args[i] == "-v" || args[i] == "--verbose") {
            inv.verbose = true;
            ::setenv("GIT_GUARD_VERBOSE", "1", 1); // the hook of a git this run starts reports each item too
        }
        else if (args[i] == "-C" && i + 1 < args.size() && fs::path(args[i + 1]).is_absolute())
            inv.cwd = fs::path(args[++i]).lexically_normal(), gone.clear();
        else if (args[i] == "-C" && i + 1 < args.size())
            require_cwd(), inv.cwd = absolute_path(inv.cwd / args[++i]);
        else if (args[i] == "--version")
            return run_version(inv);
        else if (args[i] == "--help" || args[i] == "-h")
            return run_help(inv);
        else
            throw UsageError("unknown option '" + args[i] + "' (see 'git guard help')");
    }
    std::string name = i < args.size() ? args[i] : "help";
    if (name != "help" && name != "version")
        require_cwd();
    inv.args.assign(args.begin() + static_cast<long>(std::min(i + 1, args.size())), args.end());
    for (const auto& c : k_commands) {
        if (name != c.name)
            continue;
        if (asks_help(inv.args) && name != "help") {
            std::printf("git guard %s: %s\n", c.name, c.summary);
            return c.run(inv); // the usage only: no repository needed
        }
        if (c.needs_repo) { // libgit2 starts only where a repository is opened (use_libgit2)
            // The run's one Site, handed to the command (as git's RUN_SETUP): outside a
            // repository it is empty, and the command reports why when it needs one.
            try {
                inv.site = site_at(inv.cwd);
            } catch (const Error& e) {
                inv.site.dir = inv.cwd;
                inv.site.why = e.what();
            }
            init_log(inv.site.common, inv.verbose);
            spdlog::info("git guard {}", name);
        }
        return c.run(inv);
    }
    throw UsageError("'" + name + "' is not a git guard command (see 'git guard help')");
}

} // namespace guard
