// Unit tests of the save engine: which files a save holds: ignored, excluded, links, nested repositories, odd names, size, formats.
#include "tests/unit/save/save_fixtures.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

using namespace guard::test::saves;

BOOST_AUTO_TEST_SUITE(save_contents)

// --- ignore and exclude rules ---------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(ignored_files_are_not_saved_but_kept_ignored_ones_are, WorktreeRepo)
{
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

BOOST_FIXTURE_TEST_CASE(untracked_symlink_outside_the_tree_is_not_saved, WorktreeRepo)
{
    repo.link_node_modules_out(wt);
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

BOOST_FIXTURE_TEST_CASE(nested_repository_is_saved_whole_and_nothing_in_it_written, WorktreeRepo)
{
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
    repo.add_submodule(sub, "mod");
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

BOOST_FIXTURE_TEST_CASE(hundred_megabyte_file_is_saved, WorktreeRepo)
{
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
    auto result = guard::save_path(guard::site_at(sha256), sha256, {});
    BOOST_REQUIRE_MESSAGE(result.saved, "a SHA-256 repository's work was not saved: " << result.refused);
    BOOST_TEST(result.saved->commit.size() == 64u, "the save's id is not a SHA-256 id");
    const std::string& ref = result.saved->ref;
    BOOST_TEST(git_out(sha256, {"show", ref + ":f.txt"}) == "work\n", "the edit of f.txt was lost");
    BOOST_TEST(git_out(sha256, {"show", ref + ":new.txt"}) == "untracked\n", "the untracked file was lost");
    BOOST_TEST(tree_files_any(sha256, ref).size() == 2u, "the save holds files the tree does not");
    expect_untouched(before, TreeState(sha256, "main"), false);
}

BOOST_FIXTURE_TEST_CASE(worktree_config_extension_on, WorktreeRepo)
{
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

BOOST_AUTO_TEST_SUITE_END()
