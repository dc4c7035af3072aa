// The commits a command leaves on no ref (reflogs do not count), as git's rev-list says:
// HEAD's when a reset or a switch moves it away, a branch's old tip when a forced create,
// move or copy puts the branch elsewhere, and the stash entries a drop or clear lets go.
#include "guard/judge/orphans.hpp"

#include "guard/git/arguments.hpp"
#include "guard/judge/scope.hpp"
#include "guard/git/worktrees.hpp"

#include <array>

namespace guard {

namespace {

constexpr std::array k_branch = {
    OptionSpec{"force", 'f'}, OptionSpec{"move", 'm'}, OptionSpec{"M", 'M'}, OptionSpec{"copy", 'c'},
    OptionSpec{"C", 'C'}, OptionSpec{"delete", 'd'}, OptionSpec{"D", 'D'}, OptionSpec{"track", 't'},
    OptionSpec{"no-track"}, OptionSpec{"set-upstream-to", 'u', true}, OptionSpec{"unset-upstream"},
    OptionSpec{"list", 'l'}, OptionSpec{"all", 'a'}, OptionSpec{"remotes", 'r'}, OptionSpec{"verbose", 'v'},
    OptionSpec{"quiet", 'q'}, OptionSpec{"contains", 0, true}, OptionSpec{"no-contains", 0, true},
    OptionSpec{"merged", 0, true}, OptionSpec{"no-merged", 0, true}, OptionSpec{"points-at", 0, true},
    OptionSpec{"sort", 0, true}, OptionSpec{"format", 0, true}, OptionSpec{"show-current"},
    OptionSpec{"edit-description"}, OptionSpec{"create-reflog"}, OptionSpec{"recurse-submodules"},
    OptionSpec{"ignore-case", 'i'}, OptionSpec{"omit-empty"}, OptionSpec{"color"}, OptionSpec{"no-color"},
    OptionSpec{"column"}, OptionSpec{"no-column"}, OptionSpec{"abbrev"}, OptionSpec{"no-abbrev"}};

} // namespace

std::span<const OptionSpec> branch_options() { return k_branch; }

std::vector<std::string> deleted_branches(const GitCall& call)
{
    if (call.words.empty() || call.words[0] != "branch")
        return {};
    Arguments a = parse_arguments(call.words, 1, k_branch);
    if ((!a.has("delete") && !a.has("D")) || a.has("remotes"))
        return {};
    return a.operands;
}

bool leaves_behind(const GitCall& call, const std::string& tip, const std::optional<std::string>& target,
                   const std::vector<std::string>& moved)
{
    std::vector<std::string> args{"rev-list", "--max-count=1", tip, "--not"};
    if (target)
        args.push_back(*target);
    for (const auto& ref : moved)
        args.push_back("--exclude=" + ref);
    args.emplace_back("--all");
    auto r = ask_git(call, args);
    return r.status != 0 || !r.out.empty();
}

// HEAD's commits that a move to `target` leaves on no ref: the branch moves with a reset;
// a switch leaves the branch where it is, so only a detached HEAD's commits can go.
void find_left_behind(const GitCall& call, const std::optional<std::string>& target,
                      bool moves_branch, Destroyed& d)
{
    if (!target || d.head.empty() || *target == d.head || (!moves_branch && !d.branch.empty()))
        return;
    std::vector<std::string> moved{"HEAD"};
    if (!d.branch.empty())
        moved.push_back("refs/heads/" + d.branch);
    if (leaves_behind(call, d.head, target, moved))
        d.left_behind = d.head;
}

// A branch forced onto `start` (checkout -B, switch -C, branch -f, and the branch that
// `branch -M`/`-C` overwrites): its old tip's commits that `start` and every other ref leave
// on no ref (reflogs do not count) go. `moves_head`: HEAD follows the branch, so it holds
// nothing either. A branch that does not exist yet loses nothing. In doubt, they go.
void find_overwritten_branch(const GitCall& call, const std::string& branch, const std::string& start,
                             bool moves_head, Destroyed& d)
{
    if (!d.left_behind.empty())
        return;
    auto tip = resolve(call, "refs/heads/" + branch);
    if (!tip)
        return;
    auto target = resolve(call, start);
    if (target && *target == *tip)
        return;
    std::vector<std::string> moved{"refs/heads/" + branch};
    if (moves_head)
        moved.emplace_back("HEAD");
    if (leaves_behind(call, *tip, target, moved)) {
        d.left_behind = *tip;
        d.left_behind_branch = branch;
    }
}

// branch -f <name> [<start>], and branch -M|-C (or -m|-c with -f) [<old>] <new>: the
// branch a forced create, move or copy puts onto another commit loses what only it held.
// Deletions are the hook's (DESIGN §6).
Destroyed branch_move(const GitCall& call)
{
    Arguments a = parse_arguments(call.words, 1, k_branch);
    bool force = a.has("force");
    if (a.has("delete") || a.has("D") || a.operands.empty())
        return {};
    Destroyed d;
    if (a.has("M") || a.has("C") || ((a.has("move") || a.has("copy")) && force)) {
        bool move = a.has("M") || a.has("move");
        d.reason = move ? "branch -M" : "branch -C";
        std::string from = a.operands.size() >= 2 ? "refs/heads/" + a.operands[0] : "HEAD";
        find_overwritten_branch(call, a.operands.size() >= 2 ? a.operands[1] : a.operands[0], from, false, d);
        return d;
    }
    if (!force || a.has("move") || a.has("copy") || a.has("set-upstream-to") || a.has("unset-upstream") ||
        a.has("edit-description"))
        return {};
    d.reason = "branch -f";
    find_overwritten_branch(call, a.operands[0], a.operands.size() >= 2 ? a.operands[1] : "HEAD", false, d);
    return d;
}

// stash drop [<stash>], stash clear: the commits the stash's reflog lets go.
Destroyed stash_drop(const GitCall& call)
{
    if (call.words.size() < 2 || (call.words[1] != "drop" && call.words[1] != "clear"))
        return {};
    Destroyed d;
    d.reason = "stash " + call.words[1];
    if (call.words[1] == "clear") {
        auto r = ask_git(call, {"rev-list", "--walk-reflogs", "refs/stash", "--"});
        for (size_t at = 0; r.status == 0 && at < r.out.size();) {
            size_t end = r.out.find('\n', at);
            d.stashes.push_back(r.out.substr(at, end - at));
            at = end == std::string::npos ? r.out.size() : end + 1;
        }
        return d;
    }
    std::string which = "stash@{0}";
    for (size_t i = 2; i < call.words.size(); ++i)
        if (call.words[i][0] != '-')
            which = call.words[i];
    if (which.find_first_not_of("0123456789") == std::string::npos)
        which = "stash@{" + which + "}";
    if (auto commit = resolve(call, which))
        d.stashes.push_back(*commit);
    return d;
}

} // namespace guard
