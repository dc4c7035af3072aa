// Unit tests of the save engine: bad input: paths outside a repository, missing, a subdirectory; hooks never run.
#include "tests/unit/save/save_fixtures.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

using namespace guard::test::saves;

BOOST_AUTO_TEST_SUITE(save_refusals)

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

BOOST_FIXTURE_TEST_CASE(subdirectory_of_a_worktree_is_not_taken_for_the_tree, WorktreeRepo)
{
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

// --- no hooks --------------------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(no_hooks_run_during_a_save, WorktreeRepo)
{
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

BOOST_AUTO_TEST_SUITE_END()
