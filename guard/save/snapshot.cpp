// The engine's saves (DESIGN §5): a tree's work staged by git into a commit of layout 2,
// a moved-aside or unreadable tree's files, and the whole path from a tree to a verified save.
#include "guard/save/snapshot.hpp"

#include "guard/save/chain.hpp"
#include "guard/save/chain_index.hpp"

#include "guard/save/fold.hpp"
#include "guard/save/saveref.hpp"

#include "guard/save/journal.hpp"
#include "guard/save/layout.hpp"
#include "guard/save/packs.hpp"
#include "guard/base/lock.hpp"
#include "guard/base/progress.hpp"
#include "guard/save/report.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace fs = std::filesystem;

namespace guard {

namespace {

// An earlier save of `name` with this very tree, index and HEAD, so a repeated
// save adds no duplicate ref.
std::optional<Saved> find_equal_save(const Git& git, const std::string& name, const std::string& prefix,
                                     const std::string& tree, const std::string& index_tree,
                                     const Work& w)
{
    std::string ref = stranded_ref_name(name, prefix);
    RunResult r = git.run({"for-each-ref",
                           "--format=%(objectname) %(tree) %(parent) %(trailers:key=Stranded-Index-Tree,valueonly,separator=)",
                           ref.substr(0, ref.rfind('/') + 1)});
    for (const auto& line : split(r.out, '\n')) {
        auto f = split(line, ' ');
        if (f.size() < 3 || f[1] != tree || f.back() != index_tree)
            continue;
        bool same_parent = w.head ? f[2] == *w.head : f[2].empty();
        if (!same_parent)
            continue;
        RunResult name_of = git.run({"for-each-ref", "--format=%(refname)", "--points-at", f[0],
                                     ref.substr(0, ref.rfind('/') + 1)});
        std::string found = first_line_of(name_of.out);
        if (found.empty())
            continue;
        Saved s{found, f[0], tree, w.head.value_or(""), "already saved", true, true};
        verify(git, s);
        return s;
    }
    // Saves folded onto a chain have no ref of their own: an equal one is there too.
    if (auto link = find_equal_link(git.common(), ref.substr(0, ref.rfind('/') + 1), tree, index_tree, w.head.value_or(""))) {
        Saved s{link->handle, link->commit, tree, w.head.value_or(""), "already saved", true, true};
        try {
            verify_link(git, s);
            return s;
        } catch (const Error& e) { // too deep in its chain to read back cheaply: save anew
            spdlog::debug("equal save {} not read back: {}", s.ref, e.what());
        }
    }
    return std::nullopt;
}

// The larger of the branch and the in-place save ref counts in `refs`, chains left out,
// as fold.cpp counts them.
std::size_t saves_of_kind(const std::vector<RefValue>& refs)
{
    std::size_t branches = 0, in_place = 0;
    for (const auto& r : refs)
        if (r.tree.empty() && !is_chain_ref(r.name)) {
            branches += r.name.starts_with("refs/heads/stranded/") ? 1 : 0;
            in_place += r.name.starts_with("refs/stranded/") ? 1 : 0;
        }
    return std::max(branches, in_place);
}

void journal_save(const fs::path& common, const Work& w, const Saved& s, const SaveOptions& options)
{
    journal_record(common, {.kind = "save", .ref = s.ref, .commit = s.commit, .path = w.path,
                            .branch = w.branch, .reason = options.reason, .detail = s.diffstat});
}

} // namespace

std::optional<Saved> save_work(const fs::path& common, const Work& w, const std::string& name,
                               const Settings& settings, const SaveOptions& options, EarlyStaging* early)
{
    if (w.verdict == Verdict::cannot_save)
        throw Error(w.reason);
    if (w.verdict == Verdict::clean)
        return std::nullopt;
    sweep_tmp(common);
    Git store(common);
    fs::path root = w.root.empty() ? w.path : w.root;
    bool uncommitted = w.has_uncommitted() || !w.nested.empty();
    if (!uncommitted && w.own_refs.empty() && w.reflog.empty()) {
        if (!w.head || w.commits.empty())
            return std::nullopt;
        Saved s = point_at(common, name, *w.head, options);
        journal_save(common, w, s, options);
        return s;
    }
    Git git(w.git_dir, root);
    // A meter on a terminal once the save has taken a second, as git prints one; nothing else.
    Progress meter("git-guard: saving " + name, 3);
    Staged staged = uncommitted ? stage_checkout(git, w, common, early, options.nested_saved ? &*options.nested_saved : nullptr)
                                : Staged{w.head_tree.empty() ? first_line_of(store.out({"rev-parse", *w.head + "^{tree}"}, "read HEAD"))
                                                             : w.head_tree,
                                         "", {}};
    if (!uncommitted)
        staged.index_tree = staged.worktree_tree;
    for (const auto& u : staged.unsaved) // named in the save's trailers too (Stranded-Unsaved)
        spdlog::warn("{} is not in the save of {}: {}", u.path, w.path, u.why);
    meter.update(1);
    if (auto existing = options.no_earlier_save ? std::nullopt
                                                : find_equal_save(store, name, options.ref_prefix,
                                                                  staged.worktree_tree, staged.index_tree, w))
        return existing;
    Saved s;
    s.tree = staged.worktree_tree;
    if (auto written = options.free_ref.empty() ? std::nullopt
                                                : write_save_at(store, w, staged, settings, options.reason, options.free_ref)) {
        s.commit = *written;
        s.ref = options.free_ref;
        fold_beyond_keep(common, options.saves_of_kind);
    } else {
        s.commit = write_save(store, w, staged, settings, options.reason);
        s.ref = create_save(store, name, s.commit, options.ref_prefix, options.saves_of_kind);
    }
    meter.update(2);
    s.made_commit = true;
    s.base = w.head.value_or("");
    verify_with_diffstat(store, s);
    meter.done();
    spdlog::info("saved {} from {} to {} ({})", s.commit, w.path, s.ref, options.reason);
    journal_save(common, w, s, options);
    keep_packs_few(store);
    return s;
}

std::optional<Saved> save_husk(const fs::path& common, const fs::path& root, const std::optional<Worktree>& tree,
                               const Settings& settings, const SaveOptions& options)
{
    Work w = tree ? inspect_admin(common, *tree, settings) : Work{};
    w.path = root.string();
    std::string name = root.filename().string();
    Git store(common);
    if (!w.head && !w.branch.empty()) {
        RunResult tip = store.run({"rev-parse", "-q", "--verify", "refs/heads/" + w.branch});
        if (tip.status == 0)
            w.head = first_line_of(tip.out);
    }
    if (!w.root.empty())
        return save_work(common, w, name, settings, options); // moved aside: its files are elsewhere
    std::error_code ec;
    if (!fs::exists(root, ec)) {
        if (w.commits.empty() || !w.head)
            return std::nullopt;
        Saved s = point_at(common, name, *w.head, options);
        journal_save(common, w, s, options);
        return s;
    }
    Staged staged{stage_husk(common, root), "", {}};
    staged.index_tree = staged.worktree_tree;
    w.changes.push_back({".", ChangeKind::untracked, true, false});
    Saved s;
    s.tree = staged.worktree_tree;
    s.commit = write_save(store, w, staged, settings, options.reason);
    s.made_commit = true;
    s.base = w.head.value_or("");
    s.ref = create_save(store, name, s.commit, options.ref_prefix, options.saves_of_kind);
    verify_with_diffstat(store, s);
    journal_save(common, w, s, options);
    keep_packs_few(store);
    return s;
}

SaveResult save_path(const Site& here, const fs::path& path, const SaveOptions& options)
{
    // The tree names its own repository, so a save works from any directory.
    std::error_code ec;
    bool named = fs::is_directory(path, ec) && fs::exists(path / ".git", ec);
    fs::path common = (named ? site_named(here, path) : here).repository();
    Settings settings = read_settings(common);
    // One worktree list for the whole decision: it names the tree, and save_tree takes it
    // under the tree's lock (a tree removed meanwhile is found there).
    std::vector<Worktree> trees = list_worktrees(common);
    Worktree tree = resolve_worktree(trees, common, path);
    return save_tree(common, settings, tree.path, options, &trees);
}

SaveResult save_tree(const fs::path& common, const Settings& settings, const fs::path& path,
                     const SaveOptions& options, const std::vector<Worktree>* listed)
{
    PathLock lock(common, path.string(), settings.lock_timeout);
    Listing listing{listed ? *listed : list_worktrees(common), std::nullopt};
    auto fresh = find_worktree(listing.trees, path);
    // A list read before this lock may name a tree another process removed meanwhile (git
    // deletes its admin directory): then there is nothing here to save.
    std::error_code ec;
    if (!fresh || (listed && !fresh->prunable && !fs::exists(fresh->git_dir, ec)))
        throw Error("'" + path.string() + "' is no longer a worktree: another process removed it");
    SaveResult result;
    std::string name = fresh->path.filename().string();
    try {
        std::optional<EarlyStaging> early;
        if (options.stage_early && !fresh->prunable) {
            sweep_tmp(common);
            early.emplace(Git(fresh->git_dir, fresh->path), common);
        }
        result.work = fresh->prunable ? inspect_admin(common, *fresh, settings, &listing)
                                      : inspect_tree(*fresh, settings, &listing);
        SaveOptions told = options;
        if (listing.refs) {
            std::string ref = stranded_ref_name(name, options.ref_prefix);
            std::string dir = ref.substr(0, ref.rfind('/') + 1);
            // No save of this name as a ref, and not the chain a save of it would be folded
            // onto (the one find_equal_save reads: the archive, or the tree's own chain).
            std::string chain = chain_of_handle(dir + "x");
            told.no_earlier_save = std::none_of(listing.refs->begin(), listing.refs->end(), [&](const RefValue& r) {
                return r.name.starts_with(dir) || r.name == chain;
            });
            told.saves_of_kind = saves_of_kind(*listing.refs);
            // The name this save takes now, when the walk shows it free: no ref of that name,
            // and none a directory of it would clash with.
            if (std::none_of(listing.refs->begin(), listing.refs->end(), [&](const RefValue& r) {
                    return r.name == ref || ref.starts_with(r.name + "/") || r.name.starts_with(ref + "/");
                }))
                told.free_ref = ref;
        }
        result.saved = save_work(common, result.work, name, settings, told, early ? &*early : nullptr);
    } catch (const Error& e) {
        if (result.work.path.empty())
            result.work.path = fresh->path.string();
        result.work.verdict = Verdict::cannot_save;
        result.work.reason = e.what();
        result.refused = refusal_message(result.work, e.what(), "save");
    }
    return result;
}

} // namespace guard