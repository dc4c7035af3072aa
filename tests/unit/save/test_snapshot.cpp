// DESIGN §5: a save holds the tree's working state exactly, writes nothing to the
// tree, never overwrites, runs no hooks, and refuses what it cannot serve.
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

namespace fs = std::filesystem;
using guard::test::read_file;
using guard::test::TempRepo;
using guard::test::write_file;

namespace {

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

std::string blob_id(const std::string& content)
{
    git_oid oid;
    guard::check(git_odb_hash(&oid, content.data(), content.size(), GIT_OBJECT_BLOB), "hash");
    return guard::to_hex(oid);
}

// What the tree at `root` holds on disk, as git would record it (.git and the
// paths in `skip`, or below them, left out).
Files working_files(const fs::path& root, const std::set<std::string>& skip = {})
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
Files tree_files(const fs::path& repo, const std::string& rev)
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
Files tree_files_any(const fs::path& repo, const std::string& rev)
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
void expect_saved(const Files& expected, const Files& saved)
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

std::string git_out(const fs::path& cwd, const std::vector<std::string>& args)
{
    std::vector<std::string> argv{"git", "-C", cwd.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = guard::run(argv);
    return r.status == 0 ? r.out : "<failed: " + r.err + ">";
}

std::string git_path(const fs::path& tree, const std::string& what)
{
    std::string p = git_out(tree, {"rev-parse", "--path-format=absolute", "--git-path", what});
    return p.substr(0, p.find('\n'));
}

std::string read_or_missing(const fs::path& file)
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

void expect_untouched(const TreeState& before, const TreeState& after, bool refs_too)
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

guard::SaveResult save(const TempRepo& repo, const fs::path& tree,
                       const std::string& reason = "save")
{
    return guard::save_path(repo.path(), tree, {.reason = reason});
}

// Why a save of `tree` was refused: its refusal message, or the message of the
// guard::Error it threw ("" when it saved or had nothing to save).
std::string refusal(const fs::path& start, const fs::path& tree)
{
    try {
        return guard::save_path(start, tree, {}).refused;
    } catch (const guard::Error& e) {
        return e.what();
    }
}

// The commit id `what` names, or "" when it names none.
std::string rev(const fs::path& cwd, const std::string& what)
{
    auto r = guard::run({"git", "-C", cwd.string(), "rev-parse", "-q", "--verify", what});
    return r.status == 0 ? r.out.substr(0, r.out.find('\n')) : "";
}

bool git_ok(const TempRepo& repo, const std::vector<std::string>& args)
{
    return repo.git_status(repo.path(), args) == 0;
}

int stranded_count(const fs::path& repo)
{
    std::string refs =
        git_out(repo, {"for-each-ref", "--format=%(refname)", "refs/heads/stranded/"});
    return static_cast<int>(std::count(refs.begin(), refs.end(), '\n'));
}

void chmod_x(const fs::path& file)
{
    fs::permissions(file, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
}

// A repository whose main has a.txt, b.txt, dir/c.txt and run.sh, and a linked
// worktree `wt` on branch `wt`.
fs::path base_with_worktree(const TempRepo& repo)
{
    repo.write("a.txt", "alpha\n");
    repo.write("b.txt", "bravo\n");
    repo.write("dir/c.txt", "charlie\n");
    repo.write("run.sh", "#!/bin/sh\necho run\n");
    chmod_x(repo.path() / "run.sh");
    repo.git({"add", "."});
    repo.git({"commit", "-q", "-m", "base"});
    return repo.add_worktree("wt");
}

struct Kind {
    const char* name;
    std::function<void(const TempRepo&, const fs::path&)> make;
};

std::ostream& operator<<(std::ostream& os, const Kind& k)
{
    return os << k.name;
}

const Kind k_kinds[] = {
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

} // namespace

BOOST_AUTO_TEST_SUITE(snapshot)

BOOST_DATA_TEST_CASE(each_kind_of_change_is_saved_and_the_tree_untouched,
                     boost::unit_test::data::make(k_kinds), kind)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    kind.make(repo, wt);
    TreeState before(wt, "wt");
    auto result = save(repo, wt);
    TreeState after(wt, "wt");
    BOOST_REQUIRE_MESSAGE(result.saved,
                          "the change was reported as nothing to save: it would be destroyed");
    expect_saved(working_files(wt), tree_files(repo.path(), result.saved->ref));
    expect_untouched(before, after, false);
    BOOST_TEST(
        rev(repo.path(), result.saved->ref + "^1") == rev(wt, "HEAD"),
        "the save's first parent is not the tree's HEAD: the restore commands would be wrong");
}

BOOST_DATA_TEST_CASE(each_kind_of_change_is_saved_from_the_main_tree,
                     boost::unit_test::data::make(k_kinds), kind)
{
    TempRepo repo;
    base_with_worktree(repo);
    kind.make(repo, repo.path());
    TreeState before(repo.path(), "main");
    auto result = save(repo, repo.path());
    TreeState after(repo.path(), "main");
    BOOST_REQUIRE_MESSAGE(result.saved,
                          "the change was reported as nothing to save: it would be destroyed");
    expect_saved(working_files(repo.path()), tree_files(repo.path(), result.saved->ref));
    expect_untouched(before, after, false);
}

BOOST_AUTO_TEST_CASE(message_trailers_identity_and_name)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    write_file(wt / "u.txt", "u\n");
    auto result = save(repo, wt, "worktree remove");
    BOOST_REQUIRE(result.saved);
    const auto& ref = result.saved->ref;
    BOOST_TEST(ref.starts_with("refs/heads/stranded/wt/"),
               "the stranded branch is not named after the tree: " << ref);
    std::string stamp = ref.substr(std::string("refs/heads/stranded/wt/").size());
    BOOST_TEST((stamp.size() == 20 && stamp[8] == 'T' && stamp[15] == '.' && stamp[19] == 'Z'),
               "the stamp is not YYYYMMDDTHHMMSS.mmmZ: " << stamp);
    std::string msg = git_out(repo.path(), {"log", "-1", "--format=%B", ref});
    BOOST_TEST(msg.starts_with("stranded: "), msg);
    BOOST_TEST(msg.find(" from " + wt.string() + " (wt)") != std::string::npos, msg);
    BOOST_TEST(msg.find("\nStranded-From: " + wt.string() + "\n") != std::string::npos, msg);
    BOOST_TEST(msg.find("\nStranded-Branch: wt\n") != std::string::npos, msg);
    BOOST_TEST(msg.find("\nStranded-Head: " + rev(wt, "HEAD") + "\n") != std::string::npos, msg);
    BOOST_TEST(msg.find("\nStranded-Reason: worktree remove\n") != std::string::npos, msg);
    std::string trailers =
        git_out(repo.path(), {"log", "-1", "--format=%(trailers:only,unfold)", ref});
    BOOST_TEST(trailers.find("Stranded-Reason: worktree remove") != std::string::npos,
               "git does not read the trailers as trailers: " << trailers);
    BOOST_TEST(git_out(repo.path(), {"log", "-1", "--format=%an <%ae>|%cn <%ce>", ref}) ==
                   "git-guard <git-guard@localhost>|git-guard <git-guard@localhost>\n",
               "the save is not made by the pinned identity");
    BOOST_TEST(git_out(repo.path(), {"cat-file", "commit", ref}).find("gpgsig") ==
                   std::string::npos,
               "the save commit is signed");
}

BOOST_AUTO_TEST_CASE(identity_comes_from_guard_identity)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    repo.git({"config", "guard.identity", "Rescue Bot <rescue@example.org>"});
    write_file(wt / "u.txt", "u\n");
    auto result = save(repo, wt);
    BOOST_REQUIRE(result.saved);
    BOOST_TEST(git_out(repo.path(), {"log", "-1", "--format=%an <%ae>", result.saved->ref}) ==
               "Rescue Bot <rescue@example.org>\n");
}

// --- commits ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(detached_head_commits_are_saved)
{
    TempRepo repo;
    base_with_worktree(repo);
    fs::path det = repo.add_worktree("det", true);
    write_file(det / "one.txt", "1\n");
    repo.git_in(det, {"add", "one.txt"});
    repo.git_in(det, {"commit", "-q", "-m", "one"});
    std::string first = rev(det, "HEAD");
    write_file(det / "two.txt", "2\n");
    repo.git_in(det, {"add", "two.txt"});
    repo.git_in(det, {"commit", "-q", "-m", "two"});
    std::string head = rev(det, "HEAD");
    write_file(det / "wip.txt", "uncommitted\n");
    TreeState before(det, "");
    auto result = save(repo, det);
    BOOST_REQUIRE_MESSAGE(result.saved, "the detached commits were reported as nothing to save");
    BOOST_TEST(result.work.commits.size() == 2u, "the detached commits were not counted as work");
    const auto& ref = result.saved->ref;
    BOOST_TEST(rev(repo.path(), ref + "^1") == head,
               "the detached HEAD is not the save's first parent: its "
               "commits were lost");
    BOOST_TEST(git_ok(repo, {"merge-base", "--is-ancestor", first, ref}),
               "the first detached commit is not reachable from the stranded branch: it was lost");
    expect_saved(working_files(det), tree_files(repo.path(), ref));
    expect_untouched(before, TreeState(det, ""), false);
}

BOOST_AUTO_TEST_CASE(only_commits_at_risk_point_the_branch_at_head_without_a_commit)
{
    TempRepo repo;
    base_with_worktree(repo);
    fs::path det = repo.add_worktree("det", true);
    write_file(det / "one.txt", "1\n");
    repo.git_in(det, {"add", "one.txt"});
    repo.git_in(det, {"commit", "-q", "-m", "one"});
    std::string objects = git_out(repo.path(), {"count-objects"});
    TreeState before(det, "");
    auto result = save(repo, det);
    BOOST_REQUIRE_MESSAGE(result.saved,
                          "the detached commit was reported as nothing to save: it would be lost");
    BOOST_TEST(rev(repo.path(), result.saved->ref) == rev(det, "HEAD"),
               "the stranded branch does not point at HEAD: the detached commit is not held");
    BOOST_TEST(!result.saved->made_commit, "a commit was made although only commits were at risk");
    BOOST_TEST(git_out(repo.path(), {"count-objects"}) == objects,
               "objects were written although only commits were at risk");
    expect_untouched(before, TreeState(det, ""), false);
    auto again = guard::save_path(repo.path(), det, {});
    BOOST_TEST(!again.saved, "a second save of commits that are now held made another branch");
    BOOST_TEST(stranded_count(repo.path()) == 1);
}

BOOST_AUTO_TEST_CASE(head_moved_off_the_branch_tip_makes_the_tip_the_second_parent)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    write_file(wt / "a.txt", "from the branch\n");
    repo.git_in(wt, {"commit", "-q", "-am", "branch edit"});
    std::string tip = rev(wt, "HEAD");
    repo.write("a.txt", "from main\n");
    repo.git({"commit", "-q", "-am", "main edit"});
    BOOST_REQUIRE_MESSAGE(repo.git_status(wt, {"rebase", "-q", "main"}) != 0,
                          "the rebase did not stop");
    std::string git_dir = git_out(wt, {"rev-parse", "--absolute-git-dir"});
    git_dir.pop_back();
    BOOST_REQUIRE(read_file(fs::path(git_dir) / "rebase-merge/head-name") == "refs/heads/wt\n");
    BOOST_REQUIRE_MESSAGE(rev(wt, "HEAD") != tip, "HEAD did not move off the tip");
    TreeState before(wt, "wt");
    auto result = save(repo, wt);
    BOOST_REQUIRE_MESSAGE(result.saved, "the conflicted rebase was reported as nothing to save");
    const auto& ref = result.saved->ref;
    BOOST_TEST(result.work.branch == "wt", "the rebased branch was not recognised");
    BOOST_TEST(rev(repo.path(), ref + "^1") == rev(wt, "HEAD"), "HEAD is not the first parent");
    BOOST_TEST(rev(repo.path(), ref + "^2") == tip,
               "the branch tip is not the second parent: the commits being rebased are not held");
    expect_saved(working_files(wt), tree_files(repo.path(), ref));
    expect_untouched(before, TreeState(wt, "wt"), false);
    BOOST_TEST(fs::exists(fs::path(git_dir) / "rebase-merge"),
               "the save ended the rebase in progress");
}

// --- ignore and exclude rules ---------------------------------------------------------

BOOST_AUTO_TEST_CASE(ignored_files_are_not_saved_but_kept_ignored_ones_are)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    repo.git({"config", "--add", "guard.keepIgnored", ".env"});
    write_file(wt / ".gitignore", "*.log\nbuild/\n.env\n");
    write_file(wt / "debug.log", "noise\n");
    write_file(wt / "build/out.o", "object\n");
    write_file(wt / ".env", "SECRET=1\n");
    auto result = save(repo, wt);
    BOOST_REQUIRE_MESSAGE(result.saved, "the .gitignore and .env were reported as nothing to save");
    Files saved = tree_files(repo.path(), result.saved->ref);
    BOOST_TEST(saved.count(".env") == 1,
               "the file kept by guard.keepIgnored was destroyed, not saved");
    BOOST_TEST(saved.count("debug.log") == 0, "an ignored file was saved");
    BOOST_TEST(saved.count("build/out.o") == 0, "an ignored directory was saved");
    expect_saved(working_files(wt, {"debug.log", "build"}), saved);
}

BOOST_AUTO_TEST_CASE(excluded_paths_are_not_saved_even_ignored_with_tracked_files_under_them)
{
    TempRepo repo;
    // The combination that made every save fail in the system this design comes from:
    // scratch/ is ignored, excluded, and holds tracked files.
    repo.write(".gitignore", "scratch/\n");
    repo.write("scratch/tracked.txt", "as committed\n");
    repo.write("scratch/gone.txt", "committed, then deleted\n");
    repo.write("scratch/staged.txt", "committed, then edited and staged\n");
    repo.git({"add", ".gitignore"});
    repo.git({"add", "-f", "scratch/tracked.txt", "scratch/gone.txt", "scratch/staged.txt"});
    repo.git({"commit", "-q", "-m", "scratch"});
    fs::path wt = repo.add_worktree("wt");
    repo.git({"config", "--add", "guard.exclude", "scratch/"});
    repo.git({"config", "--add", "guard.exclude", "*.tmp"});
    std::string head_version = blob_id("as committed\n");
    write_file(wt / "scratch/tracked.txt", "edited scratch\n");
    fs::remove(wt / "scratch/gone.txt");
    write_file(wt / "scratch/staged.txt", "staged scratch edit\n");
    repo.git_in(wt, {"add", "-f", "scratch/staged.txt"});
    write_file(wt / "scratch/new.txt", "untracked scratch\n");
    write_file(wt / "notes.tmp", "excluded but not ignored\n");
    write_file(wt / "real.txt", "real work\n");
    TreeState before(wt, "wt");
    auto result = save(repo, wt);
    BOOST_REQUIRE_MESSAGE(result.saved, "the real work next to an excluded path was not saved");
    Files saved = tree_files(repo.path(), result.saved->ref);
    BOOST_TEST(saved.count("real.txt") == 1, "the real work was destroyed, not saved");
    BOOST_TEST(saved.count("scratch/new.txt") == 0, "an excluded untracked file was saved");
    BOOST_TEST(saved.count("notes.tmp") == 0, "an excluded untracked file was saved");
    BOOST_TEST(saved["scratch/tracked.txt"].blob == head_version,
               "an excluded tracked file was saved with its edits, not as HEAD has it");
    BOOST_TEST(saved["scratch/staged.txt"].blob == blob_id("committed, then edited and staged\n"),
               "an excluded tracked file was saved with its staged edits, not as HEAD has it");
    BOOST_TEST(saved.count("scratch/gone.txt") == 1,
               "an excluded tracked file was saved as deleted, not as HEAD has it");
    for (const auto& c : result.work.changes)
        BOOST_TEST((c.path == "real.txt"), "the excluded path '" << c.path << "' counted as work");
    expect_untouched(before, TreeState(wt, "wt"), false);
}

BOOST_AUTO_TEST_CASE(untracked_symlink_outside_the_tree_is_not_saved)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    fs::create_directories(repo.path() / "node_modules/pkg");
    fs::create_directory_symlink(repo.path() / "node_modules", wt / "node_modules");
    fs::create_symlink("../../repo/a.txt", wt / "outside-relative");
    fs::create_symlink("a.txt", wt / "inside");
    auto result = save(repo, wt);
    BOOST_REQUIRE_MESSAGE(result.saved,
                          "the symlink inside the tree was reported as nothing to save");
    Files saved = tree_files(repo.path(), result.saved->ref);
    BOOST_TEST(saved.count("inside") == 1, "a symlink inside the tree was destroyed, not saved");
    BOOST_TEST(saved.count("node_modules") == 0, "a symlink pointing outside the tree was saved");
    BOOST_TEST(saved.count("outside-relative") == 0,
               "a symlink pointing outside the tree was saved");
}

// --- nested repositories and submodules are saved whole (C1 Stranded-Nested) -------------

// The value of trailer `key` in commit `rev`, each on its own line.
std::string trailer(const fs::path& repo, const std::string& rev, const std::string& key)
{
    std::string out = git_out(repo, {"log", "-1", "--format=%(trailers:key=" + key + ",valueonly)", rev});
    while (!out.empty() && out.back() == '\n')
        out.pop_back();
    return out;
}

BOOST_AUTO_TEST_CASE(nested_repository_is_saved_whole_and_nothing_in_it_written)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    repo.git_in(wt, {"init", "-q", "inner"});
    write_file(wt / "inner/committed.txt", "a commit only the nested repository holds\n");
    repo.git_in(wt / "inner", {"add", "committed.txt"});
    repo.git_in(wt / "inner", {"commit", "-q", "-m", "local"});
    std::string local = rev(wt / "inner", "HEAD");
    write_file(wt / "inner/file.txt", "uncommitted, inside a nested repository\n");
    write_file(wt / "other.txt", "ordinary work\n");
    TreeState before(wt, "wt");
    auto result = save(repo, wt);
    BOOST_REQUIRE_MESSAGE(result.saved, "a tree holding a nested repository was not saved: " << result.refused);
    const std::string& ref = result.saved->ref;
    expect_untouched(before, TreeState(wt, "wt"), false);
    std::string nested = trailer(repo.path(), ref, "Stranded-Nested");
    BOOST_REQUIRE_MESSAGE(nested.ends_with(" inner"), "no Stranded-Nested trailer for inner: " << nested);
    std::string n = nested.substr(0, nested.find(' '));
    BOOST_TEST(git_out(repo.path(), {"rev-parse", ref + ":inner"}) == n + "\n",
               "the save's tree records no gitlink to the nested save");
    BOOST_TEST(git_out(repo.path(), {"show", n + ":file.txt"}) == "uncommitted, inside a nested repository\n",
               "the nested repository's uncommitted file was lost");
    BOOST_TEST(git_out(repo.path(), {"merge-base", "--is-ancestor", local, ref}).find("<failed") == std::string::npos,
               "the nested repository's local commit is not reachable from the save: it was lost");
    BOOST_TEST(git_out(repo.path(), {"show", ref + ":other.txt"}) == "ordinary work\n");
    BOOST_TEST(git_out(repo.path(), {"fsck", "--no-dangling", "--connectivity-only"}).find("<failed") ==
                   std::string::npos,
               "the guarded repository is not connected after the nested save");
}

BOOST_AUTO_TEST_CASE(submodule_with_changes_is_saved_whole)
{
    TempRepo repo;
    TempRepo sub;
    repo.git(
        {"-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.path().string(), "mod"});
    repo.git({"commit", "-q", "-m", "add submodule"});
    BOOST_TEST(!save(repo, repo.path()).saved, "a clean submodule was saved");
    write_file(repo.path() / "mod/README", "edited inside the submodule\n");
    TreeState before(repo.path(), "main");
    auto result = save(repo, repo.path());
    BOOST_REQUIRE_MESSAGE(result.saved, "a submodule with work of its own was not saved: " << result.refused);
    expect_untouched(before, TreeState(repo.path(), "main"), false);
    std::string nested = trailer(repo.path(), result.saved->ref, "Stranded-Nested");
    BOOST_REQUIRE_MESSAGE(nested.ends_with(" mod"), "no Stranded-Nested trailer for mod: " << nested);
    std::string n = nested.substr(0, nested.find(' '));
    BOOST_TEST(git_out(repo.path(), {"show", n + ":README"}) == "edited inside the submodule\n",
               "the submodule's edit was lost");
}

// --- never overwrite ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_taken_name_is_never_overwritten)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    ScopedEnv env;
    env.set("GIT_GUARD_STAMP", "20260101T000000.000Z");
    std::string first = "refs/heads/stranded/wt/20260101T000000.000Z";
    std::string old = rev(repo.path(), "main~1");
    repo.git({"update-ref", first, old});
    write_file(wt / "u.txt", "work\n");
    auto result = save(repo, wt);
    BOOST_REQUIRE(result.saved);
    BOOST_TEST(rev(repo.path(), first) == old,
               "an existing stranded branch was overwritten: its work was lost");
    BOOST_TEST(result.saved->ref == first + "-2", "the work did not go to the -2 name");
    expect_saved(working_files(wt), tree_files(repo.path(), first + "-2"));
}

BOOST_AUTO_TEST_CASE(twenty_taken_names_give_a_clear_error_and_write_nothing)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    ScopedEnv env;
    env.set("GIT_GUARD_STAMP", "20260101T000000.000Z");
    std::string first = "refs/heads/stranded/wt/20260101T000000.000Z";
    std::string old = rev(repo.path(), "main~1");
    repo.git({"update-ref", first, old});
    for (int n = 2; n <= 20; ++n)
        repo.git({"update-ref", first + "-" + std::to_string(n), old});
    write_file(wt / "u.txt", "work\n");
    TreeState before(wt, "wt");
    std::string why = refusal(repo.path(), wt);
    BOOST_TEST(!why.empty(), "a save went through although all twenty names were taken");
    BOOST_TEST(why.find("taken") != std::string::npos,
               "the error does not say the names are taken: " << why);
    BOOST_TEST(why.find(first) != std::string::npos, "the error does not name the branch: " << why);
    expect_untouched(before, TreeState(wt, "wt"), true);
    fs::path guard_tmp = repo.path() / ".git/guard/tmp";
    BOOST_TEST((!fs::exists(guard_tmp) || fs::is_empty(guard_tmp)),
               "the private index was left behind");
}

// --- no hooks --------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(no_hooks_run_during_a_save)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    fs::path marker = repo.root() / "hooks-ran";
    for (const char* hook : {"reference-transaction", "pre-commit", "post-commit", "commit-msg",
                             "prepare-commit-msg", "post-index-change", "post-checkout"}) {
        fs::path file = repo.path() / ".git/hooks" / hook;
        write_file(file, std::string("#!/bin/sh\necho ") + hook + " >>'" + marker.string() +
                             "'\nexit 1\n");
        chmod_x(file);
    }
    BOOST_REQUIRE_MESSAGE(
        repo.git_status(repo.path(), {"update-ref", "refs/heads/probe", "HEAD"}) != 0,
        "the rejecting reference-transaction hook is not live, so this test proves nothing");
    fs::remove(marker);
    write_file(wt / "a.txt", "edited\n");
    write_file(wt / "u.txt", "untracked\n");
    std::optional<guard::SaveResult> result;
    try {
        result = save(repo, wt);
    } catch (const guard::Error& e) {
        BOOST_TEST(false, "a hook made the save fail, so the work cannot be saved: " << e.what());
    }
    BOOST_TEST(!fs::exists(marker), "hooks ran during the save: " << read_or_missing(marker));
    BOOST_REQUIRE(result && result->saved);
    expect_saved(working_files(wt), tree_files(repo.path(), result->saved->ref));
}

// --- repository shapes ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(no_user_identity_configured)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    ScopedEnv env;
    for (const char* name : {"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                             "GIT_COMMITTER_EMAIL", "EMAIL"})
        env.set(name, std::nullopt);
    repo.git({"config", "user.useConfigOnly", "true"});
    BOOST_REQUIRE_MESSAGE(repo.git_status(wt, {"commit", "-q", "--allow-empty", "-m", "x"}) != 0,
                          "git still has an identity, so this test proves nothing");
    write_file(wt / "u.txt", "work\n");
    auto result = save(repo, wt);
    BOOST_REQUIRE_MESSAGE(result.saved, "without a user identity the work was not saved");
    expect_saved(working_files(wt), tree_files(repo.path(), result.saved->ref));
}

BOOST_AUTO_TEST_CASE(worktree_config_extension_on)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    repo.git({"sparse-checkout", "init"});
    repo.git({"sparse-checkout", "disable"});
    BOOST_REQUIRE(repo.git({"config", "extensions.worktreeConfig"}) == "true\n");
    repo.git_in(wt, {"config", "--worktree", "guard.identity", "Per Tree <tree@example.org>"});
    write_file(wt / "a.txt", "edited\n");
    write_file(wt / "newdir/u.txt", "u\n");
    TreeState before(wt, "wt");
    auto result = save(repo, wt);
    BOOST_REQUIRE_MESSAGE(result.saved, "with extensions.worktreeConfig the work was not saved");
    expect_saved(working_files(wt), tree_files(repo.path(), result.saved->ref));
    expect_untouched(before, TreeState(wt, "wt"), false);
}

BOOST_AUTO_TEST_CASE(sparse_checkout_hidden_files_are_not_saved_as_deleted)
{
    TempRepo repo;
    base_with_worktree(repo);
    repo.git({"sparse-checkout", "set", "--cone"}); // only top-level files stay on disk
    BOOST_REQUIRE_MESSAGE(!fs::exists(repo.path() / "dir/c.txt"),
                          "sparse-checkout left dir/c.txt on disk");
    BOOST_REQUIRE(repo.git({"status", "--porcelain"}).empty());
    repo.write("a.txt", "edited\n");
    auto result = save(repo, repo.path());
    BOOST_REQUIRE(result.saved);
    Files saved = tree_files(repo.path(), result.saved->ref);
    BOOST_TEST(saved.count("dir/c.txt") == 1, "a file sparse-checkout keeps off disk was saved as "
                                              "deleted: restoring the save deletes it");
    for (const auto& c : result.work.changes)
        BOOST_TEST(c.path == "a.txt",
                   "'" << c.path << "' counted as work although git status is clean for it");
}

BOOST_AUTO_TEST_CASE(unborn_head_saves_untracked_files_on_a_root_commit)
{
    TempRepo repo;
    fs::path fresh = repo.root() / "fresh";
    repo.git_in(repo.root(), {"init", "-q", "fresh"});
    write_file(fresh / "staged.txt", "staged\n");
    repo.git_in(fresh, {"add", "staged.txt"});
    write_file(fresh / "dir/untracked.txt", "untracked\n");
    TreeState before(fresh, "main");
    auto result = guard::save_path(fresh, fresh, {});
    BOOST_REQUIRE_MESSAGE(result.saved, "the files of an unborn branch were not saved");
    const auto& ref = result.saved->ref;
    // Layout 2 on an unborn HEAD: no HEAD parent; the index commit I is the only parent.
    std::string parents = git_out(fresh, {"rev-list", "--parents", "-1", ref});
    std::string index = trailer(fresh, ref, "Stranded-Index");
    BOOST_TEST(parents.size() == 82u, "the save on an unborn HEAD has parents other than its index: " << parents);
    BOOST_TEST(parents.substr(41) == index + "\n", "the staged file's index record is not the save's parent");
    BOOST_TEST(trailer(fresh, ref, "Stranded-Head") == "unborn");
    BOOST_TEST(git_out(fresh, {"show", index + ":staged.txt"}) == "staged\n",
               "the staged file was lost from the index record");
    expect_saved(working_files(fresh), tree_files(fresh, ref));
    expect_untouched(before, TreeState(fresh, "main"), false);
    BOOST_TEST(git_out(fresh, {"symbolic-ref", "HEAD"}) == "refs/heads/main\n", "HEAD was moved");
    BOOST_TEST(rev(fresh, "refs/heads/main").empty(), "the unborn branch was created by the save");
}

BOOST_AUTO_TEST_CASE(odd_file_names_are_saved)
{
    TempRepo repo;
    repo.write("-tracked-dash.txt", "committed\n");
    repo.write("tracked space.txt", "committed\n");
    repo.git({"add", "--", "-tracked-dash.txt", "tracked space.txt"});
    repo.git({"commit", "-q", "-m", "odd"});
    fs::path wt = repo.add_worktree("wt");
    write_file(wt / "-tracked-dash.txt", "edited\n");
    write_file(wt / "tracked space.txt", "edited\n");
    const std::vector<std::string> names = {"a file.txt", "new\nline.txt", "caf\xe9.txt",
                                            "-rf",        "--force",       "dir with space/-x",
                                            "tab\there",  "quote\"s",      "caf\xc3\xa9-utf8.txt"};
    for (const auto& name : names)
        write_file(wt / name, "content of " + name + "\n");
    auto result = save(repo, wt);
    BOOST_REQUIRE(result.saved);
    Files saved = tree_files(repo.path(), result.saved->ref);
    for (const auto& name : names)
        BOOST_TEST(saved.count(name) == 1,
                   "the file named '" << name << "' was destroyed, not saved");
    expect_saved(working_files(wt), saved);
}

BOOST_AUTO_TEST_CASE(hundred_megabyte_file_is_saved)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    std::string big(100u << 20, '\0');
    unsigned long long x = 0x9e3779b97f4a7c15ULL;
    for (auto& c : big) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        c = static_cast<char>(x >> 56);
    }
    write_file(wt / "big.bin", big);
    std::string want = blob_id(big);
    big.clear();
    big.shrink_to_fit();
    auto start = std::chrono::steady_clock::now();
    auto result = save(repo, wt);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    BOOST_TEST_MESSAGE("saving a 100 MB file took " << ms.count() << " ms");
    BOOST_REQUIRE(result.saved);
    Files saved = tree_files(repo.path(), result.saved->ref);
    BOOST_TEST(saved["big.bin"].blob == want, "the 100 MB file was not saved intact");
}

// --- bad input ----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(path_not_in_a_repository)
{
    TempRepo repo;
    fs::path plain = repo.root() / "plain";
    write_file(plain / "f.txt", "not in git\n");
    std::string why = refusal(plain, plain);
    BOOST_TEST(why.find("not in a git repository") != std::string::npos,
               "no clear refusal: '" << why << "'");
    BOOST_TEST(!fs::exists(plain / ".git"), "a repository was created");
}

BOOST_AUTO_TEST_CASE(missing_path)
{
    TempRepo repo;
    fs::path missing = repo.root() / "missing";
    std::string refs = git_out(repo.path(), {"for-each-ref"});
    std::string why = refusal(repo.path(), missing);
    BOOST_TEST(!why.empty(), "a save of a missing path did not fail");
    BOOST_TEST(why.find(missing.string()) != std::string::npos,
               "the refusal does not name the path: " << why);
    BOOST_TEST(!fs::exists(missing), "the missing path was created");
    BOOST_TEST(git_out(repo.path(), {"for-each-ref"}) == refs, "a ref was written");
}

BOOST_AUTO_TEST_CASE(subdirectory_of_a_worktree_is_not_taken_for_the_tree)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    write_file(wt / "dir/u.txt", "work in the tree\n");
    TreeState before(wt, "wt");
    TreeState main_before(repo.path(), "main");
    for (const fs::path& start : {repo.path(), wt / "dir"}) {
        BOOST_TEST_CONTEXT("started from " << start)
        {
            std::string why = refusal(start, wt / "dir");
            BOOST_TEST(!why.empty(), "a subdirectory was taken for the tree: a save went through");
            BOOST_TEST(why.find("inside the worktree " + wt.string()) != std::string::npos,
                       "the refusal does not name the enclosing tree: " << why);
        }
    }
    expect_untouched(before, TreeState(wt, "wt"), true);
    expect_untouched(main_before, TreeState(repo.path(), "main"), true);
}

BOOST_AUTO_TEST_CASE(sha256_repositories_are_saved_like_sha1_ones)
{
    TempRepo repo;
    fs::path sha256 = repo.root() / "two";
    repo.git_in(repo.root(), {"init", "-q", "--object-format=sha256", "two"});
    write_file(sha256 / "f.txt", "committed\n");
    repo.git_in(sha256, {"add", "f.txt"});
    repo.git_in(sha256, {"commit", "-q", "-m", "one"});
    write_file(sha256 / "f.txt", "work\n");
    write_file(sha256 / "new.txt", "untracked\n");
    TreeState before(sha256, "main");
    auto result = guard::save_path(sha256, sha256, {});
    BOOST_REQUIRE_MESSAGE(result.saved, "a SHA-256 repository's work was not saved: " << result.refused);
    BOOST_TEST(result.saved->commit.size() == 64u, "the save's id is not a SHA-256 id");
    const std::string& ref = result.saved->ref;
    BOOST_TEST(git_out(sha256, {"show", ref + ":f.txt"}) == "work\n", "the edit of f.txt was lost");
    BOOST_TEST(git_out(sha256, {"show", ref + ":new.txt"}) == "untracked\n", "the untracked file was lost");
    BOOST_TEST(tree_files_any(sha256, ref).size() == 2u, "the save holds files the tree does not");
    expect_untouched(before, TreeState(sha256, "main"), false);
}

// --- locked saves ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(two_processes_saving_one_tree_make_one_stranded_branch)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    write_file(wt / "a.txt", "edited\n");
    write_file(wt / "u.txt", "untracked\n");
    int go[2];
    BOOST_REQUIRE(::pipe(go) == 0);
    std::vector<pid_t> children;
    for (int i = 0; i < 2; ++i) {
        pid_t pid = ::fork();
        BOOST_REQUIRE(pid >= 0);
        if (pid == 0) {
            ::close(go[1]);
            char c;
            (void)!::read(go[0], &c, 1); // both start together, on end-of-file
            int code = 0;
            try {
                guard::save_path(repo.path(), wt, {});
            } catch (...) {
                code = 3;
            }
            ::_exit(code);
        }
        children.push_back(pid);
    }
    ::close(go[0]);
    ::close(go[1]);
    for (pid_t pid : children) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0), "a concurrent save failed");
    }
    BOOST_TEST(stranded_count(repo.path()) == 1,
               "two saves of one unchanged tree made "
                   << stranded_count(repo.path()) << " stranded branches:\n"
                   << git_out(repo.path(), {"for-each-ref", "refs/heads/stranded/"}));
}

BOOST_AUTO_TEST_CASE(a_save_happens_under_the_trees_lock)
{
    TempRepo repo;
    fs::path wt = base_with_worktree(repo);
    write_file(wt / "u.txt", "untracked\n");
    repo.git({"config", "guard.lockTimeout", "1"});
    int held[2], release[2];
    BOOST_REQUIRE(::pipe(held) == 0 && ::pipe(release) == 0);
    pid_t pid = ::fork();
    BOOST_REQUIRE(pid >= 0);
    if (pid == 0) { // holds the tree's lock (keyed by its path, DESIGN §7) until told
        int code = 0;
        try {
            guard::PathLock lock(repo.path() / ".git", wt.string(), std::chrono::seconds(5));
            (void)!::write(held[1], "x", 1);
            char c;
            (void)!::read(release[0], &c, 1);
        } catch (...) {
            code = 3;
        }
        ::_exit(code);
    }
    char c = 0;
    BOOST_REQUIRE_MESSAGE(::read(held[0], &c, 1) == 1, "the child never took the lock");
    std::string why = refusal(repo.path(), wt);
    (void)!::write(release[1], "x", 1);
    int status = 0;
    ::waitpid(pid, &status, 0);
    for (int fd : {held[0], held[1], release[0], release[1]})
        ::close(fd);
    BOOST_TEST(!why.empty(), "a save went ahead while another process held the tree's lock");
    BOOST_TEST(why.find("guard.lockTimeout") != std::string::npos,
               "the refusal does not say why: " << why);
    BOOST_TEST(stranded_count(repo.path()) == 0,
               "a save was made while another process held the lock");
    auto result = save(repo, wt);
    BOOST_TEST(result.saved.has_value(), "once the lock was released the work was not saved");
}

BOOST_AUTO_TEST_CASE(save_existing_points_a_new_ref_under_the_given_prefix)
{
    TempRepo repo;
    std::string head = rev(repo.path(), "HEAD");
    auto saved = guard::save_existing(repo.path() / ".git", "in/place", head,
                                      {.reason = "reset --hard", .ref_prefix = "refs/stranded"});
    BOOST_TEST(saved.ref.starts_with("refs/stranded/in/place/"), "the save is not under refs/stranded: " << saved.ref);
    BOOST_TEST(rev(repo.path(), saved.ref) == head, "the save does not hold the commit");
    BOOST_TEST(!saved.made_commit);
    auto again = guard::save_existing(repo.path() / ".git", "in/place", head, {.ref_prefix = "refs/stranded"});
    BOOST_TEST(again.ref != saved.ref, "a second save overwrote the first");
    BOOST_CHECK_THROW(guard::save_existing(repo.path() / ".git", "x", std::string(40, '1'), {}), guard::Error);
}

BOOST_AUTO_TEST_SUITE_END()
