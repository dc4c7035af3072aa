// Unit tests of the save engine: the save commit: its message, trailers, identity and parents.
#include "tests/unit/save/save_fixtures.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

using namespace guard::test::saves;

namespace {

// `det`, a detached worktree beside `wt`, with a commit of its own (one.txt) no branch holds.
struct DetachedCommit : WorktreeRepo {
    fs::path det = repo.add_worktree("det", true);
    DetachedCommit()
    {
        write_file(det / "one.txt", "1\n");
        repo.git_in(det, {"add", "one.txt"});
        repo.git_in(det, {"commit", "-q", "-m", "one"});
    }
};

} // namespace

BOOST_AUTO_TEST_SUITE(save_commit)

BOOST_FIXTURE_TEST_CASE(message_trailers_identity_and_name, WorktreeRepo)
{
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

BOOST_FIXTURE_TEST_CASE(identity_comes_from_guard_identity, WorktreeRepo)
{
    repo.git({"config", "guard.identity", "Rescue Bot <rescue@example.org>"});
    write_file(wt / "u.txt", "u\n");
    auto result = save(repo, wt);
    BOOST_REQUIRE(result.saved);
    BOOST_TEST(git_out(repo.path(), {"log", "-1", "--format=%an <%ae>", result.saved->ref}) ==
               "Rescue Bot <rescue@example.org>\n");
}

// --- commits ------------------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(detached_head_commits_are_saved, DetachedCommit)
{
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

BOOST_FIXTURE_TEST_CASE(only_commits_at_risk_point_the_branch_at_head_without_a_commit, DetachedCommit)
{
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
    auto again = guard::save_path(guard::site_at(repo.path()), det, {});
    BOOST_TEST(!again.saved, "a second save of commits that are now held made another branch");
    BOOST_TEST(stranded_count(repo.path()) == 1);
}

BOOST_FIXTURE_TEST_CASE(head_moved_off_the_branch_tip_makes_the_tip_the_second_parent, WorktreeRepo)
{
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

// --- repository shapes ---------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(no_user_identity_configured, WorktreeRepo)
{
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

BOOST_AUTO_TEST_CASE(unborn_head_saves_untracked_files_on_a_root_commit)
{
    TempRepo repo;
    fs::path fresh = repo.root() / "fresh";
    repo.git_in(repo.root(), {"init", "-q", "fresh"});
    write_file(fresh / "staged.txt", "staged\n");
    repo.git_in(fresh, {"add", "staged.txt"});
    write_file(fresh / "dir/untracked.txt", "untracked\n");
    TreeState before(fresh, "main");
    auto result = guard::save_path(guard::site_at(fresh), fresh, {});
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

BOOST_AUTO_TEST_SUITE_END()
