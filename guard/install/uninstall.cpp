// git guard uninstall: puts back what install recorded in the manifest, newest first:
// hooks and their chains byte for byte, lefthook jobs, info/exclude, the config (whole
// when it did not change since, else key by key), the worktree locks, the shim link.
// Saves are never touched.
#include "guard/install/install_parts.hpp"

#include "guard/base/error.hpp"
#include "guard/install/managers.hpp"
#include "guard/install/privacy.hpp"
#include "guard/install/shimlink.hpp"
#include "guard/git/repo.hpp"
#include "guard/save/kept.hpp"

namespace fs = std::filesystem;

namespace guard {

namespace {

void unlock_worktrees(Installation& ctx)
{
    for (const auto& tree : list_worktrees(ctx.site.common)) {
        std::string reason = tree.lock_reason.substr(0, tree.lock_reason.find('\n'));
        if (tree.is_main || !tree.locked || reason != k_lock_reason)
            continue;
        git_checked(ctx, {"worktree", "unlock", tree.path.string()});
        ctx.say("unlocked worktree " + tree.path.string());
    }
}

void restore_config(Installation& ctx)
{
    bool whole = restore_config_bytes(ctx.site.common);
    forget_config();
    if (whole)
        return ctx.say("restored the repository config byte for byte");
    auto records = ctx.manifest.records();
    for (auto r = records.rbegin(); r != records.rend(); ++r) {
        if ((*r)[0] == "config-add")
            undo_config_add(ctx, *r);
        if ((*r)[0] != "config")
            continue;
        if ((*r)[2] == "set")
            git_checked(ctx, {"config", "--local", "--replace-all", (*r)[1], (*r)[3]});
        else
            git_in(ctx, {"config", "--local", "--unset-all", (*r)[1]});
    }
    // `git config --unset` leaves an empty [guard] header behind.
    if (git_in(ctx, {"config", "--local", "--get-regexp", "^guard\\."}).out.empty())
        git_in(ctx, {"config", "--local", "--remove-section", "guard"});
    ctx.say("restored the guard.* config keys (the config changed after install, so key by key)");
}

} // namespace

InstallReport uninstall(const Site& here)
{
    here.repository(); // outside a repository: the Error says so
    Installation ctx{find_real_git(), here, {}, {}};
    if (!ctx.manifest.load(ctx.site.common))
        throw Error("git-guard is not installed in " + ctx.site.common.string() + " (there is no " +
                    Manifest::file(ctx.site.common).string() + ")");
    note_copy(ctx);
    unlock_worktrees(ctx);
    auto records = ctx.manifest.records();
    for (auto r = records.rbegin(); r != records.rend(); ++r) {
        if (!ctx.manifest.origin().empty() && r->size() > 1 && fs::path((*r)[1]).is_absolute() &&
            !ctx.manifest.is_here((*r)[1]) && (*r)[0] != "shim" && (*r)[0] != "registry" && (*r)[0] != "lock")
            ctx.say("left " + (*r)[1] + " alone: it is not part of this repository", false);
        else if ((*r)[0] == "hook" || (*r)[0] == "chain" || (*r)[0] == "dir" || (*r)[0] == "sidecar")
            undo_hook(ctx, *r);
        else if ((*r)[0] == "lefthook")
            undo_lefthook(ctx, *r);
        else if ((*r)[0] == "exclude") {
            restore_exclude(ctx.site.common, *r);
            ctx.say("restored info/exclude");
        }
    }
    restore_config(ctx);
    release_all_kept(ctx.site.common);
    unlink_shim(ctx);
    fs::remove_all(ctx.site.common / "guard" / "backup");
    fs::remove(Manifest::file(ctx.site.common));
    ctx.say("git-guard is uninstalled from " + ctx.site.common.string() +
            "; stranded/ branches are kept (git guard list shows them)");
    return ctx.report;
}

} // namespace guard
