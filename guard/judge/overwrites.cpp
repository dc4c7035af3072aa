// Plumbing and git's own internal steps that write the index's or a tree's version over
// the working files (DESIGN §0.6): read-tree -u, checkout-index -f, and the `reset --hard`
// inside `stash push`. Judged by what they destroy, asked of git like every destroyer.
#include "guard/judge/overwrites.hpp"

#include "guard/git/arguments.hpp"
#include "guard/git/git.hpp"
#include "guard/judge/orphans.hpp"
#include "guard/judge/scope.hpp"
#include "guard/git/worktrees.hpp"

#include <algorithm>
#include <filesystem>

namespace guard {

namespace {

// `a` is `b`, or a directory above it.
bool contains(const std::string& a, const std::string& b)
{
    std::string dir = a.ends_with('/') ? a : a + "/";
    return a == b || b.starts_with(dir);
}

// Keeps, of `d`'s untracked paths, those that stand where a tracked path that is gone from
// the tree or the index goes back (the same path, one above it or one below it); the
// tracked paths stay when `tracked`. A nested repository among them needs the whole tree.
void keep_collisions(Destroyed& d, bool tracked)
{
    std::vector<std::string> gone;
    for (const auto& p : d.paths)
        if (p.tracked && (p.worktree_mode == "000000" || p.index_mode == "000000"))
            gone.push_back(p.path);
    std::erase_if(d.paths, [&](const LostPath& p) {
        if (p.tracked)
            return !tracked;
        return std::none_of(gone.begin(), gone.end(),
                            [&](const std::string& t) { return contains(t, p.path) || contains(p.path, t); });
    });
    d.whole_tree_why.clear();
    for (const auto& p : d.paths)
        if (!p.tracked && p.path.ends_with('/'))
            d.whole_tree_why = "nested repository " + p.path;
}

} // namespace

Destroyed read_tree(const GitCall& call)
{
    Arguments a = parse_arguments(call.words, 1, GUARD_TABLE(read_tree));
    if (!a.has("u") || (!a.has("reset") && !a.has("m")) || a.has("dry-run"))
        return {}; // without -u only the index is written (docs/commands.md)
    Scope scope{.worktree = true, .index = true, .any_untracked = true};
    if (a.operands.size() == 1) {
        auto r = ask_git(call, {"rev-parse", "-q", "--verify", a.operands[0] + "^{tree}"});
        if (r.status == 0) {
            scope.overwrite = first_line_of(r.out);
            scope.any_untracked = false;
        }
    }
    return ask_scope(call, scope, a.has("reset") ? "read-tree -u --reset" : "read-tree -u -m");
}

Destroyed checkout_index(const GitCall& call)
{
    Arguments a = parse_arguments(call.words, 1, GUARD_TABLE(checkout_index));
    if (!a.has("force") || a.has("temp") || a.has("prefix"))
        return {}; // --temp and --prefix write elsewhere: nothing in the tree is replaced
    std::vector<std::string> paths = a.has("all") || a.has("stdin") ? std::vector<std::string>{} : a.operands_and_paths();
    if (paths.empty() && !a.has("all") && !a.has("stdin"))
        return {};
    for (auto& p : paths)
        p = ":(literal)" + p; // checkout-index names files, not patterns
    Destroyed d = ask_scope(call, {.pathspec = paths, .worktree = true, .any_untracked = true}, "checkout-index -f");
    keep_collisions(d, true);
    return d;
}

Destroyed stash(const GitCall& call)
{
    std::string sub = call.words.size() > 1 ? call.words[1] : "push";
    if (sub == "drop" || sub == "clear")
        return stash_drop(call);
    if (!sub.starts_with("-") && sub != "push" && sub != "save")
        return {};
    Arguments a = parse_arguments(call.words, sub.starts_with("-") ? 1 : 2, GUARD_TABLE(stash_push));
    if (a.has("include-untracked") || a.has("all"))
        return {}; // the untracked files are stashed before the reset
    Destroyed d = ask_scope(call, {.worktree = true, .index = true, .any_untracked = true}, "stash");
    keep_collisions(d, false);
    return d;
}

Destroyed mv(const GitCall& call)
{
    Arguments a = parse_arguments(call.words, 1, GUARD_TABLE(mv));
    if (!a.has("force") || a.has("dry-run"))
        return {};
    std::vector<std::string> words = a.operands_and_paths();
    if (words.size() < 2)
        return {};
    std::error_code ec;
    std::filesystem::path last = call.cwd / words.back();
    bool into = words.size() > 2 || std::filesystem::is_directory(last, ec);
    std::vector<std::string> targets;
    for (size_t i = 0; i + 1 < words.size(); ++i) {
        std::string target = into ? (std::filesystem::path(words.back()) /
                                     std::filesystem::path(words[i]).filename()).string()
                                  : words.back();
        if (std::filesystem::exists(std::filesystem::symlink_status(call.cwd / target, ec)))
            targets.push_back(":(literal)" + target);
    }
    if (targets.empty())
        return {};
    return ask_scope(call, {.pathspec = targets, .worktree = true, .index = true, .any_untracked = true}, "mv -f");
}

} // namespace guard
