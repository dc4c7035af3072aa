// The one reader of git's worktree list (`git worktree list --porcelain -z`, LESSONS 23:
// paths may hold newlines) and the lookups of one tree in it.
#include "guard/git/worktree_list.hpp"

#include "guard/base/error.hpp"
#include "guard/git/git.hpp"
#include "guard/git/repo.hpp"

#include <chrono>
#include <thread>

namespace fs = std::filesystem;

namespace guard {

namespace {

fs::path strip_slash(std::string s)
{
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    return s;
}

// One `git worktree list --porcelain -z` record turned into a Worktree. The
// admin entry name is the basename of the tree's own git dir, which git
// reports for the tree through `<path>/.git`; for trees whose directory is
// gone it is found by matching the admin entries' gitdir files.
void apply_field(Worktree& tree, const std::string& field)
{
    if (field.starts_with("worktree "))
        tree.path = strip_slash(field.substr(9));
    else if (field == "locked" || field.starts_with("locked ")) {
        tree.locked = true;
        tree.lock_reason = field.size() > 7 ? field.substr(7) : "";
    } else if (field == "prunable" || field.starts_with("prunable ")) {
        tree.prunable = true;
        tree.git_prunable = true;
    } else if (field.starts_with("HEAD ")) {
        bool zero = field.find_first_not_of('0', 5) == std::string::npos;
        tree.head = zero ? "" : field.substr(5);
    } else if (field.starts_with("branch ")) {
        tree.branch_ref = field.substr(7);
    }
}

// admin entry name for each linked tree path, from <common>/worktrees/*/gitdir.
std::string admin_name(const fs::path& common, const fs::path& path)
{
    std::error_code ec;
    fs::path want = absolute_path(path);
    if (fs::exists(path / ".git", ec)) {
        std::string line = read_path_file(path / ".git");
        if (line.starts_with("gitdir: ")) {
            fs::path admin = line.substr(8);
            admin = absolute_path(admin.is_absolute() ? admin : path / admin);
            if (admin.parent_path() == absolute_path(common / "worktrees"))
                return admin.filename().string();
        }
    }
    for (const auto& entry : fs::directory_iterator(common / "worktrees", ec)) {
        fs::path gitdir = read_path_file(entry.path() / "gitdir");
        if (gitdir.empty())
            continue;
        gitdir = gitdir.is_absolute() ? gitdir : entry.path() / gitdir;
        if (absolute_path(gitdir.parent_path()) == want)
            return entry.path().filename().string();
    }
    return "";
}

} // namespace

std::vector<Worktree> list_worktrees(const fs::path& common)
{
    Git git(common);
    // git reads every admin entry; one that a concurrent `worktree remove` is deleting makes
    // it fail ("failed to read …/commondir"). That race is over in milliseconds: ask again.
    RunResult listed;
    for (int attempt = 0; attempt < 5; ++attempt) {
        listed = git.run({"worktree", "list", "--porcelain", "-z"});
        if (listed.status == 0)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (listed.status != 0)
        throw Error("list the worktrees of " + common.string() + ": git worktree failed: " + listed.err);
    return parse_worktrees(listed.out, common);
}

std::vector<Worktree> parse_worktrees(const std::string& out, const fs::path& common)
{
    std::vector<Worktree> trees;
    Worktree tree;
    bool bare = false;
    auto flush = [&] {
        if (!tree.path.empty() && !bare)
            trees.push_back(tree);
        tree = Worktree{};
        bare = false;
    };
    bool first = true;
    for (const auto& field : split(out)) {
        if (field.empty()) {
            if (!tree.path.empty() || bare)
                first = false;
            flush();
            continue;
        }
        if (field == "bare")
            bare = true;
        if (field.starts_with("worktree "))
            tree.is_main = first;
        apply_field(tree, field);
    }
    flush();
    for (auto& t : trees) {
        if (t.is_main) {
            t.git_dir = common;
            // git names the git dir itself when the tree is elsewhere (core.worktree: a
            // submodule's absorbed git dir under .git/modules/); rev-parse says where, asked
            // without the runner's GIT_COMMON_DIR, with which git ignores core.worktree.
            if (absolute_path(t.path) == absolute_path(common)) {
                RunResult top = run({find_real_git(), "--git-dir=" + common.string(), "rev-parse", "--show-toplevel"});
                if (top.status == 0 && !first_line_of(top.out).empty())
                    t.path = first_line_of(top.out);
            }
            continue;
        }
        t.name = admin_name(common, t.path);
        t.git_dir = common / "worktrees" / t.name;
        std::error_code ec;
        if (t.name.empty() || !fs::exists(t.path / ".git", ec))
            t.prunable = true;
    }
    return trees;
}

std::optional<Worktree> find_worktree(const std::vector<Worktree>& trees, const fs::path& path)
{
    fs::path want = absolute_path(path);
    for (const auto& tree : trees)
        if (absolute_path(tree.path) == want)
            return tree;
    return std::nullopt;
}

std::optional<Worktree> find_worktree(const fs::path& common, const fs::path& path)
{
    return find_worktree(list_worktrees(common), path);
}

Worktree resolve_worktree(const fs::path& common, const fs::path& path)
{
    return resolve_worktree(list_worktrees(common), common, path);
}

Worktree resolve_worktree(const std::vector<Worktree>& trees, const fs::path& common, const fs::path& path)
{
    if (auto tree = find_worktree(trees, path))
        return *tree;
    fs::path want = absolute_path(path);
    std::optional<Worktree> enclosing;
    for (const auto& tree : trees) {
        auto rel = want.lexically_relative(absolute_path(tree.path));
        if (!rel.empty() && *rel.begin() != ".." && (!enclosing || tree.path.string().size() >
                                                                       enclosing->path.string().size()))
            enclosing = tree;
    }
    if (enclosing)
        throw Error("'" + path.string() + "' is inside the worktree " + enclosing->path.string() +
                    " but is not its root; name the root to act on that tree");
    throw Error("'" + path.string() + "' is not a worktree of " + common.string() +
                " (see 'git worktree list')");
}

} // namespace guard
