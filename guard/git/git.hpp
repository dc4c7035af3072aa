#pragma once

#include "guard/git/process.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

// The real git, run on one repository through its plumbing, with options that
// user configuration cannot weaken (DESIGN §0.1). Every inspection and every
// save goes through here, so nothing depends on libgit2 opening the repository
// (SHA-256, reftable, relativeWorktrees).
class Git {
public:
    // `git_dir` is the tree's own git dir (a linked tree's admin entry, or the
    // common dir); `work_tree` is empty for operations that need none.
    explicit Git(std::filesystem::path git_dir, std::filesystem::path work_tree = {});

    // The same repository with `index` as its index (GIT_INDEX_FILE).
    Git with_index(std::filesystem::path index) const;
    // Objects are read from and written to this repository's own store only,
    // whatever the environment says (for nested repositories).
    Git isolated() const;
    // The same repository with `name=value` in the environment of every call.
    Git with_env(const std::string& name, const std::string& value) const;
    // The same repository with none of its programs run (quiet.hpp): no filter, no
    // fsmonitor command. Every call is quiet anyway in an unattended process.
    Git quiet() const;

    RunResult run(const std::vector<std::string>& args, const std::string& input = "") const;
    // The same as a conversation of one turn: `reply` reads stdout so far and gives the
    // rest of the input once git has answered (RunOptions::reply).
    RunResult run(const std::vector<std::string>& args, const std::string& input,
                  const decltype(RunOptions::reply)& reply) const;

    // A git started in the background (`input` its stdin), so one inspection can overlap
    // two of git's walks (process.hpp, Job).
    using Job = guard::Job;
    Job start(const std::vector<std::string>& args, const std::string& input = "") const;
    // Standard output; throws Error naming `what` and git's message on failure.
    std::string out(const std::vector<std::string>& args, const std::string& what,
                    const std::string& input = "") const;

    const std::filesystem::path& git_dir() const { return m_git_dir; }
    const std::filesystem::path& common() const { return m_common; }
    const std::filesystem::path& work_tree() const { return m_work_tree; }
    const std::string& binary() const { return m_git; }
    std::filesystem::path index() const;
    // "sha1" or "sha256".
    std::string object_format() const;
    // The id of the empty tree in this repository's object format.
    std::string empty_tree() const;

private:
    std::vector<std::string> command(const std::vector<std::string>& args, RunOptions& options) const;
    std::filesystem::path m_git_dir;
    std::filesystem::path m_common;
    std::filesystem::path m_work_tree;
    std::filesystem::path m_index;
    std::string m_git;
    std::vector<std::pair<std::string, std::string>> m_env;
    bool m_isolated = false;
    bool m_quiet = false;
};

// The common dir a git dir belongs to (its `commondir` file, else itself).
std::filesystem::path common_of(const std::filesystem::path& git_dir);

// Splits `text` at NUL bytes (or at `sep`), dropping a final empty field.
std::vector<std::string> split(const std::string& text, char sep = '\0');

// `text` up to its first newline.
inline std::string first_line_of(const std::string& text) { return text.substr(0, text.find('\n')); }

// True for a full hex object id of either format.
bool is_oid(const std::string& text);

// The empty tree's id in the object format of `id` (a full hex id), with no git asked.
std::string empty_tree_like(const std::string& id);

} // namespace guard
