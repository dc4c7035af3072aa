// Fixtures of the save engine's unit tests (tests/unit/save/test_save_*.cpp): a tree's
// files as git records them, its state before and after, and the kinds of change.
// What the tests hold the engine to (DESIGN §5): a save holds the tree's working state
// exactly, writes nothing to the tree, never overwrites, runs no hooks, and refuses what
// it cannot serve.
#pragma once

#include "guard/base/error.hpp"
#include "guard/git/libgit2.hpp"
#include "guard/base/lock.hpp"
#include "guard/git/process.hpp"
#include "guard/save/snapshot.hpp"
#include "tests/unit/temp_repo.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace guard::test::saves {

namespace fs = std::filesystem;
using guard::test::read_file;
using guard::test::TempRepo;
using guard::test::write_file;

// Sets or unsets environment variables for one scope, restoring them after.
class ScopedEnv {
  public:
    ScopedEnv() = default;
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
    ~ScopedEnv()
    {
        for (const auto& [name, old] : m_saved)
            old ? ::setenv(name.c_str(), old->c_str(), 1) : ::unsetenv(name.c_str());
    }
    void set(const std::string& name, const std::optional<std::string>& value)
    {
        if (!m_saved.count(name)) {
            const char* old = std::getenv(name.c_str());
            m_saved[name] = old ? std::optional<std::string>(old) : std::nullopt;
        }
        value ? ::setenv(name.c_str(), value->c_str(), 1) : ::unsetenv(name.c_str());
    }

  private:
    std::map<std::string, std::optional<std::string>> m_saved;
};

// One file as git would record it: its mode and its blob id (content, or link target).
struct Entry {
    std::string mode;
    std::string blob;
    bool operator==(const Entry&) const = default;
};
using Files = std::map<std::string, Entry>;

inline std::string blob_id(const std::string& content)
{
    git_oid oid;
    guard::check(git_odb_hash(&oid, content.data(), content.size(), GIT_OBJECT_BLOB), "hash");
    return guard::to_hex(oid);
}

// What the tree at `root` holds on disk, as git would record it (.git and the
// paths in `skip`, or below them, left out).
inline Files working_files(const fs::path& root, const std::set<std::string>& skip = {})
{
    Files files;
    auto skipped = [&](const std::string& rel) {
        for (const auto& s : skip)
            if (rel == s || rel.starts_with(s + "/"))
                return true;
        return false;
    };
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
         ++it) {
        std::string rel = it->path().lexically_relative(root).string();
        if (rel == ".git" || skipped(rel)) {
            if (fs::is_directory(fs::symlink_status(it->path())))
                it.disable_recursion_pending();
            continue;
        }
        auto st = fs::symlink_status(it->path());
        if (fs::is_symlink(st)) {
            files[rel] = {"120000", blob_id(fs::read_symlink(it->path()).string())};
        } else if (fs::is_regular_file(st)) {
            bool exec = (st.permissions() & fs::perms::owner_exec) != fs::perms::none;
            files[rel] = {exec ? "100755" : "100644", blob_id(read_file(it->path()))};
        }
    }
    return files;
}

// What commit `rev` records, read with git's own ls-tree.
inline Files tree_files(const fs::path& repo, const std::string& rev)
{
    auto r = guard::run({"git", "-C", repo.string(), "ls-tree", "-r", "-z", "--full-tree", rev});
    BOOST_REQUIRE_MESSAGE(r.status == 0, "cannot read " << rev << ": " << r.err);
    Files files;
    for (size_t at = 0, end; (end = r.out.find('\0', at)) != std::string::npos; at = end + 1) {
        std::string line = r.out.substr(at, end - at);
        auto tab = line.find('\t');
        std::string mode = line.substr(0, line.find(' '));
        std::string oid = line.substr(tab - 40, 40);
        files[line.substr(tab + 1)] = {mode, oid};
    }
    return files;
}

// Same as tree_files, for either object format.
inline Files tree_files_any(const fs::path& repo, const std::string& rev)
{
    auto r = guard::run({"git", "-C", repo.string(), "ls-tree", "-r", "-z", "--full-tree",
                         "--format=%(objectmode) %(objectname)%x09%(path)", rev});
    BOOST_REQUIRE_MESSAGE(r.status == 0, "cannot read " << rev << ": " << r.err);
    Files files;
    for (size_t at = 0, end; (end = r.out.find('\0', at)) != std::string::npos; at = end + 1) {
        std::string line = r.out.substr(at, end - at);
        auto tab = line.find('\t'), sp = line.find(' ');
        files[line.substr(tab + 1)] = {line.substr(0, sp), line.substr(sp + 1, tab - sp - 1)};
    }
    return files;
}

// The stranded commit holds the working state, file by file, content and mode.
inline void expect_saved(const Files& expected, const Files& saved)
{
    for (const auto& [path, want] : expected) {
        auto got = saved.find(path);
        if (got == saved.end()) {
            BOOST_TEST(false, "the working file '" << path << "' was destroyed, not saved");
            continue;
        }
        BOOST_TEST(got->second.mode == want.mode,
                   "'" << path << "' was saved with mode " << got->second.mode << " instead of "
                       << want.mode << ": its exec bit or symlink was lost");
        BOOST_TEST(got->second.blob == want.blob,
                   "'" << path << "' was saved with other content: the working version was lost");
    }
    for (const auto& [path, entry] : saved)
        BOOST_TEST(expected.count(path) == 1, "the save holds '"
                                                  << path
                                                  << "', which the tree does not: a deletion "
                                                     "or exclusion was lost");
}

inline std::string git_out(const fs::path& cwd, const std::vector<std::string>& args)
{
    std::vector<std::string> argv{"git", "-C", cwd.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = guard::run(argv);
    return r.status == 0 ? r.out : "<failed: " + r.err + ">";
}

inline std::string git_path(const fs::path& tree, const std::string& what)
{
    std::string p = git_out(tree, {"rev-parse", "--path-format=absolute", "--git-path", what});
    return p.substr(0, p.find('\n'));
}

inline std::string read_or_missing(const fs::path& file)
{
    std::error_code ec;
    return fs::exists(file, ec) ? read_file(file) : "<missing>";
}

// Everything a save must leave alone: the tree's files (with their mtimes), its
// index byte for byte, its HEAD, its branch, and every ref of the repository.
struct TreeState {
    Files files;
    std::map<std::string, long long> mtimes;
    std::string index, head, branch, refs;

    TreeState(const fs::path& tree, const std::string& branch_name)
    {
        files = working_files(tree);
        for (const auto& [path, entry] : files) {
            struct stat st {};
            ::lstat((tree / path).c_str(), &st);
            mtimes[path] = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
        }
        index = read_or_missing(git_path(tree, "index"));
        head = read_or_missing(git_path(tree, "HEAD"));
        branch = branch_name.empty()
                     ? ""
                     : git_out(tree, {"rev-parse", "-q", "--verify", "refs/heads/" + branch_name});
        refs = git_out(tree, {"for-each-ref", "--format=%(refname) %(objectname)"});
    }
};

inline void expect_untouched(const TreeState& before, const TreeState& after, bool refs_too)
{
    BOOST_TEST((before.files == after.files),
               "the tree's files were changed by the save: work was rewritten");
    BOOST_TEST((before.mtimes == after.mtimes), "the save rewrote files in the tree");
    BOOST_TEST((before.index == after.index),
               "the tree's own index was written: staged work can be lost");
    BOOST_TEST(before.head == after.head, "the tree's HEAD was moved by the save");
    BOOST_TEST(before.branch == after.branch, "the tree's branch was moved by the save");
    if (refs_too)
        BOOST_TEST(before.refs == after.refs,
                   "a ref was written although nothing was saved:\nbefore:\n"
                       << before.refs << "after:\n"
                       << after.refs);
}

inline guard::SaveResult save(const TempRepo& repo, const fs::path& tree,
                       const std::string& reason = "save")
{
    return guard::save_path(guard::site_at(repo.path()), tree, {.reason = reason});
}

// Why a save of `tree` was refused: its refusal message, or the message of the
// guard::Error it threw ("" when it saved or had nothing to save).
inline std::string refusal(const fs::path& start, const fs::path& tree)
{
    try {
        return guard::save_path(guard::site_at(start), tree, {}).refused;
    } catch (const guard::Error& e) {
        return e.what();
    }
}

// The commit id `what` names, or "" when it names none.
inline std::string rev(const fs::path& cwd, const std::string& what)
{
    auto r = guard::run({"git", "-C", cwd.string(), "rev-parse", "-q", "--verify", what});
    return r.status == 0 ? r.out.substr(0, r.out.find('\n')) : "";
}

inline bool git_ok(const TempRepo& repo, const std::vector<std::string>& args)
{
    return repo.git_status(repo.path(), args) == 0;
}

inline int stranded_count(const fs::path& repo)
{
    std::string refs =
        git_out(repo, {"for-each-ref", "--format=%(refname)", "refs/heads/stranded/"});
    return static_cast<int>(std::count(refs.begin(), refs.end(), '\n'));
}

inline void chmod_x(const fs::path& file)
{
    fs::permissions(file, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
}

// A repository whose main has a.txt, b.txt, dir/c.txt and run.sh, and a linked
// worktree `wt` on branch `wt` (TempRepo::add_base_and_worktree, with the executable run.sh).
inline fs::path base_with_worktree(const TempRepo& repo)
{
    repo.write("run.sh", "#!/bin/sh\necho run\n");
    chmod_x(repo.path() / "run.sh");
    return repo.add_base_and_worktree();
}

// The set-up most save tests start from: `repo` as base_with_worktree makes it, and `wt`.
struct WorktreeRepo {
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
};

struct Kind {
    const char* name;
    std::function<void(const TempRepo&, const fs::path&)> make;
};

inline std::ostream& operator<<(std::ostream& os, const Kind& k)
{
    return os << k.name;
}

inline const Kind k_kinds[] = {
    {"tracked_edit", [](auto&, auto& t) { write_file(t / "a.txt", "alpha edited\n"); }},
    {"staged_new_file",
     [](auto& r, auto& t) {
         write_file(t / "new.txt", "new\n");
         r.git_in(t, {"add", "new.txt"});
     }},
    {"deleted_file", [](auto&, auto& t) { fs::remove(t / "b.txt"); }},
    {"staged_deletion",
     [](auto& r, auto& t) {
         r.git_in(t, {"rm", "-q", "b.txt"});
     }},
    {"rename",
     [](auto& r, auto& t) {
         r.git_in(t, {"mv", "a.txt", "renamed.txt"});
     }},
    {"rename_on_disk_only", [](auto&, auto& t) { fs::rename(t / "a.txt", t / "moved.txt"); }},
    {"untracked_file_in_new_directory",
     [](auto&, auto& t) { write_file(t / "newdir/deeper/u.txt", "untracked\n"); }},
    {"executable_bit", [](auto&, auto& t) { chmod_x(t / "a.txt"); }},
    {"executable_bit_removed",
     [](auto&, auto& t) {
         fs::permissions(t / "run.sh",
                         fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                         fs::perm_options::remove);
     }},
    {"symlink", [](auto&, auto& t) { fs::create_symlink("a.txt", t / "link"); }},
    {"file_replaced_by_symlink",
     [](auto&, auto& t) {
         fs::remove(t / "dir/c.txt");
         fs::create_symlink("../a.txt", t / "dir/c.txt");
     }},
    {"staged_then_edited_again",
     [](auto& r, auto& t) {
         write_file(t / "a.txt", "staged\n");
         r.git_in(t, {"add", "a.txt"});
         write_file(t / "a.txt", "working\n");
     }},
    {"directory_replaced_by_file",
     [](auto&, auto& t) {
         fs::remove_all(t / "dir");
         write_file(t / "dir", "now a file\n");
     }},
    {"file_replaced_by_directory",
     [](auto&, auto& t) {
         fs::remove(t / "b.txt");
         write_file(t / "b.txt/inner.txt", "now a directory\n");
     }},
};

// The value of trailer `key` in commit `rev`, each on its own line.
inline std::string trailer(const fs::path& repo, const std::string& rev, const std::string& key)
{
    std::string out = git_out(repo, {"log", "-1", "--format=%(trailers:key=" + key + ",valueonly)", rev});
    while (!out.empty() && out.back() == '\n')
        out.pop_back();
    return out;
}

} // namespace guard::test::saves
