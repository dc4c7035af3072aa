// `git guard list|show|restore|drop|log|push`: the saves and their records.
#include "guard/cli/cli_parts.hpp"


#include "guard/save/backup.hpp"
#include "guard/save/bundles.hpp"
#include "guard/save/contents.hpp"
#include "guard/install/doctor.hpp"
#include "guard/base/error.hpp"
#include "guard/save/fold.hpp"
#include "guard/install/install.hpp"
#include "guard/save/journal.hpp"
#include "guard/base/json.hpp"
#include "guard/git/trailers.hpp"
#include "guard/base/log.hpp"
#include "guard/git/git.hpp"
#include "guard/git/process.hpp"
#include "guard/save/receipt.hpp"
#include "guard/modes/removal.hpp"
#include "guard/git/repo.hpp"
#include "guard/save/report.hpp"
#include "guard/save/restore.hpp"
#include "guard/save/snapshot.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <thread>
#include "guard/save/stranded.hpp"
#include "guard/version.hpp"
#include "guard/judge/work.hpp"

#include <boost/program_options.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>

namespace fs = std::filesystem;

namespace guard::cli {

namespace {

// Seconds since the epoch for `--since`, as git itself reads dates ("2 days ago", ISO 8601).
long long since_time(const Invocation& inv, const std::string& text)
{
    auto r = run({find_real_git(), "-C", inv.cwd.string(), "rev-parse", "--since=" + text});
    auto at = r.out.find("--max-age=");
    if (r.status != 0 || at == std::string::npos)
        throw UsageError("--since: git cannot read '" + text + "' as a date");
    return std::atoll(r.out.c_str() + at + 10);
}

} // namespace

namespace {

// A tree's snapshots (the time layer makes one a minute) as one line each: their count
// and the newest; `--snapshots <tree>` lists them all.
struct SnapshotGroup {
    size_t count = 0;
    std::string newest;
    long long newest_unix = 0;
};

bool is_snapshot(const Save& s) { return s.reason == "snapshot"; }

// `--snapshots TREE`: TREE as a path (from the cwd) or any part of the tree's path.
bool of_tree(const Save& s, const Invocation& inv, const std::string& tree)
{
    return s.path == absolute_path(inv.cwd / tree).string() || s.path.find(tree) != std::string::npos;
}

void print_snapshot_groups(const std::map<std::string, SnapshotGroup>& groups)
{
    for (const auto& [path, g] : groups)
        std::printf("snapshots of %s: %zu, newest %s (git guard list --snapshots %s for all)\n", path.c_str(),
                    g.count, g.newest.c_str(), path.c_str());
}

} // namespace

int run_list(const Invocation& inv)
{
    po::options_description options("git guard list [--all] [--snapshots TREE] [--source TEXT] [--since DATE] [--json]");
    options.add_options()("json", "one JSON object per save")(
        "all", "in-place saves too (refs/stranded/: before reset --hard, checkout --, ...)")(
        "snapshots", po::value<std::string>(), "every snapshot of TREE (a path, or a part of one), one a line")(
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
    bool all = opts.in_place;
    bool json = vm.count("json") > 0;
    std::string tree = vm.count("snapshots") ? vm["snapshots"].as<std::string>() : "";
    opts.in_place = true; // one listing: the in-place saves left out are counted from it
    size_t hidden = 0;
    std::map<std::string, SnapshotGroup> groups;
    for_each_listed(inv.site.repository(), opts, [&](const Save& s) {
        if (!tree.empty() && !(is_snapshot(s) && of_tree(s, inv, tree)))
            return;
        if (tree.empty() && is_snapshot(s) && !json) {
            auto& g = groups[s.path];
            ++g.count;
            if (s.unix_time >= g.newest_unix) {
                g.newest = s.time;
                g.newest_unix = s.unix_time;
            }
            return;
        }
        if (tree.empty() && s.in_place && !all && ++hidden)
            return;
        std::printf("%s\n", json ? save_json(s).str().c_str() : save_line(s).c_str());
    });
    print_snapshot_groups(groups);
    if (hidden && !json)
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
    const fs::path& common = inv.site.repository();
    Save save = find_save(common, vm["ref"].as<std::string>());
    if (!save.bundle.empty())
        load_bundle(common, save); // its commits may be in no object store yet
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
    po::options_description options("git guard restore <ref> [<path>] [--in-place] [--json]");
    options.add_options()("json", "the result as one JSON object")(
        "in-place", "an in-place save (refs/stranded/) back into the tree it came from: HEAD, index, files")(
        "ref", po::value<std::string>()->required(), "the save (see git guard list --all)")(
        "path", po::value<std::string>(), "where the worktree goes (default: where it came from)");
    po::positional_options_description positional;
    positional.add("ref", 1).add("path", 1);
    auto vm = parse(inv, options, positional);
    if (wants_help(vm, options))
        return 0;
    if (vm.count("in-place") && vm.count("path"))
        throw UsageError("--in-place puts the save back where it came from: it takes no <path>");
    RestoreOptions opts;
    if (vm.count("path"))
        opts.path = inv.cwd / vm["path"].as<std::string>();
    Restored r;
    try {
        r = vm.count("in-place") ? restore_in_place(inv.site, vm["ref"].as<std::string>())
                                 : restore_save(inv.site, vm["ref"].as<std::string>(), opts);
    } catch (const Error& e) {
        std::fprintf(stderr, "git-guard: refused: %s\n", e.what());
        return 1;
    }
    if (vm.count("json")) {
        std::printf("%s\n", restored_json(r).str().c_str());
    } else if (r.kind == "branch") {
        std::printf("restored branch %s at %s from %s\n", r.branch.c_str(), short_id(r.head).c_str(), r.ref.c_str());
    } else if (r.kind == "stash") {
        std::printf("restored %s as a stash entry (git stash list)\n", r.ref.c_str());
    } else {
        std::printf("restored %s %s %s (%s at %s)\n", r.ref.c_str(), r.kind == "in-place" ? "in place into" : "into",
                    r.path.c_str(), r.branch.empty() ? "detached HEAD" : ("branch " + r.branch).c_str(),
                    short_id(r.head).c_str());
    }
    for (const auto& note : r.notes)
        std::fprintf(stderr, "note: %s\n", note.c_str());
    std::fprintf(stderr, "the save stays; once you are happy: git guard drop %s\n", r.ref.c_str());
    return 0;
}

int run_drop(const Invocation& inv)
{
    po::options_description options("git guard drop <ref>... | --published");
    options.add_options()("published", "drop every save whose work a remote-tracking branch already holds (pushed, merged or squash-merged)")(
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
        auto dropped = drop_published(inv.site.repository());
        for (const auto& s : dropped)
            std::printf("dropped %s: published\n", save_line(s).c_str());
        std::printf("%zu save(s) dropped; the others hold work found nowhere else\n", dropped.size());
        return 0;
    }
    for (const auto& ref : refs)
        std::printf("dropped %s\n", drop_stranded(inv.site.repository(), ref).c_str());
    return 0;
}

int run_push(const Invocation& inv)
{
    po::options_description options("git guard push");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    const fs::path& common = inv.site.repository();
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

int run_fold(const Invocation& inv)
{
    po::options_description options("git guard fold [--keep N]");
    options.add_options()("keep", po::value<std::size_t>(), "removal and branch saves kept as branches "
                                                            "(default: guard.keepBranches, 50)")(
        "after-git", po::value<std::string>()->implicit_value(""),
        "wait until the git named by '<pid> <start time>' has ended and no transaction holds the "
        "ref store, then fold in steps (what a save made inside git's hook starts)");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    std::optional<std::size_t> keep;
    if (vm.count("keep"))
        keep = vm["keep"].as<std::size_t>();
    const std::filesystem::path& common = inv.site.repository();
    if (vm.count("after-git")) {
        // Bounded: a git that runs on (a long fetch) gets the fold tried anyway, and a fold
        // that meets its lock leaves the names to the next one, linked only once.
        auto until = std::chrono::steady_clock::now() +
                     std::max<std::chrono::steady_clock::duration>(read_settings(common).lock_timeout,
                                                                   std::chrono::minutes(2));
        std::string owner = vm["after-git"].as<std::string>();
        auto busy = [&] {
            long pid = std::atol(owner.c_str());
            return (pid > 0 && process_identity(pid) == owner) || ref_store_locked(common);
        };
        while (busy() && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        Folded f = fold_saves(common, keep, true);
        spdlog::info("after git's transaction: folded {} branch and {} in-place save(s), {} tree chain(s)",
                     f.branches, f.loose, f.trees);
        return 0;
    }
    Folded f = fold_saves(common, keep);
    std::printf("folded %zu branch save(s) into %s and %zu in-place save ref(s) into their trees' chains\n",
                f.branches, "refs/stranded/chain/archive", f.loose);
    if (f.trees)
        std::printf("folded %zu chain(s) of trees that are gone into %s\n", f.trees, "refs/stranded/chain/archive");
    return 0;
}

} // namespace guard::cli
