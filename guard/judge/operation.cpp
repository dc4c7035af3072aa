// An operation under way (a merge, a rebase, a cherry-pick or revert, an am) and what its
// end throws away: `--abort` and `--skip` put the tree back inside git, never through a
// `git` child the shim would see.
#include "guard/judge/operation.hpp"

#include "guard/judge/orphans.hpp"
#include "guard/git/git.hpp"
#include "guard/judge/scope.hpp"
#include "guard/git/worktrees.hpp"

#include <filesystem>

namespace fs = std::filesystem;

namespace guard {

namespace {

// `--abort` or `--skip` (git accepts any unique prefix; none of these commands has another
// long option that starts `--ab` or `--sk`).
std::string ending(const GitCall& call)
{
    for (size_t i = 1; i < call.words.size() && call.words[i] != "--"; ++i) {
        const std::string& w = call.words[i];
        for (const std::string name : {"--abort", "--skip"})
            if (w.size() >= 4 && name.starts_with(w))
                return name;
    }
    return "";
}

} // namespace

// merge --abort, and rebase, cherry-pick, revert or am --abort or --skip: git throws the
// operation's progress away (a conflict's resolution, the edits made since it stopped) as
// `reset --merge` or `--hard` would. Which changes survive is not predicted (DESIGN §0.2):
// every staged and unstaged change is kept, conflicts with the whole tree, and on --abort
// the commits the operation made, which only HEAD holds.
Destroyed operation_end(const GitCall& call)
{
    std::string end = ending(call);
    if (end.empty() || (call.words[0] == "merge" && end != "--abort"))
        return {};
    // Something to end: git's own state files for a merge, a pick or revert, a sequence, a
    // rebase or am (where git keeps them, per tree). None: git refuses, nothing goes.
    auto r = ask_git(call, {"rev-parse", "--git-path", "reftable", "--git-path", "MERGE_HEAD", "--git-path",
                            "CHERRY_PICK_HEAD", "--git-path", "REVERT_HEAD", "--git-path", "sequencer",
                            "--git-path", "rebase-merge", "--git-path", "rebase-apply"});
    bool underway = r.status != 0; // in doubt: underway
    auto paths = split(r.out, '\n');
    bool reftable = false;
    for (size_t i = 0; i < paths.size(); ++i) {
        std::error_code ec;
        fs::path p = fs::path(paths[i]).is_absolute() ? fs::path(paths[i]) : call.cwd / paths[i];
        bool there = fs::exists(fs::symlink_status(p, ec));
        (i == 0 ? reftable : underway) |= there;
    }
    // reftable keeps CHERRY_PICK_HEAD and REVERT_HEAD in the ref store, not as files
    // (git >= 2.45): asked of git there.
    for (const char* pseudo : {"CHERRY_PICK_HEAD", "REVERT_HEAD"})
        underway = underway || (reftable && ask_git(call, {"rev-parse", "-q", "--verify", pseudo}).status == 0);
    if (!underway)
        return {};
    Destroyed d = ask_scope(call, {.worktree = true, .index = true}, call.words[0] + " " + end);
    if (end == "--abort" && call.words[0] != "merge" && !d.head.empty()) {
        // The abort moves HEAD back to where the operation began: the commits it made
        // (a conflict resolved and committed, work at a rebase's `edit` stop) are on no
        // ref but HEAD, and the branch a pick or revert moves goes back too.
        std::vector<std::string> moved{"HEAD"};
        if (!d.branch.empty())
            moved.push_back("refs/heads/" + d.branch);
        if (leaves_behind(call, d.head, std::nullopt, moved))
            d.left_behind = d.head;
    }
    return d;
}

} // namespace guard
