// The command table and the only place that parses command lines.
#include "guard/cli.hpp"

#include "guard/doctor.hpp"
#include "guard/error.hpp"
#include "guard/install.hpp"
#include "guard/json.hpp"
#include "guard/log.hpp"
#include "guard/process.hpp"
#include "guard/removal.hpp"
#include "guard/repo.hpp"
#include "guard/report.hpp"
#include "guard/snapshot.hpp"
#include "guard/stranded.hpp"
#include "guard/version.hpp"
#include "guard/work.hpp"

#include <boost/program_options.hpp>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <iostream>
#include <optional>

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace guard {

namespace {

struct Invocation {
    std::vector<std::string> args; // after the command name
    fs::path cwd;
    bool verbose = false;
};

struct Command {
    const char* name;
    const char* summary;
    bool needs_repo;
    int (*run)(const Invocation&);
};

// Parses `inv.args` against `options`, with `positional` names taking the rest.
po::variables_map parse(const Invocation& inv, po::options_description& options,
                        const po::positional_options_description& positional)
{
    options.add_options()("help,h", "show this help");
    po::variables_map vm;
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
    std::cout << options;
    return true;
}

template <class T> std::vector<T> list(const po::variables_map& vm, const char* key)
{
    return vm.count(key) ? vm[key].as<std::vector<T>>() : std::vector<T>{};
}

std::string short_id(const std::string& id) { return id.substr(0, 12); }

std::string change_json(const Change& c)
{
    return JsonObject().add("path", c.path).add("kind", to_string(c.kind)).str();
}

JsonObject work_json(const Work& w)
{
    JsonObject o;
    w.path.empty() ? o.add_null("path") : o.add("path", w.path);
    w.branch.empty() ? o.add_null("branch") : o.add("branch", w.branch);
    w.head ? o.add("head", *w.head) : o.add_null("head");
    o.add("verdict", to_string(w.verdict));
    w.reason.empty() ? o.add_null("reason") : o.add("reason", w.reason);
    std::vector<std::string> changes, excluded;
    for (const auto& c : w.changes)
        changes.push_back(change_json(c));
    for (const auto& e : w.excluded)
        excluded.push_back(JsonObject().add("path", e.path).add("why", e.why).str());
    o.add_raw("changes", json_array(changes));
    o.add_strings("commits", w.commits);
    o.add_raw("excluded", json_array(excluded));
    return o;
}

void add_saved(JsonObject& o, const Saved& s)
{
    o.add("stranded", s.ref).add("commit", s.commit).add("diffstat", s.diffstat);
}

void print_paths(const char* label, const std::vector<std::string>& paths)
{
    constexpr size_t k_shown = 5;
    std::string line = "  " + std::string(label) + " " + std::to_string(paths.size()) + ":";
    for (size_t i = 0; i < paths.size() && i < k_shown; ++i)
        line += (i ? ", " : " ") + paths[i];
    if (paths.size() > k_shown)
        line += ", ...";
    std::printf("%s\n", line.c_str());
}

void print_work(const Work& w)
{
    std::string what = w.path.empty() ? "branch " + w.branch
                                      : w.path + " (" + (w.branch.empty() ? "detached" : w.branch) + ")";
    std::string verdict = w.verdict == Verdict::cannot_save ? "cannot be saved: " + w.reason
                          : w.verdict == Verdict::has_work  ? "has work"
                                                            : "clean";
    std::printf("%s: %s\n", what.c_str(), verdict.c_str());
    for (auto kind : {ChangeKind::modified, ChangeKind::staged, ChangeKind::deleted, ChangeKind::renamed,
                      ChangeKind::type_changed, ChangeKind::unmerged, ChangeKind::untracked,
                      ChangeKind::ignored}) {
        std::vector<std::string> paths;
        for (const auto& c : w.changes)
            if (c.kind == kind)
                paths.push_back(c.path);
        if (!paths.empty())
            print_paths(to_string(kind), paths);
    }
    std::vector<std::string> commits;
    for (const auto& c : w.commits)
        commits.push_back(short_id(c));
    if (!commits.empty())
        print_paths("commits", commits);
    std::vector<std::string> excluded;
    for (const auto& e : w.excluded)
        excluded.push_back(e.path + " (" + e.why + ")");
    if (!excluded.empty())
        print_paths("excluded", excluded);
}

int run_status(const Invocation& inv)
{
    po::options_description options("git guard status [PATH...] [--branch NAME...] [--json]");
    options.add_options()("branch", po::value<std::vector<std::string>>(), "a branch to inspect")(
        "json", "one JSON object per tree or branch")(
        "path", po::value<std::vector<std::string>>(), "worktree roots (default: every worktree)");
    po::positional_options_description positional;
    positional.add("path", -1);
    auto vm = parse(inv, options, positional);
    if (wants_help(vm, options))
        return 0;
    std::vector<fs::path> paths;
    for (const auto& p : list<std::string>(vm, "path"))
        paths.push_back(inv.cwd / p);
    auto works = inspect_paths(inv.cwd, paths, list<std::string>(vm, "branch"));
    for (const auto& w : works) {
        if (vm.count("json"))
            std::printf("%s\n", work_json(w).str().c_str());
        else
            print_work(w);
    }
    return 0;
}

int run_save(const Invocation& inv)
{
    po::options_description options("git guard save [PATH] [--reason TEXT] [--json]");
    options.add_options()("reason", po::value<std::string>()->default_value("save"),
                          "recorded as Stranded-Reason")("json", "print the result as JSON")(
        "path", po::value<std::string>()->default_value("."), "the worktree root");
    po::positional_options_description positional;
    positional.add("path", 1);
    auto vm = parse(inv, options, positional);
    if (wants_help(vm, options))
        return 0;
    SaveResult result;
    fs::path tree = inv.cwd / vm["path"].as<std::string>();
    try {
        result = save_path(inv.cwd, tree, {.reason = vm["reason"].as<std::string>()});
    } catch (const Error& e) {
        result.work.path = tree.string();
        result.work.verdict = Verdict::cannot_save;
        result.work.reason = e.what();
        result.refused = e.what();
    }
    if (!result.refused.empty()) {
        if (vm.count("json"))
            std::printf("%s\n", work_json(result.work).str().c_str());
        std::fprintf(stderr, "git-guard: refused: %s%s", result.refused.c_str(),
                     result.refused.ends_with('\n') ? "" : "\n");
        return 1;
    }
    if (vm.count("json")) {
        auto o = work_json(result.work);
        if (result.saved)
            add_saved(o, *result.saved);
        std::printf("%s\n", o.str().c_str());
    } else if (result.saved && result.saved->existing) {
        std::printf("nothing new to save in %s: %s already holds its work\n", result.work.path.c_str(),
                    result.saved->ref.c_str());
    } else if (result.saved) {
        std::printf("saved %s to %s\n%s", result.work.path.c_str(), result.saved->ref.c_str(),
                    describe(*result.saved).c_str());
    } else {
        std::printf("nothing to save in %s: it holds no work\n", result.work.path.c_str());
    }
    return 0;
}

int run_remove(const Invocation& inv)
{
    po::options_description options("git guard remove <tree> [--delete-branch] [--discard] [--json]");
    options.add_options()("delete-branch", "delete the tree's branch too, saved first")(
        "discard", "destroy the tree's work without saving it")("json", "print the result as JSON")(
        "tree", po::value<std::string>()->required(), "the worktree root");
    po::positional_options_description positional;
    positional.add("tree", 1);
    auto vm = parse(inv, options, positional);
    if (wants_help(vm, options))
        return 0;
    RemoveOptions opts{.delete_branch = vm.count("delete-branch") ? DeleteBranch::yes : DeleteBranch::no,
                       .discard = vm.count("discard") ? Discard::yes : Discard::no};
    auto result = remove_tree(inv.cwd, inv.cwd / vm["tree"].as<std::string>(), opts);
    const char* outcomes[] = {"removed", "moved", "kept"};
    if (vm.count("json")) {
        JsonObject o;
        o.add("path", vm["tree"].as<std::string>()).add("outcome", outcomes[static_cast<int>(result.outcome)]);
        o.add("message", result.message);
        std::vector<std::string> refs;
        for (const auto& s : result.saved)
            refs.push_back(s.ref);
        o.add_strings("stranded", refs);
        std::printf("%s\n", o.str().c_str());
    } else {
        for (const auto& s : result.saved)
            std::printf("saved to %s\n%s", s.ref.c_str(), describe(s).c_str());
        std::printf("%s\n", result.message.c_str());
    }
    return result.outcome == Outcome::kept ? 1 : 0;
}

int run_discard(const Invocation& inv)
{
    po::options_description options("git guard discard <tree|branch|stranded-branch>");
    options.add_options()("target", po::value<std::string>()->required(), "what to destroy");
    po::positional_options_description positional;
    positional.add("target", 1);
    auto vm = parse(inv, options, positional);
    if (wants_help(vm, options))
        return 0;
    std::printf("%s\n", discard(inv.cwd, vm["target"].as<std::string>()).c_str());
    return 0;
}

int run_list(const Invocation& inv)
{
    po::options_description options("git guard list [--json]");
    options.add_options()("json", "one JSON object per stranded branch");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    for (const auto& s : list_stranded(inv.cwd)) {
        if (vm.count("json"))
            std::printf("%s\n", JsonObject().add("stranded", s.ref).add("commit", s.commit)
                                    .add("path", s.from).add("branch", s.branch).add("reason", s.reason)
                                    .add("time", s.time).str().c_str());
        else
            std::printf("%s  %s  %s (%s)  %s\n", s.ref.c_str(), short_id(s.commit).c_str(),
                        s.from.c_str(), s.branch.c_str(), s.reason.c_str());
    }
    return 0;
}

int run_drop(const Invocation& inv)
{
    po::options_description options("git guard drop <stranded-branch>");
    options.add_options()("branch", po::value<std::string>()->required(), "the stranded branch");
    po::positional_options_description positional;
    positional.add("branch", 1);
    auto vm = parse(inv, options, positional);
    if (wants_help(vm, options))
        return 0;
    drop_stranded(inv.cwd, vm["branch"].as<std::string>());
    std::printf("dropped %s\n", vm["branch"].as<std::string>().c_str());
    return 0;
}

int print_report(const InstallReport& report)
{
    for (const auto& line : report.lines)
        std::printf("%s\n", line.c_str());
    return 0;
}

int run_install(const Invocation& inv)
{
    po::options_description options("git guard install [--shim-dir DIR] [--lock-worktrees] [--force]");
    options.add_options()("shim-dir", po::value<std::string>(), "where to link the git shim")(
        "lock-worktrees", "lock every worktree so a git that bypasses the shim refuses to remove it")(
        "force", "write into a global core.hooksPath; accept git older than 2.38");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    InstallOptions opts;
    if (vm.count("shim-dir"))
        opts.shim_dir = absolute_path(inv.cwd / vm["shim-dir"].as<std::string>());
    opts.lock_worktrees = vm.count("lock-worktrees") > 0;
    opts.force = vm.count("force") > 0;
    return print_report(install(inv.cwd, opts));
}

int run_uninstall(const Invocation& inv)
{
    po::options_description options("git guard uninstall");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    return print_report(uninstall(inv.cwd));
}

int run_doctor(const Invocation& inv)
{
    po::options_description options("git guard doctor [--json]");
    options.add_options()("json", "one JSON object per check");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    int failed = 0;
    for (const auto& c : diagnose(inv.cwd)) {
        failed += c.ok ? 0 : 1;
        if (vm.count("json"))
            std::printf("%s\n", JsonObject().add("check", c.name).add("ok", c.ok).add("detail", c.detail)
                                    .add("fix", c.fix).str().c_str());
        else if (c.ok)
            std::printf("ok    %s: %s\n", c.name.c_str(), c.detail.c_str());
        else
            std::printf("FAIL  %s: %s\n      fix: %s\n", c.name.c_str(), c.detail.c_str(), c.fix.c_str());
    }
    return failed ? 1 : 0;
}

int run_version(const Invocation&)
{
    std::printf("git-guard %s\n", GUARD_VERSION);
    return 0;
}

int run_help(const Invocation& inv);

const Command k_commands[] = {
    {"status", "show what each worktree or branch holds that a removal would destroy", true, run_status},
    {"save", "save a worktree's work to a verified stranded/ branch", true, run_save},
    {"remove", "save, then remove a worktree (husks and read-only trees too)", true, run_remove},
    {"discard", "destroy a tree's or branch's unsaved work, explicitly", true, run_discard},
    {"list", "list the stranded/ branches", true, run_list},
    {"drop", "delete a stranded/ branch", true, run_drop},
    {"install", "guard this repository: hook, shim, guard.enabled", true, run_install},
    {"uninstall", "restore the hooks and config install changed", true, run_uninstall},
    {"doctor", "check that this repository is guarded, with a fix for each problem", true, run_doctor},
    {"help", "show the commands", false, run_help},
    {"version", "print the version", false, run_version},
};

int run_help(const Invocation&)
{
    std::printf("usage: git guard [-v] [-C <path>] <command> [<args>]\n\n");
    for (const auto& c : k_commands)
        std::printf("   %-10s %s\n", c.name, c.summary);
    std::printf("\n'git guard <command> --help' shows a command's options.\n");
    return 0;
}

} // namespace

int run_cli(const std::vector<std::string>& args)
{
    Invocation inv;
    inv.cwd = fs::current_path();
    size_t i = 1;
    for (; i < args.size() && args[i].size() > 1 && args[i][0] == '-'; ++i) {
        if (args[i] == "-v" || args[i] == "--verbose")
            inv.verbose = true;
        else if (args[i] == "-C" && i + 1 < args.size())
            inv.cwd = absolute_path(inv.cwd / args[++i]);
        else if (args[i] == "--version")
            return run_version(inv);
        else if (args[i] == "--help" || args[i] == "-h")
            return run_help(inv);
        else
            throw UsageError("unknown option '" + args[i] + "' (see 'git guard help')");
    }
    std::string name = i < args.size() ? args[i] : "help";
    inv.args.assign(args.begin() + static_cast<long>(std::min(i + 1, args.size())), args.end());
    for (const auto& c : k_commands) {
        if (name != c.name)
            continue;
        std::optional<LibGit2> libgit2; // only commands that read a repository pay for it
        if (c.needs_repo) {
            libgit2.emplace();
            try {
                init_log(locate(inv.cwd).common, inv.verbose);
            } catch (const Error&) {
                // The command itself reports a missing or unsupported repository.
                init_log({}, inv.verbose);
            }
            spdlog::info("git guard {}", name);
        }
        return c.run(inv);
    }
    throw UsageError("'" + name + "' is not a git guard command (see 'git guard help')");
}

} // namespace guard
