#pragma once
// What restore.cpp and restore_inplace.cpp share: git in one repository with hooks off,
// and the writing of a save's files.
#include "guard/save/backup.hpp"
#include "guard/base/error.hpp"
#include "guard/git/process.hpp"
#include "guard/git/site.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

// git in one repository, hooks off: restoring runs no hook of ours or the user's (a
// post-checkout hook would see a tree that is still being filled).
class GitAt {
public:
    GitAt(std::filesystem::path git_dir, std::filesystem::path work_tree = {}) : m_git_dir(std::move(git_dir)), m_work_tree(std::move(work_tree)) {}

    RunResult try_run(const std::vector<std::string>& args, const RunOptions& options = {}) const
    {
        auto argv = git_without_hooks(m_git_dir);
        if (!m_work_tree.empty())
            argv.insert(argv.begin() + 2, "--work-tree=" + m_work_tree.string());
        argv.insert(argv.end(), args.begin(), args.end());
        return run(argv, options);
    }
    std::string out(const std::vector<std::string>& args, const RunOptions& options = {}) const
    {
        auto r = try_run(args, options);
        if (r.status != 0)
            throw Error("git " + args[0] + " failed: " + r.err.substr(0, r.err.find('\n')));
        return r.out;
    }
    const std::filesystem::path& git_dir() const { return m_git_dir; }

private:
    std::filesystem::path m_git_dir;
    std::filesystem::path m_work_tree;
};

inline std::string trim_output(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

// Writes `tree`'s files into `dir` (modes, symlinks, untracked files: all of S) through a
// private index, so the tree's own index is written only from the index record.
void write_save_files(const GitAt& git, const std::filesystem::path& dir, const std::string& tree);

// restore_obstacles for an in-place save (restore_inplace.cpp).
std::vector<std::string> in_place_obstacles(const Site& here, const Save& s);

} // namespace guard
