// Saves before in-place destroyers (DESIGN §6): reset --hard|--merge|--keep, checkout
// with paths or -f, switch -f, restore of working files, clean, stash drop and clear;
// and rm -f, merge --abort, rebase/cherry-pick/revert/am --abort|--skip, branch -f,
// checkout -B, switch -C, branch -M, submodule update|deinit --force (docs/decisions.md).
// git says what goes (destroyed.cpp); limited_save.cpp keeps exactly that under
// refs/stranded/. Refuses only when keeping fails; then git does not run.
#include "guard/modes/inplace.hpp"

#include "guard/git/config.hpp"
#include "guard/judge/destroyed.hpp"
#include "guard/save/chain_index.hpp"
#include "guard/save/limited_save.hpp"
#include "guard/base/lock.hpp"
#include "guard/base/log.hpp"
#include "guard/save/report.hpp"
#include "guard/judge/scope.hpp"
#include "guard/save/snapshot.hpp"
#include "guard/git/worktrees.hpp"
#include "guard/save/saveref.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <set>

namespace fs = std::filesystem;

namespace guard {

namespace {

// `word` as a shell reads it back; options keep their leading dashes unquoted.
std::string quote_word(const std::string& word)
{
    return word.starts_with("-") && shell_quote("x" + word) == "x" + word ? word : shell_quote(word);
}

std::string command_line(const GitCall& call)
{
    std::string text = "git";
    for (const auto& w : call.words)
        text.append(" ").append(quote_word(w)); // not " " + …: g++ 12 warns falsely (-Wrestrict)
    return text;
}

// The one line a save adds to git's stderr; none when the caller asked git to be quiet
// (the save is in `git guard list` and the journal all the same).
void report(const Saved& s, const Destroyed& d, bool whole = false)
{
    if (d.quiet)
        return;
    std::string what = whole || d.paths.empty() ? "the whole tree" : held(d); // a save of everything it holds
    std::fprintf(stderr, "git-guard: %s what %s destroys (%s) %s %s (%s)\n",
                 s.existing ? "already saved" : "saved", d.reason.c_str(), what.c_str(),
                 s.existing ? "in" : "to", s.ref.c_str(), restore_hint(s.ref).c_str());
}

// DESIGN §8: what the tree holds, why keeping it failed, and two ways out.
int refuse(const GitCall& call, const std::string& top, const Destroyed& d, const std::string& why)
{
    std::string where = top.empty() ? call.cwd.string() : top;
    std::string q = shell_quote(where);
    // The stash is the repository's, not the tree's: a refusal for it names no branch.
    std::string branch = !d.stashes.empty() ? "" : " (" + (d.branch.empty() ? "detached" : d.branch) + ")";
    std::string text = "fatal: git-guard: refusing to run `" + command_line(call) + "` in " + where + branch +
                       ": what it would destroy could not be saved.\n";
    if (!d.stashes.empty())
        text += "  it would let go: " + std::to_string(d.stashes.size()) + " stash commit(s), " +
                d.stashes.front().substr(0, 12) + (d.stashes.size() > 1 ? ", ..." : "") + "\n";
    else if (!d.paths.empty())
        text += "  it would destroy: " + held(d) + "\n";
    text += "  why: " + (why.empty() ? std::string("unknown") : why) + "\n";
    if (!d.stashes.empty())
        text += "  recover: git -C " + q + " branch rescue/stash " + d.stashes.front() + "\n";
    else
        text += "  recover: git -C " + q + " switch -c rescue/" + ref_component(fs::path(where).filename().string()) +
                " && git -C " + q + " add -A && git -C " + q + " commit -m rescue\n";
    std::string discard = shell_quote(call.real_git);
    for (const auto& g : call.globals)
        discard += " " + quote_word(g);
    text += "  discard: " + discard + " -C " + shell_quote(call.cwd.string()) + command_line(call).substr(3) +
            "   # git itself, without the guard: what it destroys is gone\n";
    std::fputs(text.c_str(), stderr);
    spdlog::warn("refused {} in {}: {}", command_line(call), where, why);
    return 128;
}

// The dropped stash commits stay reachable, each from a ref of its own.
void keep_stashes(const GitCall& call, const Site& site, const Destroyed& d)
{
    auto r = ask_git(call, {"for-each-ref", "--format=%(objectname)", std::string(k_in_place_prefix) + "/"});
    std::set<std::string> kept;
    for (size_t at = 0; at < r.out.size();) {
        size_t end = r.out.find('\n', at);
        kept.insert(r.out.substr(at, end - at));
        at = end == std::string::npos ? r.out.size() : end + 1;
    }
    std::vector<std::string> refs;
    for (const auto& commit : d.stashes) {
        if (kept.contains(commit))
            continue; // an earlier save already holds it
        Saved s = save_existing(site.common, tree_name(site), commit,
                                {.reason = d.reason, .ref_prefix = k_in_place_prefix, .path = site.top.string(),
                                 .branch = d.branch});
        refs.push_back(s.ref);
        kept.insert(commit);
    }
    if (refs.empty() || d.quiet)
        return;
    std::fprintf(stderr, "git-guard: saved %zu stash commit(s) that %s lets go to %s%s (%s)\n",
                 refs.size(), d.reason.c_str(), refs.front().c_str(), refs.size() > 1 ? " and others" : "",
                 refs.size() > 1 ? "put them back: git guard undo" : restore_hint(refs.front()).c_str());
}

// Commits only (contract C1): the save points at HEAD itself; no commit is made.
void keep_commits(const GitCall& call, const Site& site, const Destroyed& d)
{
    auto r = ask_git(call, {"for-each-ref", "--count=1", "--format=%(refname)",
                            "--points-at=" + d.left_behind, std::string(k_in_place_prefix) + "/"});
    if ((r.status == 0 && !r.out.empty()) || chains_save(site.common, d.left_behind))
        return; // an earlier save holds them already (a ref, or a chain it was folded onto)
    Saved s = save_existing(site.common, tree_name(site), d.left_behind,
                            {.reason = d.reason, .ref_prefix = k_in_place_prefix,
                             .path = site.top.empty() ? site.common.string() : site.top.string(),
                             .branch = d.left_behind_branch.empty() ? d.branch : d.left_behind_branch});
    if (!d.quiet)
        std::fprintf(stderr, "git-guard: saved the commits %s leaves on no ref (%s) to %s (%s)\n",
                     d.reason.c_str(), d.left_behind.substr(0, 12).c_str(), s.ref.c_str(),
                     restore_hint(s.ref).c_str());
}

// Only the whole tree will do (unmerged entries, a submodule's or a nested repository's
// own work, or git could not say): the engine's save of everything the tree holds.
// Whether a save was made (none: nothing in the tree was work).
bool save_whole(const Site& site, const Destroyed& d)
{
    SaveOptions options{.reason = d.reason, .ref_prefix = k_in_place_prefix, .stage_early = true};
    if (!d.in_doubt) {
        // Only the nested repositories and submodules the command destroys: one it leaves
        // alone (reset --hard leaves an untracked repository as it is) is no part of the
        // save, and cannot make it fail.
        options.nested_saved.emplace();
        for (const auto& p : d.paths)
            options.nested_saved->push_back(p.path.ends_with('/') ? p.path.substr(0, p.path.size() - 1) : p.path);
    }
    SaveResult result = save_path(site, site.top, options);
    if (!result.refused.empty())
        throw Error(result.work.reason.empty() ? result.refused : result.work.reason);
    if (result.saved)
        report(*result.saved, d, true);
    return result.saved.has_value();
}

// What only the branch a command forces elsewhere held: the whole-tree save's first parent
// is HEAD, which holds HEAD's own commits but not another branch's.
void keep_other_branch(const GitCall& call, const Site& site, const Destroyed& d)
{
    if (!d.left_behind.empty() && d.left_behind != d.head)
        keep_commits(call, site, d);
}

// The whole tree, then the commits the command leaves behind that no save holds: with no
// save made (a clean tree), HEAD's own dropped commits too (reset --hard HEAD^).
void save_whole_and_commits(const GitCall& call, const Site& site, const Destroyed& d)
{
    if (site.top.empty()) { // a bare repository: no tree to save, only the commits
        if (!d.left_behind.empty())
            keep_commits(call, site, d);
        return;
    }
    if (!save_whole(site, d) && !d.left_behind.empty())
        keep_commits(call, site, d);
    else
        keep_other_branch(call, site, d);
}

void keep(const GitCall& call, const Site& site, const Destroyed& d)
{
    if (!d.whole_tree_why.empty() && d.stashes.empty()) {
        return save_whole_and_commits(call, site, d); // save_path takes the tree's lock itself
    }
    if (!d.stashes.empty()) {
        // Stash commits are kept by pointing refs at them, all through git: every ref
        // format (reftable too) is served alike, and no libgit2 is needed.
        Settings settings = read_settings(site.common);
        PathLock lock(site.common, site.top.empty() ? site.common.string() : site.top.string(),
                      settings.lock_timeout);
        return keep_stashes(call, site, d);
    }
    {
        Repository repo;
        try {
            repo = open_repository(site.common); // the objects and config: no guess at the tree
        } catch (const Error& e) { // a format libgit2 cannot open: the engine's save, through git
            return save_whole_and_commits(call, site, d);
        }
        Settings settings = read_settings(repo.get());
        // One save at a time per tree, as for removals (DESIGN §7).
        PathLock lock(site.common, site.top.empty() ? site.common.string() : site.top.string(),
                      settings.lock_timeout);
        try {
            std::optional<Saved> saved;
            if (!d.paths.empty())
                saved = save_destroyed(call, site, d, {repo.get(), &settings});
            if (saved)
                report(*saved, d); // its first parent, HEAD, holds HEAD's commits left behind
            if (!saved && !d.left_behind.empty())
                keep_commits(call, site, d);
            else
                keep_other_branch(call, site, d);
            return;
        } catch (const Error& e) {
            spdlog::warn("the save of the destroyed paths failed ({}); saving the whole tree", e.what());
        }
    }
    save_whole_and_commits(call, site, d);
}

} // namespace

int guard_in_place(const GitCall& call)
{
    if (call.words.empty() || !is_in_place_destroyer(call.words[0]))
        return 0;
    Destroyed d;
    try {
        d = find_destroyed(call);
    } catch (const Error& e) {
        d.reason = call.words[0];
        d.whole_tree_why = e.what(); // in doubt: everything the tree holds is at risk
        d.in_doubt = true;
    }
    if (d.empty())
        return 0;
    const Site& site = site_of(call);
    if (site.top.empty()) {
        if (d.paths.empty() && d.stashes.empty() && !d.left_behind.empty() && !site.common.empty()) {
            // A bare repository (orchestrators keep one beside their worktrees): a forced
            // branch move there needs no tree, only the repository (tree_name names it).
        } else if (!d.stashes.empty() || !d.paths.empty() || !d.left_behind.empty()) {
            return refuse(call, "", d, "git cannot say where the tree is");
        } else {
            return 0; // not a working tree: git says so itself when it runs
        }
    }
    try {
        init_log(site.common, false);
        spdlog::info("shim: git {}", call.words[0]);
        keep(call, site, d);
    } catch (const std::exception& e) {
        return refuse(call, site.top.string(), d, e.what());
    }
    return 0; // Point of no return: what goes is on a verified ref; git runs.
}

} // namespace guard
