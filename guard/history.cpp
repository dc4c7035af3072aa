#include "guard/history.hpp"

#include "guard/process.hpp"

#include <spdlog/spdlog.h>

#include <fstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

bool is_per_worktree(std::string_view ref)
{
    return ref.starts_with("refs/worktree/") || ref.starts_with("refs/bisect/") ||
           ref.starts_with("refs/rewritten/");
}

struct HideContext {
    git_revwalk* walk;
    const std::set<std::string>* skip;
    bool push_per_worktree;
};

// Every ref holds its commits, except the ones being inspected or deleted.
void hide_refs(git_repository* repo, git_revwalk* walk, const std::set<std::string>& skip,
               bool push_per_worktree)
{
    HideContext ctx{walk, &skip, push_per_worktree};
    git_reference_foreach_name(
        repo,
        [](const char* name, void* payload) {
            auto* c = static_cast<HideContext*>(payload);
            if (c->skip->count(name))
                return 0;
            if (is_per_worktree(name) && c->push_per_worktree)
                git_revwalk_push_ref(c->walk, name);
            else
                git_revwalk_hide_ref(c->walk, name);
            git_error_clear();
            return 0;
        },
        &ctx);
}

// Other worktrees' detached HEADs hold commits too: removing those trees saves them.
void hide_other_heads(git_repository* repo, git_revwalk* walk, const std::string& own_path)
{
    for (const auto& tree : list_worktrees(repo)) {
        if (tree.path == own_path)
            continue;
        git_reference* raw = nullptr;
        int rc = tree.is_main ? git_repository_head(&raw, open_common(repo).get())
                              : git_repository_head_for_worktree(&raw, repo, tree.name.c_str());
        Reference head(raw);
        // Only a detached HEAD holds commits: a tree on a branch holds nothing once the
        // branch is deleted. libgit2 1.5 resolves HEAD before judging it (every linked
        // tree looks detached), so read the file itself.
        bool detached = !read_first_line(tree.git_dir / "HEAD").starts_with("ref:");
        if (rc == 0 && detached)
            git_revwalk_hide(walk, git_reference_target(raw));
        git_error_clear();
    }
}

std::vector<std::string> walk_commits(git_revwalk* walk)
{
    std::vector<std::string> commits;
    git_oid oid;
    while (git_revwalk_next(&oid, walk) == 0)
        commits.push_back(to_hex(oid));
    git_error_clear();
    return commits;
}

// Refs whose content counts as published for `branch` (DESIGN §4.2).
std::vector<std::string> published_candidates(git_repository* repo, const std::string& branch,
                                              const Settings& settings)
{
    std::vector<std::string> picked;
    Buf upstream;
    if (!branch.empty() &&
        git_branch_upstream_name(upstream.get(), repo, ("refs/heads/" + branch).c_str()) == 0)
        picked.push_back(upstream.str());
    std::vector<std::string> remotes;
    git_reference_foreach_name(
        repo,
        [](const char* name, void* payload) {
            if (std::string_view(name).starts_with("refs/remotes/"))
                static_cast<std::vector<std::string>*>(payload)->emplace_back(name);
            return 0;
        },
        &remotes);
    for (const auto& r : remotes) {
        auto slash = r.find('/', 13);
        auto tail = slash == std::string::npos ? "" : r.substr(slash + 1);
        if (tail == "HEAD" || (!branch.empty() && tail == branch))
            picked.push_back(r);
    }
    picked.insert(picked.end(), settings.base_refs.begin(), settings.base_refs.end());
    git_error_clear();
    return picked;
}

} // namespace

// Published: merging `tip` into some candidate U leaves U's tree unchanged, the
// test `git merge-tree --write-tree U tip` makes. Run with git itself so the
// answer is git's own merge (rename detection included).
bool is_published(git_repository* repo, const git_oid& tip, const std::string& branch,
                  const Settings& settings)
{
    std::string git = find_real_git();
    for (const auto& candidate : published_candidates(repo, branch, settings)) {
        git_object* raw = nullptr;
        if (git_revparse_single(&raw, repo, (candidate + "^{commit}").c_str()) < 0) {
            git_error_clear();
            continue;
        }
        Object u(raw);
        const git_oid* u_tree = git_commit_tree_id(reinterpret_cast<git_commit*>(raw));
        auto result = run({git, "--git-dir=" + std::string(git_repository_commondir(repo)),
                           "merge-tree", "--write-tree", to_hex(*git_object_id(raw)), to_hex(tip)});
        std::string tree = result.out.substr(0, result.out.find('\n'));
        spdlog::debug("published check: {} into {}: exit {} tree {}", to_hex(tip), candidate,
                      result.status, tree);
        if (result.status == 0 && tree == to_hex(*u_tree))
            return true;
    }
    return false;
}

std::vector<std::string> unique_commits(git_repository* repo, const git_oid& tip, const Holders& holders)
{
    git_revwalk* raw = nullptr;
    check(git_revwalk_new(&raw, repo), "walk commits from " + to_hex(tip));
    Revwalk walk(raw);
    git_revwalk_sorting(raw, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
    check(git_revwalk_push(raw, &tip), "walk commits from " + to_hex(tip));
    hide_refs(repo, raw, holders.skip, holders.push_per_worktree);
    hide_other_heads(repo, raw, holders.own_path);
    for (const auto& oid : holders.created)
        git_revwalk_hide(raw, &oid);
    git_error_clear();
    return walk_commits(raw);
}

} // namespace guard
