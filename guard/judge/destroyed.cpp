// What an in-place destroyer would destroy (DESIGN §6). Only the command's form is
// read from its arguments (which mode, which source, which paths); what the tree
// holds and what clean would remove are git's answers. The commits a command leaves on
// no ref are orphans.cpp's.
#include "guard/judge/destroyed.hpp"

#include "guard/git/arguments.hpp"
#include "guard/git/git.hpp"
#include "guard/base/error.hpp"
#include "guard/judge/operation.hpp"
#include "guard/judge/orphans.hpp"
#include "guard/judge/overwrites.hpp"
#include "guard/judge/scope.hpp"
#include "guard/git/trailers.hpp"
#include "guard/git/worktrees.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <span>
#include <string_view>


namespace guard {

namespace {

// The front end's tables (guard/front/guarded.c): one reading of each command line.
const std::span<const OptionSpec> k_reset = GUARD_TABLE(reset);
const std::span<const OptionSpec> k_checkout = GUARD_TABLE(checkout);
const std::span<const OptionSpec> k_switch = GUARD_TABLE(switch);
const std::span<const OptionSpec> k_restore = GUARD_TABLE(restore);
const std::span<const OptionSpec> k_clean = GUARD_TABLE(clean);
const std::span<const OptionSpec> k_rm = GUARD_TABLE(rm);

// reset --hard|--merge|--keep [<commit>]: every staged and unstaged change, and the
// untracked files the commit's tree replaces. --merge and --keep lose less, or
// refuse; which of their changes survive is not predicted (DESIGN §0.2).
Destroyed reset(const GitCall& call)
{
    Arguments a = parse_arguments(call.words, 1, k_reset);
    std::string mode = a.has("hard") ? "hard" : a.has("merge") ? "merge" : a.has("keep") ? "keep" : "";
    if (mode.empty())
        return {};
    Scope scope{.worktree = true, .index = true};
    if (!a.operands.empty()) {
        scope.overwrite = resolve(call, a.operands[0]);
        scope.any_untracked = !scope.overwrite;
    }
    Destroyed d = ask_scope(call, scope, "reset --" + mode);
    find_left_behind(call, scope.overwrite, true, d);
    return d;
}

// A branch switch that throws local changes away: checkout -f, switch -f. `commit`: the
// target as git already resolved it for the caller (one question, not two).
Destroyed forced_switch(const GitCall& call, const std::optional<std::string>& target,
                        const std::string& reason, const std::optional<std::string>& commit = std::nullopt)
{
    Scope scope{.worktree = true, .index = true};
    if (target) {
        scope.overwrite = commit ? commit : resolve(call, *target);
        scope.any_untracked = !scope.overwrite;
    }
    Destroyed d = ask_scope(call, scope, reason);
    find_left_behind(call, scope.overwrite, false, d);
    return d;
}

// Paths checked out over the tree: from the index (working versions go) or from a
// commit (staged versions too, and the untracked files it holds at those paths).
Destroyed paths_from(const GitCall& call, const std::vector<std::string>& pathspec,
                     const std::optional<std::string>& rev, bool staged, const std::string& reason,
                     const std::optional<std::string>& commit = std::nullopt)
{
    Scope scope{.pathspec = pathspec, .worktree = true, .index = staged};
    if (rev) {
        scope.overwrite = commit ? commit : resolve(call, *rev);
        scope.any_untracked = !scope.overwrite;
    }
    return ask_scope(call, scope, reason);
}

Destroyed checkout(const GitCall& call)
{
    Arguments a = parse_arguments(call.words, 1, k_checkout);
    bool forced = a.has("force");
    if (a.has("pathspec-from-file")) // the paths are in a file git reads: the whole tree
        return paths_from(call, {}, a.operands.empty() ? std::nullopt : std::optional(a.operands[0]),
                          !a.operands.empty(), "checkout --pathspec-from-file");
    std::optional<std::string> rev, commit; // the operand taken as a revision, and its commit
    std::vector<std::string> paths = a.paths;
    bool maybe_branch = false;
    if (a.dashdash) {
        if (!a.operands.empty())
            rev = a.operands[0];
    } else if (!a.operands.empty()) {
        std::error_code ec;
        // git's DWIM: one word that is no rev and no file may still name a remote's branch.
        maybe_branch = a.operands.size() == 1 &&
                       !std::filesystem::exists(std::filesystem::symlink_status(call.cwd / a.operands[0], ec));
        if ((commit = resolve(call, a.operands[0])))
            rev = a.operands[0];
        paths.assign(a.operands.begin() + (rev ? 1 : 0), a.operands.end());
    }
    if (paths.empty() && a.has("patch")) // -p with no paths offers every change to discard
        return paths_from(call, {}, rev, rev.has_value(), "checkout -p", commit);
    if (paths.empty()) { // a branch switch: only a forced one throws changes away
        Destroyed d = forced ? forced_switch(call, rev ? rev : std::optional<std::string>("HEAD"), "checkout -f", commit)
                             : Destroyed{};
        if (a.has("B")) { // the branch is reset to the start point: its own commits may go
            d.reason = forced ? "checkout -f -B" : "checkout -B";
            find_overwritten_branch(call, a.last("B"), a.operands.empty() ? "HEAD" : a.operands[0], true, d);
        }
        return d;
    }
    Destroyed d = paths_from(call, paths, rev, rev.has_value(), rev ? "checkout <rev> --" : "checkout --", commit);
    if (forced && !rev && maybe_branch) { // a branch git finds by another name
        Destroyed whole = forced_switch(call, std::nullopt, "checkout -f");
        d.paths.insert(d.paths.end(), whole.paths.begin(), whole.paths.end());
        d.whole_tree_why = d.whole_tree_why.empty() ? whole.whole_tree_why : d.whole_tree_why;
    }
    return d;
}

Destroyed switch_branch(const GitCall& call)
{
    Arguments a = parse_arguments(call.words, 1, k_switch);
    bool forced = a.has("force") || a.has("discard-changes");
    if (!forced && !a.has("force-create"))
        return {};
    std::string reason = a.has("force") ? "switch -f" : forced ? "switch --discard-changes" : "switch -C";
    if (a.has("orphan"))
        return forced_switch(call, "HEAD", reason); // no files come in to overwrite anything
    // With -C the operand is the new branch's start point; the branch itself is overwritten.
    std::optional<std::string> target = a.operands.empty() ? std::optional<std::string>("HEAD")
                                                           : std::optional(a.operands[0]);
    Destroyed d = forced ? forced_switch(call, target, reason) : Destroyed{};
    if (a.has("force-create")) {
        d.reason = reason;
        find_overwritten_branch(call, a.last("force-create"), *target, true, d);
    }
    return d;
}

Destroyed restore(const GitCall& call)
{
    Arguments a = parse_arguments(call.words, 1, k_restore);
    bool staged = a.has("staged");
    if (staged && !a.has("worktree")) // the index alone: the working files stay
        return {};
    auto paths = a.operands_and_paths();
    bool from_file = a.has("pathspec-from-file");
    if (paths.empty() && !from_file && !a.has("patch"))
        return {}; // git refuses: "you must specify path(s) to restore"
    std::optional<std::string> source = a.has("source") ? std::optional(a.last("source"))
                                        : staged          ? std::optional<std::string>("HEAD")
                                                          : std::nullopt;
    std::string reason = staged ? "restore --staged --worktree" : source ? "restore --source" : "restore";
    return paths_from(call, from_file ? std::vector<std::string>{} : paths, source, staged, reason);
}

// submodule update --force, submodule deinit --force: git checks each submodule out over
// its own changes, or deletes its files. What goes is the submodules' work (their edits,
// and commits their superproject does not record): the whole-tree save keeps each such
// submodule whole, its repository's own commits included (DESIGN §4.2). Nothing else in
// the superproject goes.
Destroyed submodule(const GitCall& call)
{
    if (call.words.size() < 2 || (call.words[1] != "update" && call.words[1] != "deinit"))
        return {};
    bool force = false;
    std::vector<std::string> paths;
    bool after_dashdash = false;
    for (size_t i = 2; i < call.words.size(); ++i) {
        const std::string& w = call.words[i];
        if (after_dashdash || w[0] != '-') {
            paths.push_back(w);
            continue;
        }
        if (w == "--")
            after_dashdash = true;
        force = force || w == "-f" || (w.size() >= 4 && std::string("--force").starts_with(w));
    }
    if (!force)
        return {}; // git keeps local changes, or refuses
    Destroyed d = ask_scope(call, {.pathspec = paths, .worktree = true, .index = false},
                            "submodule " + call.words[1] + " --force");
    std::erase_if(d.paths, [](const LostPath& p) { return p.worktree_mode != "160000" && p.index_mode != "160000"; });
    if (d.paths.empty())
        return {};
    d.whole_tree_why = "submodule " + d.paths.front().path + " has work of its own";
    return d;
}

// rm -f: the tracked files it removes lose their working and staged versions. Without -f
// git refuses to remove a file that differs from HEAD; --cached leaves the files.
Destroyed rm(const GitCall& call)
{
    Arguments a = parse_arguments(call.words, 1, k_rm);
    if (!a.has("force") || a.has("cached") || a.has("dry-run"))
        return {};
    std::vector<std::string> paths = a.has("pathspec-from-file") ? std::vector<std::string>{} : a.operands_and_paths();
    if (paths.empty() && !a.has("pathspec-from-file"))
        return {}; // git refuses: "No pathspec was given"
    return ask_scope(call, {.pathspec = paths, .worktree = true, .index = true}, "rm -f");
}

// clean: what `git clean -n` with the same options lists is what goes; the files under
// each listed directory come from status. Ignored files count only when they match
// guard.keepIgnored.
Destroyed clean(const GitCall& call)
{
    Arguments a = parse_arguments(call.words, 1, k_clean);
    if (a.has("dry-run"))
        return {};
    std::vector<std::string> oracle{"-c", "core.quotePath=false", "clean", "-n"};
    for (const char* flag : {"d", "x", "X"})
        if (a.has(flag))
            oracle.push_back(std::string("-") + flag);
    for (int i = 0; a.count["force"] > 1 && i < a.count["force"]; ++i)
        oracle.emplace_back("-f"); // -ff also removes nested repositories
    for (const auto& e : a.values["exclude"])
        oracle.insert(oracle.end(), {"-e", e});
    oracle.emplace_back("--");
    auto paths = a.operands_and_paths();
    oracle.insert(oracle.end(), paths.begin(), paths.end());
    auto r = ask_git(call, oracle);
    if (r.status != 0)
        throw Error("git clean -n failed: " + first_line_of(r.err));
    std::vector<std::string> gone;
    size_t at = 0;
    while (at < r.out.size()) {
        size_t end = r.out.find('\n', at);
        std::string line = r.out.substr(at, end - at);
        at = end == std::string::npos ? r.out.size() : end + 1;
        if (line.starts_with("Would remove "))
            gone.push_back(":(literal)" + unquote_path(line.substr(13)));
    }
    if (gone.empty())
        return {};
    bool x = a.has("x") || a.has("X");
    Destroyed d = ask_scope(call, {.pathspec = gone, .any_untracked = true, .ignored = x}, "clean");
    if (a.has("X")) // only ignored files go: drop the untracked ones status also listed
        std::erase_if(d.paths, [&](const LostPath& p) { return !p.ignored; });
    return d;
}

// Each in-place destroyer: what it destroys, and the option table its -q/--quiet is read
// with (none: a plain "-q" or "--quiet" word, as stash drop and the operations' ends take it).
struct Destroyer {
    std::string_view word;
    Destroyed (*find)(const GitCall&);
    std::span<const OptionSpec> options;
};

const std::array k_destroyers = {
    Destroyer{"reset", reset, k_reset},           Destroyer{"checkout", checkout, k_checkout},
    Destroyer{"switch", switch_branch, k_switch}, Destroyer{"restore", restore, k_restore},
    Destroyer{"clean", clean, k_clean},           Destroyer{"stash", stash, {}},
    Destroyer{"rm", rm, k_rm},                    Destroyer{"branch", branch_move, branch_options()},
    Destroyer{"submodule", submodule, {}},        Destroyer{"merge", operation_end, {}},
    Destroyer{"rebase", operation_end, {}},       Destroyer{"cherry-pick", operation_end, {}},
    Destroyer{"revert", operation_end, {}},       Destroyer{"am", operation_end, {}},
    Destroyer{"read-tree", read_tree, GUARD_TABLE(read_tree)},
    Destroyer{"checkout-index", checkout_index, GUARD_TABLE(checkout_index)},
    Destroyer{"mv", mv, GUARD_TABLE(mv)},
};

const Destroyer* destroyer(const std::string& word)
{
    for (const auto& d : k_destroyers)
        if (d.word == word)
            return &d;
    return nullptr;
}

} // namespace

bool is_in_place_destroyer(const std::string& word) { return destroyer(word) != nullptr; }

bool asks_quiet(const GitCall& call)
{
    const Destroyer* which = call.words.empty() ? nullptr : destroyer(call.words[0]);
    if (!which)
        return false;
    if (which->options.empty())
        return std::find_if(call.words.begin() + 1, call.words.end(), [](const std::string& w) {
                   return w == "-q" || w == "--quiet";
               }) != call.words.end();
    return parse_arguments(call.words, 1, which->options).has("quiet");
}

Destroyed find_destroyed(const GitCall& call)
{
    const Destroyer* which = call.words.empty() ? nullptr : destroyer(call.words[0]);
    Destroyed d = which ? which->find(call) : Destroyed{};
    d.quiet = asks_quiet(call);
    return d;
}

} // namespace guard
