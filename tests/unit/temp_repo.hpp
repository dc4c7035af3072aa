#pragma once

#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

namespace guard::test {

// A real repository in a fresh temporary directory, driven by the real git.
// The whole test process runs hermetic (HOME, GIT_CONFIG_NOSYSTEM, fixed dates,
// LC_ALL=C): see the global fixture in temp_repo.cpp. Paths are passed, never chdir.
class TempRepo {
public:
    // `root/repo` is a non-bare repository with one commit ("init", file README).
    // With `with_origin`, it is a clone of the bare `root/origin.git`, tracking main.
    explicit TempRepo(bool with_origin = false);
    ~TempRepo();
    TempRepo(const TempRepo&) = delete;
    TempRepo& operator=(const TempRepo&) = delete;

    const std::filesystem::path& root() const { return m_root; }
    const std::filesystem::path& path() const { return m_repo; }
    std::filesystem::path origin() const { return m_root / "origin.git"; }

    // Runs git in `cwd` (default: the repository); throws with stderr on failure.
    std::string git(const std::vector<std::string>& args) const;
    std::string git_in(const std::filesystem::path& cwd, const std::vector<std::string>& args) const;
    // Same, but returns the exit status and does not throw.
    int git_status(const std::filesystem::path& cwd, const std::vector<std::string>& args) const;

    void write(const std::filesystem::path& relative, const std::string& content) const;
    std::string read(const std::filesystem::path& relative) const;
    // Adds a linked worktree at `root/name` on a new branch `name` (or detached).
    std::filesystem::path add_worktree(const std::string& name, bool detached = false) const;
    // Commits a.txt, b.txt and dir/c.txt, with whatever else the tree holds, on main as
    // "base", and adds the linked worktree `root/wt` on a new branch `wt`; returns its path.
    std::filesystem::path add_base_and_worktree() const;
    // Adds the repository `sub` as the submodule `path` and commits it ("add submodule").
    void add_submodule(const TempRepo& sub, const std::string& path) const;
    // Makes `tree/node_modules` a link to `path()/node_modules`, a directory out of
    // `tree` (with a subdirectory pkg), as a package manager's shared store is.
    void link_node_modules_out(const std::filesystem::path& tree) const;

private:
    std::filesystem::path m_root;
    std::filesystem::path m_repo;
};

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& content);

} // namespace guard::test
