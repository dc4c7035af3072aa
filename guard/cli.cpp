// The command table and the only place that parses command lines.
#include "guard/cli.hpp"

#include "guard/backup.hpp"
#include "guard/contents.hpp"
#include "guard/doctor.hpp"
#include "guard/error.hpp"
#include "guard/install.hpp"
#include "guard/journal.hpp"
#include "guard/json.hpp"
#include "guard/trailers.hpp"
#include "guard/log.hpp"
#include "guard/plumbing.hpp"
#include "guard/process.hpp"
#include "guard/receipt.hpp"
#include "guard/removal.hpp"
#include "guard/repo.hpp"
#include "guard/report.hpp"
#include "guard/restore.hpp"
#include "guard/snapshot.hpp"
#include "guard/stranded.hpp"
#include "guard/version.hpp"
#include "guard/work.hpp"

#include <boost/program_options.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
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
    o.add("ref", s.ref).add("commit", s.commit).add("diffstat", s.diffstat);
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

// DESIGN §13: the saves guard.backupRemote does not hold yet.
// The saves of the repository status inspected that guard.backupRemote does not hold yet.
void print_unbacked(const std::vector<Work>& works)
{
    std::vector<std::string> refs;
    try {
        if (works.empty() || works.front().git_dir.empty())
            return;
        fs::path common = common_of(works.front().git_dir);
        if (read_record_settings(common).backup_remote.empty())
            return; // no backup remote: nothing is "not backed up yet"
        for (const auto& s : list_saves(common, {.in_place = true}))
            if (s.backed_up && !*s.backed_up)
                refs.push_back(s.ref);
    } catch (const Error& e) {
        spdlog::warn("status: cannot tell which saves are backed up: {}", e.what());
    }
    if (!refs.empty())
        print_paths("saves not backed up yet (git guard push)", refs);
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
    if (!vm.count("json"))
        print_unbacked(works);
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
        result = save_path(inv.cwd, tree, {.reason = vm["reason"].as<std::string>(), .stage_early = true});
    } catch (const Error& e) {
        result.work.path = tree.string();
        result.work.verdict = Verdict::cannot_save;
        result.work.reason = e.what();
        result.refused = e.what();
    }
    if (!result.refused.empty()) {
        journal_refusal({}, result.work, result.refused, "save");
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
        o.add("path", absolute_path(inv.cwd / vm["tree"].as<std::string>()).string());
        o.add("outcome", outcomes[static_cast<int>(result.outcome)]).add("message", result.message);
        std::vector<std::string> saves;
        for (const auto& s : result.saved)
            saves.push_back(JsonObject().add("ref", s.ref).add("commit", s.commit)
                                .add("diffstat", s.diffstat).str());
        o.add_raw("saves", json_array(saves));
        result.moved_to.empty() ? o.add_null("moved_to") : o.add("moved_to", result.moved_to.string());
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

// Seconds since the epoch for `--since`, as git itself reads dates ("2 days ago", ISO 8601).
long long since_time(const Invocation& inv, const std::string& text)
{
    auto r = run({find_real_git(), "-C", inv.cwd.string(), "rev-parse", "--since=" + text});
    auto at = r.out.find("--max-age=");
    if (r.status != 0 || at == std::string::npos)
        throw UsageError("--since: git cannot read '" + text + "' as a date");
    return std::atoll(r.out.c_str() + at + 10);
}

int run_list(const Invocation& inv)
{
    po::options_description options("git guard list [--all] [--source TEXT] [--since DATE] [--json]");
    options.add_options()("json", "one JSON object per save")(
        "all", "in-place saves too (refs/stranded/: before reset --hard, checkout --, ...)")(
        "source", po::value<std::string>(), "only saves whose tree path or branch contains TEXT")(
        "since", po::value<std::string>(), "only saves made since DATE (as git reads dates)");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    ListOptions opts{.in_place = vm.count("all") > 0};
    if (vm.count("source"))
        opts.source = vm["source"].as<std::string>();
    if (vm.count("since"))
        opts.since = since_time(inv, vm["since"].as<std::string>());
    auto saves = list_saves(inv.cwd, opts);
    size_t hidden = opts.in_place ? 0 : list_saves(inv.cwd, {.in_place = true, .source = opts.source,
                                                              .since = opts.since}).size() - saves.size();
    for (const auto& s : saves) {
        if (vm.count("json"))
            std::printf("%s\n", save_json(s).str().c_str());
        else
            std::printf("%s\n", save_line(s).c_str());
    }
    if (hidden && !vm.count("json"))
        std::printf("(%zu in-place save(s) not shown: git guard list --all)\n", hidden);
    return 0;
}

int run_show(const Invocation& inv)
{
    po::options_description options("git guard show <ref> [--json]");
    options.add_options()("json", "the save as one JSON object")(
        "ref", po::value<std::string>()->required(), "the save (see git guard list)");
    po::positional_options_description positional;
    positional.add("ref", 1);
    auto vm = parse(inv, options, positional);
    if (wants_help(vm, options))
        return 0;
    Save save = find_save(inv.cwd, vm["ref"].as<std::string>());
    fs::path common = common_dir_of(inv.cwd);
    SaveLayout layout = read_layout(common, save.commit);
    SaveContents contents = save_contents(common, layout);
    if (vm.count("json"))
        std::printf("%s\n", show_json(save, layout, contents).str().c_str());
    else
        std::printf("%s", show_text(save, layout, contents).c_str());
    return 0;
}

int run_restore(const Invocation& inv)
{
    po::options_description options("git guard restore <ref> [<path>] [--json]");
    options.add_options()("json", "the result as one JSON object")(
        "ref", po::value<std::string>()->required(), "the save (see git guard list)")(
        "path", po::value<std::string>(), "where the worktree goes (default: where it came from)");
    po::positional_options_description positional;
    positional.add("ref", 1).add("path", 1);
    auto vm = parse(inv, options, positional);
    if (wants_help(vm, options))
        return 0;
    RestoreOptions opts;
    if (vm.count("path"))
        opts.path = inv.cwd / vm["path"].as<std::string>();
    Restored r;
    try {
        r = restore_save(inv.cwd, vm["ref"].as<std::string>(), opts);
    } catch (const Error& e) {
        std::fprintf(stderr, "git-guard: refused: %s\n", e.what());
        return 1;
    }
    if (vm.count("json")) {
        std::printf("%s\n", restored_json(r).str().c_str());
    } else if (r.kind == "branch") {
        std::printf("restored branch %s at %s from %s\n", r.branch.c_str(), short_id(r.head).c_str(), r.ref.c_str());
    } else {
        std::printf("restored %s into %s (%s at %s)\n", r.ref.c_str(), r.path.c_str(),
                    r.branch.empty() ? "detached HEAD" : ("branch " + r.branch).c_str(), short_id(r.head).c_str());
    }
    for (const auto& note : r.notes)
        std::fprintf(stderr, "note: %s\n", note.c_str());
    std::fprintf(stderr, "the save stays; once you are happy: git guard drop %s\n", r.ref.c_str());
    return 0;
}

int run_drop(const Invocation& inv)
{
    po::options_description options("git guard drop <ref>... | --published");
    options.add_options()("published", "drop every save whose content is published (DESIGN 4.2)")(
        "ref", po::value<std::vector<std::string>>(), "the saves to drop");
    po::positional_options_description positional;
    positional.add("ref", -1);
    auto vm = parse(inv, options, positional);
    if (wants_help(vm, options))
        return 0;
    auto refs = list<std::string>(vm, "ref");
    if (refs.empty() == !vm.count("published"))
        throw UsageError("name the saves to drop, or --published (see 'git guard list --all')");
    if (vm.count("published")) {
        auto dropped = drop_published(inv.cwd);
        for (const auto& s : dropped)
            std::printf("dropped %s: published\n", save_line(s).c_str());
        std::printf("%zu save(s) dropped; the others hold work found nowhere else\n", dropped.size());
        return 0;
    }
    for (const auto& ref : refs)
        std::printf("dropped %s\n", drop_stranded(inv.cwd, ref).c_str());
    return 0;
}

int run_log(const Invocation& inv)
{
    po::options_description options("git guard log [--json]");
    options.add_options()("json", "each record as its JSON line");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    for (const auto& e : read_journal(common_dir_of(inv.cwd))) {
        std::printf("%s\n", (vm.count("json") ? journal_json(e) : journal_line(e)).c_str());
    }
    return 0;
}

int run_push(const Invocation& inv)
{
    po::options_description options("git guard push");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    fs::path common = common_dir_of(inv.cwd);
    RecordSettings settings = read_record_settings(common);
    if (settings.backup_remote.empty())
        throw UsageError("no backup remote: git config guard.backupRemote <remote>");
    auto result = push_pending(common);
    for (const auto& ref : result.pushed)
        std::printf("backed up %s to %s\n", ref.c_str(), settings.backup_remote.c_str());
    if (!result.failed.empty()) {
        std::fprintf(stderr, "git-guard: %zu save(s) not backed up to %s: %s\n", result.failed.size(),
                     settings.backup_remote.c_str(), result.error.c_str());
        return 1;
    }
    if (result.pushed.empty())
        std::printf("every save is backed up to %s\n", settings.backup_remote.c_str());
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
    if (std::find(inv.args.begin(), inv.args.end(), "--json") != inv.args.end())
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
    {"drop", "delete saves (or every published one: --published)", true, run_drop},
    {"log", "the journal: every save, refusal, discard, drop, restore and push", true, run_log},
    {"push", "push the saves not yet backed up to guard.backupRemote", true, run_push},
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
        if (c.needs_repo) { // libgit2 starts only where a repository is opened (use_libgit2)
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
