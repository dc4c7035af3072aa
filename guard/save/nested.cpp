// A nested repository or submodule saved whole (DESIGN §4.1, §5.3): its HEAD's history
// copied into the guarded store, its working state staged by git as a save of its own,
// its blobs copied in too. The nested repository itself is never written.
#include "guard/save/nested.hpp"

#include "guard/save/layout.hpp"
#include "guard/judge/head.hpp"
#include "guard/judge/tree_state.hpp"

#include <spdlog/spdlog.h>

namespace fs = std::filesystem;

namespace guard {

namespace {

// Copies every object `commit` reaches from the nested store into `common`'s.
void copy_objects(const Git& from, const fs::path& common, const std::string& commit)
{
    Git to(common);
    if (to.run({"cat-file", "-e", commit + "^{commit}"}).status == 0)
        return;
    std::string pack = from.out({"pack-objects", "--revs", "--stdout", "-q"}, "pack the objects of " +
                                from.work_tree().string(), commit + "\n");
    to.out({"index-pack", "--stdin", "--fix-thin"}, "copy the objects of " + from.work_tree().string(), pack);
}

} // namespace

// A nested repository's save is written straight into the guarded store (its
// own objects borrowed as an alternate), so the nested repository itself is
// never written; its HEAD's history is copied in first.
std::optional<NestedSave> save_nested(const Git& outer, const std::string& rel, const fs::path& common)
{
    fs::path root = outer.work_tree() / rel;
    fs::path git_dir = git_dir_of(root);
    std::error_code ec;
    if (git_dir.empty() || !fs::exists(git_dir, ec)) {
        // Its .git names no repository (git's own t2013 and t7112 break the link): no
        // history to copy, but its files are saved, as a commit of their own.
        spdlog::warn("nested repository {}: its git dir '{}' is gone; saving its files", root.string(),
                     git_dir.string());
        Git store(common);
        Work w;
        w.path = root.string();
        w.changes.push_back({".", ChangeKind::untracked, true, false});
        Staged files{stage_files(Git(common, root), common), "", {}};
        files.index_tree = files.worktree_tree;
        return NestedSave{rel, write_save(store, w, files, Settings{}, "nested"), "unborn", "detached"};
    }
    Work w = inspect_checkout(git_dir, root, Settings{});
    settle_detached(Git(git_dir, root), w, true); // its refs are not read here
    Git own = Git(git_dir, root).isolated();
    NestedSave n{rel, "", w.head.value_or("unborn"), w.branch.empty() ? "detached" : w.branch};
    if (w.head)
        copy_objects(own, common, *w.head);
    if (!w.has_uncommitted() && w.nested.empty()) {
        if (!w.head)
            return std::nullopt; // an empty repository holds nothing
        n.commit = *w.head;
        return n;
    }
    Git git = own.with_env("GIT_OBJECT_DIRECTORY", absolute_path(common / "objects").string())
                  .with_env("GIT_ALTERNATE_OBJECT_DIRECTORIES", absolute_path(own.common() / "objects").string());
    Staged staged;
    try {
        staged = stage_checkout(git, w, common);
    } catch (const Error& e) {
        // Its own index is unreadable (git's own tests leave an empty one): every file on
        // disk is staged from an empty index instead, so the outer save still goes ahead.
        spdlog::warn("nested repository {}: {}; saving its files without its index", root.string(), e.what());
        staged = {stage_files(git, common), "", {}};
        staged.index_tree = staged.worktree_tree;
    }
    n.commit = write_save(git, w, staged, Settings{}, "nested");
    // git writes no object an alternate already has: the staged and working blobs that the
    // nested store held go into the guarded store now, or the save would point at nothing.
    std::string revs = n.commit + "\n" + (w.head ? "^" + *w.head + "\n" : "");
    std::string pack = git.out({"pack-objects", "--revs", "--stdout", "-q"}, "pack the save of " + root.string(), revs);
    Git(common).out({"index-pack", "--stdin", "--fix-thin"}, "copy the save of " + root.string(), pack);
    return n;
}


} // namespace guard
