// `git guard status|save|remove|discard`: the trees and branches.
#include "guard/cli/cli_parts.hpp"


#include "guard/save/backup.hpp"
#include "guard/save/contents.hpp"
#include "guard/install/doctor.hpp"
#include "guard/base/error.hpp"
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
#include "guard/save/stranded.hpp"
#include "guard/version.hpp"
#include "guard/judge/work.hpp"

#include <boost/program_options.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

namespace fs = std::filesystem;

namespace guard::cli {

namespace {

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

} // namespace

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
    auto works = inspect_paths(inv.site, paths, list<std::string>(vm, "branch"));
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
        result = save_path(inv.site, tree, {.reason = vm["reason"].as<std::string>(), .stage_early = true});
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
    auto result = remove_tree(inv.site, inv.cwd / vm["tree"].as<std::string>(), opts);
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
    std::printf("%s\n", discard(inv.site, vm["target"].as<std::string>()).c_str());
    return 0;
}

} // namespace guard::cli
