// The save of an in-place destroyer: HEAD's tree with exactly the paths the command
// destroys put back as they are now (DESIGN §5, layout 2 with `Stranded-Scope:
// destroyed`). Blobs come from versions.cpp; trees and the commit are written by
// libgit2, which touches only the trees along those paths and reads no index, so the
// cost follows what is destroyed, not the size of the tree.
#include "guard/save/limited_save.hpp"

#include "guard/save/chain.hpp"
#include "guard/save/layout.hpp"

#include "guard/base/lock.hpp"
#include "guard/judge/scope.hpp"
#include "guard/save/versions.hpp"
#include "guard/git/worktrees.hpp"
#include "guard/save/saveref.hpp"

#include <spdlog/spdlog.h>


#include <algorithm>

namespace fs = std::filesystem;

namespace guard {

std::string ref_dir(const Site& site)
{
    std::string name = ref_component(tree_name(site));
    return std::string(k_in_place_prefix) + "/" + (name.empty() ? "tree" : name) + "/";
}

namespace {

// `base` (HEAD's tree, or the empty tree) with `contents` put in or taken out.
// libgit2 writes only the trees along the changed paths: no index is read.
git_oid updated_tree(git_repository* repo, const git_tree* base, const std::vector<Content>& contents)
{
    std::vector<git_tree_update> updates;
    for (const auto& c : contents) {
        git_tree_entry* entry = nullptr;
        bool in_base = base && git_tree_entry_bypath(&entry, base, c.path.c_str()) == 0;
        git_tree_entry_free(entry);
        git_error_clear();
        if (!c.present && !in_base)
            continue;
        git_tree_update u{};
        u.action = c.present ? GIT_TREE_UPDATE_UPSERT : GIT_TREE_UPDATE_REMOVE;
        u.id = c.blob;
        u.filemode = c.mode;
        u.path = c.path.c_str();
        updates.push_back(u);
    }
    git_oid out;
    if (base) {
        check(git_tree_create_updated(&out, repo, const_cast<git_tree*>(base), updates.size(), updates.data()),
              "write the saved tree");
        return out;
    }
    git_treebuilder* raw = nullptr;
    check(git_treebuilder_new(&raw, repo, nullptr), "start an empty tree");
    git_oid empty;
    int rc = git_treebuilder_write(&empty, raw);
    git_treebuilder_free(raw);
    check(rc, "write the empty tree");
    git_tree* empty_tree = nullptr;
    check(git_tree_lookup(&empty_tree, repo, &empty), "read the empty tree");
    Tree owned(empty_tree);
    check(git_tree_create_updated(&out, repo, empty_tree, updates.size(), updates.data()),
          "write the saved tree");
    return out;
}

Signature identity(const Settings& settings)
{
    Identity id = parse_identity(settings.identity);
    git_signature* raw = nullptr;
    check(git_signature_now(&raw, id.name.c_str(), id.email.c_str()),
          "guard.identity '" + settings.identity + "'");
    return Signature(raw);
}

std::string one_line(std::string text)
{
    for (auto& ch : text)
        if (static_cast<unsigned char>(ch) < 0x20)
            ch = '?';
    return text;
}

} // namespace

std::string held(const Destroyed& d)
{
    std::string text = std::to_string(d.paths.size()) + " path(s)";
    for (size_t i = 0; i < d.paths.size() && i < 5; ++i)
        text += (i ? ", " : ": ") + one_line(d.paths[i].path);
    return text + (d.paths.size() > 5 ? ", ..." : "");
}

namespace {

// The staged versions whose blob the object store holds; the others (an index entry
// written with a made-up id, as `update-index --index-info` allows) are left out, as git's
// own write-tree refuses them, and named in `missing`: a save never names an object the
// store lacks, or gc, repack and fsck would fail on it for as long as the save lives.
std::vector<Content> present_only(git_repository* repo, std::vector<Content> staged, std::vector<std::string>& missing)
{
    git_odb* raw = nullptr;
    check(git_repository_odb(&raw, repo), "open the object store");
    std::vector<Content> out;
    for (auto& c : staged) {
        if (c.present && c.mode != GIT_FILEMODE_COMMIT && !git_odb_exists(raw, &c.blob))
            missing.push_back(c.path);
        else
            out.push_back(std::move(c));
    }
    git_odb_free(raw);
    return out;
}

std::string message(const Site& site, const Destroyed& d, const std::string& index,
                    const std::vector<std::string>& missing)
{
    std::string unsaved;
    for (const auto& path : missing)
        unsaved += "Stranded-Unsaved: " + std::string(k_missing_blob) + " " + quote_path(path) + "\n";
    std::string branch = d.branch.empty() ? "detached" : d.branch;
    return "stranded: what " + d.reason + " destroyed in " + one_line(site.top.string()) + " (" +
           one_line(branch) + ")\n\nHeld " + held(d) + ".\n\n" + "Stranded-Layout: 2\n" +
           "Stranded-Index: " + index + "\n" + "Stranded-Scope: destroyed\n" +
           "Stranded-From: " + one_line(site.top.string()) + "\n" + "Stranded-Branch: " +
           one_line(branch) + "\n" + "Stranded-Head: " + (d.head.empty() ? "unborn" : d.head) + "\n" +
           "Stranded-Reason: " + d.reason + "\n" + unsaved;
}

git_oid write_commit(git_repository* repo, const git_oid& tree_oid, const std::vector<git_oid>& parent_ids,
                     const Signature& sig, const std::string& text)
{
    std::vector<Commit> parents;
    std::vector<const git_commit*> raw_parents;
    for (const auto& id : parent_ids) {
        git_commit* raw = nullptr;
        check(git_commit_lookup(&raw, repo, &id), "read commit " + to_hex(id));
        parents.emplace_back(raw);
        raw_parents.push_back(raw);
    }
    git_tree* tree = nullptr;
    check(git_tree_lookup(&tree, repo, &tree_oid), "read the saved tree");
    Tree owned(tree);
    git_oid oid;
    // libgit2 writes the commit object only: no hooks run, nothing is signed.
    check(git_commit_create(&oid, repo, nullptr, sig.get(), sig.get(), "UTF-8", text.c_str(), tree,
                            raw_parents.size(), raw_parents.data()),
          "write the save commit");
    return oid;
}

// The newest save of this tree, when it holds this very tree on this very HEAD (and
// index record): a repeated destroyer adds no duplicate ref. Read through libgit2 in
// this process (the repository is open already; the names sort by their stamps).
std::optional<std::string> equal_save(git_repository* repo, const Site& site, const git_oid& tree,
                                      const std::string& head, const std::optional<git_oid>& index_tree)
{
    std::vector<std::string> refs;
    std::string glob = ref_dir(site) + "*";
    git_reference_foreach_glob(
        repo, glob.c_str(),
        [](const char* n, void* out) {
            static_cast<std::vector<std::string>*>(out)->emplace_back(n);
            return 0;
        },
        &refs);
    git_error_clear();
    if (refs.empty())
        return std::nullopt;
    std::string newest = *std::max_element(refs.begin(), refs.end());
    git_oid oid;
    git_commit* raw = nullptr;
    if (git_reference_name_to_id(&oid, repo, newest.c_str()) < 0 || git_commit_lookup(&raw, repo, &oid) < 0) {
        git_error_clear();
        return std::nullopt;
    }
    Commit c(raw);
    unsigned parents = (head.empty() ? 0u : 1u) + (index_tree ? 1u : 0u);
    if (!git_oid_equal(git_commit_tree_id(raw), &tree) || git_commit_parentcount(raw) != parents)
        return std::nullopt;
    if (!head.empty() && to_hex(*git_commit_parent_id(raw, 0)) != head)
        return std::nullopt;
    if (index_tree) {
        git_commit* index_raw = nullptr;
        if (git_commit_parent(&index_raw, raw, parents - 1) < 0) {
            git_error_clear();
            return std::nullopt;
        }
        Commit index_commit(index_raw);
        if (!git_oid_equal(git_commit_tree_id(index_raw), &*index_tree))
            return std::nullopt;
    }
    return newest;
}

// The larger of the branch and in-place save ref counts (chains left out), as fold.cpp
// counts them, read in this process (the repository is open already): the fold is asked
// of git only when one may be due. Nothing when libgit2 cannot list them.
std::optional<std::size_t> saves_of_kind(git_repository* repo)
{
    std::size_t most = 0;
    for (const char* glob : {"refs/heads/stranded/*", "refs/stranded/*"}) {
        std::vector<std::string> refs;
        int rc = git_reference_foreach_glob(
            repo, glob,
            [](const char* n, void* out) {
                static_cast<std::vector<std::string>*>(out)->emplace_back(n);
                return 0;
            },
            &refs);
        git_error_clear();
        if (rc < 0)
            return std::nullopt;
        most = std::max(most, static_cast<std::size_t>(std::count_if(
                                  refs.begin(), refs.end(), [](const std::string& r) { return !is_chain_ref(r); })));
    }
    return most;
}

Tree head_tree(git_repository* repo, const std::string& head)
{
    if (head.empty())
        return nullptr;
    git_oid oid = parse_oid(head);
    git_commit* raw = nullptr;
    check(git_commit_lookup(&raw, repo, &oid), "read HEAD commit " + head);
    Commit commit(raw);
    git_tree* tree = nullptr;
    check(git_commit_tree(&tree, raw), "read HEAD's tree");
    return Tree(tree);
}

} // namespace

std::optional<Saved> save_destroyed(const GitCall& call, const Site& site, const Destroyed& d,
                                    const Opened& opened)
{
    git_repository* repo = opened.repo;
    Tree head = head_tree(repo, d.head);
    git_oid base = head ? *git_tree_id(head.get()) : updated_tree(repo, nullptr, {});
    git_oid worktree = updated_tree(repo, head.get(), working_versions(call, site, d));
    std::vector<std::string> missing;
    auto staged = present_only(repo, staged_versions(d), missing);
    for (const auto& path : missing)
        spdlog::warn("{}: the staged entry names a blob missing from the object store: not saved", path);
    git_oid index = staged.empty() ? base : updated_tree(repo, head.get(), staged);
    if (git_oid_equal(&worktree, &base) && git_oid_equal(&index, &base))
        return std::nullopt; // what goes is what HEAD already holds
    std::optional<git_oid> index_record;
    std::string index_trailer = git_oid_equal(&index, &base)       ? "head"
                                : git_oid_equal(&index, &worktree) ? "worktree"
                                                                   : "";
    if (index_trailer.empty())
        index_record = index;
    if (auto ref = equal_save(repo, site, worktree, d.head, index_record)) {
        Saved s{*ref, {}, to_hex(worktree), d.head, "already saved", false, true};
        return s;
    }
    Signature sig = identity(*opened.settings);
    std::vector<git_oid> parents;
    if (!d.head.empty())
        parents.push_back(parse_oid(d.head));
    if (index_record) {
        git_oid i = write_commit(repo, index, parents, sig,
                                 "stranded: the index before " + d.reason + " in " +
                                     one_line(site.top.string()) + "\n");
        parents.push_back(i);
        index_trailer = to_hex(i);
    }
    git_oid commit = write_commit(repo, worktree, parents, sig, message(site, d, index_trailer, missing));
    Saved s = save_existing(site.common, tree_name(site), to_hex(commit),
                            {.reason = d.reason, .ref_prefix = k_in_place_prefix, .tree = to_hex(worktree),
                             .path = site.top.string(), .branch = d.branch, .saves_of_kind = saves_of_kind(repo)});
    s.made_commit = true;
    s.base = d.head;
    spdlog::info("saved what {} destroys in {} to {}", d.reason, site.top.string(), s.ref);
    return s;
}

} // namespace guard
