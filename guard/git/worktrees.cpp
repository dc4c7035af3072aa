#include "guard/git/worktrees.hpp"

#include "guard/base/error.hpp"
#include "guard/git/config.hpp"
#include "guard/git/git.hpp"
#include "guard/git/repo.hpp"

#include <chrono>
#include <optional>
#include <thread>

namespace fs = std::filesystem;

namespace guard {

RunResult ask_git(const GitCall& call, const std::vector<std::string>& args, const std::string& input)
{
    std::vector<std::string> argv{call.real_git};
    argv.insert(argv.end(), call.globals.begin(), call.globals.end());
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, {.cwd = call.cwd.string(), .input = input, .env = {{"LC_ALL", "C"}, {"LANGUAGE", "C"}}});
}

RunResult ask_git(const GitCall& call, std::initializer_list<std::string> rest)
{
    return ask_git(call, std::vector<std::string>(rest));
}

namespace {

// The tree an admin entry names: its gitdir file (relative to the entry with git >= 2.48's
// relative worktrees) less the trailing "/.git".
fs::path tree_of(const fs::path& admin)
{
    fs::path gitdir = read_path_file(admin / "gitdir");
    if (gitdir.empty())
        return {};
    return absolute_path(gitdir.is_absolute() ? gitdir : admin / gitdir).parent_path();
}

} // namespace

std::vector<ListedTree> list_trees(const GitCall& call)
{
    // As list_worktrees (repo.cpp): a concurrent removal can fail one listing; ask again.
    auto r = ask_git(call, {"worktree", "list", "--porcelain", "-z"});
    for (int attempt = 1; attempt < 5 && r.status != 0; ++attempt) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        r = ask_git(call, {"worktree", "list", "--porcelain", "-z"});
    }
    if (r.status != 0)
        throw Error("git worktree list failed: " + r.err);
    return parse_worktrees(r.out, site_of(call).repository());
}

std::optional<ListedTree> find_listed(const std::vector<ListedTree>& trees, const GitCall& call,
                                      const std::string& arg)
{
    std::optional<ListedTree> found;
    std::string suffix = "/" + arg;
    while (suffix.size() > 1 && suffix.back() == '/')
        suffix.pop_back();
    for (const auto& t : trees) {
        if (!t.is_main && t.path.string().ends_with(suffix)) {
            if (found)
                return std::nullopt; // ambiguous: git asks for the path
            found = t;
        }
    }
    if (found)
        return found;
    fs::path wanted = absolute_path(fs::path(arg).is_absolute() ? fs::path(arg) : call.cwd / arg);
    for (const auto& t : trees)
        if (absolute_path(t.path) == wanted)
            return t;
    return std::nullopt;
}

std::vector<ListedTree> prune_candidates(const GitCall& call)
{
    std::vector<std::string> argv{call.real_git};
    argv.insert(argv.end(), call.globals.begin(), call.globals.end());
    argv.insert(argv.end(), call.words.begin(), call.words.end());
    argv.insert(argv.end(), {"--dry-run", "--verbose"});
    auto r = run(argv, {.cwd = call.cwd.string(), .env = {{"LC_ALL", "C"}, {"LANGUAGE", "C"}}});
    // git says "Removing worktrees/<id>: <reason>" for each tree, with no -z. Rather than
    // cut that text into lines (a reason may one day name a path, and a path may hold a
    // newline, LESSONS 23), each admin entry that exists looks for its own line start.
    std::string said = "\n" + r.err;
    std::vector<ListedTree> pruned;
    fs::path common = site_of(call).repository();
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(common / "worktrees", ec)) {
        std::string id = entry.path().filename().string();
        if (said.find("\nRemoving worktrees/" + id + ": ") != std::string::npos)
            pruned.push_back({.path = tree_of(entry.path()), .git_dir = entry.path(), .name = id,
                              .prunable = true, .git_prunable = true});
    }
    return pruned;
}

} // namespace guard
