// Unit tests of the save engine: the save commit: its message, trailers, identity and parents.
#include "tests/unit/save/save_fixtures.hpp"

#include "guard/git/git.hpp"

#include <ctime>

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

// --- one git for the commits and the ref ----------------------------------------------

namespace {

// `commit` written again by commit-tree from its own tree, parents and message, under the
// dates and identity the save ran with: the same id when the save wrote what commit-tree
// writes.
std::string rewritten(const fs::path& repo, const std::string& commit)
{
    std::string raw = git_out(repo, {"cat-file", "commit", commit});
    std::vector<std::string> args{"git", "-C", repo.string(), "commit-tree",
                                  git_out(repo, {"rev-parse", commit + "^{tree}"}).substr(0, 40)};
    for (const auto& p : guard::split(git_out(repo, {"rev-list", "--parents", "-1", commit}), ' '))
        if (p.size() >= 40 && p.substr(0, 40) != commit)
            args.insert(args.end(), {"-p", p.substr(0, 40)});
    auto r = guard::run(args, {.input = raw.substr(raw.find("\n\n") + 2)});
    return r.status == 0 ? r.out.substr(0, 40) : "commit-tree failed: " + r.err;
}

struct Dates {
    const char* author;
    const char* committer;
    bool one_git; // fast-import writes it (a form git-guard reads), or commit-tree does
};

std::ostream& operator<<(std::ostream& os, const Dates& d) { return os << d.author << " / " << d.committer; }

const Dates k_dates[] = {
    {"1700000000 +0530", "1700000100 -0800", true},             // git's raw form
    {"@1700000000 +0000", "@1700000200 -0130", true},           // raw, with @
    {"2026-12-03 06:00:00 +0200", "2026-12-03T07:00:00Z", true}, // ISO 8601
    {"Thu, 03 Dec 2026 06:00:00 +0000", "Thu, 03 Dec 2026 07:00:00 -0500", false}, // RFC 2822
};

} // namespace

BOOST_DATA_TEST_CASE_F(WorktreeRepo, save_commits_are_what_commit_tree_writes, boost::unit_test::data::make(k_dates),
                       dates)
{
    ScopedEnv env;
    env.set("GIT_AUTHOR_DATE", dates.author);
    env.set("GIT_COMMITTER_DATE", dates.committer);
    env.set("GIT_AUTHOR_NAME", "git-guard");
    env.set("GIT_AUTHOR_EMAIL", "git-guard@localhost");
    env.set("GIT_COMMITTER_NAME", "git-guard");
    env.set("GIT_COMMITTER_EMAIL", "git-guard@localhost");
    write_file(wt / "a.txt", "staged\n");
    repo.git_in(wt, {"add", "a.txt"});
    write_file(wt / "a.txt", "staged, then edited\n");
    write_file(wt / "new\nline.txt", "untracked\n");
    fs::path trace = repo.root() / "trace";
    env.set("GIT_TRACE", trace.string());
    auto result = save(repo, wt);
    env.set("GIT_TRACE", std::nullopt);
    BOOST_REQUIRE(result.saved);
    std::string gits = read_file(trace);
    BOOST_TEST((gits.find(" fast-import ") != std::string::npos && gits.find(" commit-tree ") == std::string::npos) ==
                   dates.one_git,
               "the save was not written by " << (dates.one_git ? "fast-import alone" : "commit-tree") << ":\n"
                                              << gits);
    std::string s = result.saved->commit, index = trailer(repo.path(), s, "Stranded-Index");
    BOOST_REQUIRE_MESSAGE(guard::is_oid(index), "the staged edit has no index commit: " << index);
    BOOST_TEST(rewritten(repo.path(), index) == index, "the index commit is not what commit-tree writes");
    BOOST_TEST(rewritten(repo.path(), s) == s, "the save commit is not what commit-tree writes");
    BOOST_TEST(rev(repo.path(), result.saved->ref) == s, "the save's ref does not hold the save");
    expect_saved(working_files(wt), tree_files(repo.path(), result.saved->ref));
    BOOST_TEST(git_out(repo.path(), {"show", index + ":a.txt"}) == "staged\n", "the staged edit was lost");
}

// Nothing staged: no index commit, so fast-import gets the save commit in one turn, with
// no reply awaited. A stream that fails there falls back to commit-tree unseen: the trace tells.
BOOST_FIXTURE_TEST_CASE(a_save_with_nothing_staged_is_one_fast_import, WorktreeRepo)
{
    ScopedEnv env;
    env.set("GIT_AUTHOR_DATE", "1700000000 +0000");
    env.set("GIT_COMMITTER_DATE", "1700000100 +0000");
    env.set("GIT_AUTHOR_NAME", "git-guard");
    env.set("GIT_AUTHOR_EMAIL", "git-guard@localhost");
    env.set("GIT_COMMITTER_NAME", "git-guard");
    env.set("GIT_COMMITTER_EMAIL", "git-guard@localhost");
    write_file(wt / "a.txt", "edited on disk only\n");
    write_file(wt / "untracked.txt", "untracked\n");
    fs::path trace = repo.root() / "trace";
    env.set("GIT_TRACE", trace.string());
    auto result = save(repo, wt);
    env.set("GIT_TRACE", std::nullopt);
    BOOST_REQUIRE_MESSAGE(result.saved, "the edit and the untracked file were not saved");
    std::string gits = read_file(trace);
    BOOST_TEST((gits.find(" fast-import ") != std::string::npos && gits.find(" commit-tree ") == std::string::npos),
               "the save with nothing staged was not written by fast-import alone:\n" << gits);
    std::string s = result.saved->commit;
    BOOST_TEST(!guard::is_oid(trailer(repo.path(), s, "Stranded-Index")), "nothing was staged, yet the save names an index commit");
    BOOST_TEST(rewritten(repo.path(), s) == s, "the save commit is not what commit-tree writes");
    BOOST_TEST(rev(repo.path(), result.saved->ref) == s, "the save's ref does not hold the save");
    expect_saved(working_files(wt), tree_files(repo.path(), result.saved->ref));
}

BOOST_FIXTURE_TEST_CASE(unset_dates_are_now_in_the_local_zone, WorktreeRepo)
{
    ScopedEnv env;
    env.set("GIT_AUTHOR_DATE", std::nullopt);
    env.set("GIT_COMMITTER_DATE", std::nullopt);
    env.set("TZ", "Asia/Kolkata");
    ::tzset();
    write_file(wt / "u.txt", "u\n");
    long before = static_cast<long>(std::time(nullptr));
    auto result = save(repo, wt);
    long after = static_cast<long>(std::time(nullptr));
    env.set("TZ", std::nullopt);
    ::tzset();
    BOOST_REQUIRE(result.saved);
    std::string dates = git_out(repo.path(), {"log", "-1", "--format=%at %ad|%ct", "--date=format:%z", result.saved->ref});
    long at = std::stol(dates);
    BOOST_TEST((at >= before && at <= after), "the save is not dated now: " << dates);
    BOOST_TEST(dates.find(" +0530|") != std::string::npos, "the save is not dated in the local zone: " << dates);
}

BOOST_FIXTURE_TEST_CASE(a_taken_name_gets_a_suffix_and_moves_nothing, WorktreeRepo)
{
    ScopedEnv env;
    env.set("GIT_GUARD_STAMP", "20261203T060000.000Z");
    std::string head = rev(wt, "HEAD");
    repo.git({"update-ref", "refs/heads/stranded/wt/20261203T060000.000Z", head});
    write_file(wt / "u.txt", "u\n");
    auto result = save(repo, wt);
    BOOST_REQUIRE(result.saved);
    BOOST_TEST(result.saved->ref == "refs/heads/stranded/wt/20261203T060000.000Z-2",
               "the save did not take the next free name: " << result.saved->ref);
    BOOST_TEST(rev(repo.path(), "refs/heads/stranded/wt/20261203T060000.000Z") == head,
               "the ref already there was moved by the save");
    expect_saved(working_files(wt), tree_files(repo.path(), result.saved->ref));
}

BOOST_FIXTURE_TEST_CASE(an_identity_fast_import_reads_otherwise_still_saves, WorktreeRepo)
{
    repo.git({"config", "guard.identity", "Rescue <Bot> <rescue@example.org>"});
    write_file(wt / "u.txt", "u\n");
    auto result = save(repo, wt);
    BOOST_REQUIRE_MESSAGE(result.saved, "an identity with <> in its name lost the save");
    expect_saved(working_files(wt), tree_files(repo.path(), result.saved->ref));
}

namespace {

struct IndexCase {
    const char* name;
    std::function<void(const TempRepo&, const fs::path&)> make;
};

std::ostream& operator<<(std::ostream& os, const IndexCase& c) { return os << c.name; }

const IndexCase k_index_cases[] = {
    {"an edit on disk only", [](const TempRepo&, const fs::path& t) { write_file(t / "a.txt", "edited\n"); }},
    {"a staged edit", [](const TempRepo& r, const fs::path& t) {
         write_file(t / "a.txt", "staged\n");
         r.git_in(t, {"add", "a.txt"});
     }},
    {"a staged deletion", [](const TempRepo& r, const fs::path& t) { r.git_in(t, {"rm", "-q", "b.txt"}); }},
    {"a staged rename", [](const TempRepo& r, const fs::path& t) { r.git_in(t, {"mv", "b.txt", "moved.txt"}); }},
    {"a staged mode change", [](const TempRepo& r, const fs::path& t) {
         r.git_in(t, {"update-index", "--chmod=+x", "a.txt"});
     }},
    {"an intent to add", [](const TempRepo& r, const fs::path& t) {
         write_file(t / "ita.txt", "later\n");
         r.git_in(t, {"add", "-N", "ita.txt"});
     }},
};

} // namespace

// The index record follows git's own comparison of the index with HEAD: a save records
// an index commit exactly when the index's tree is not HEAD's, and that commit holds it.
BOOST_DATA_TEST_CASE_F(WorktreeRepo, the_index_is_recorded_when_it_is_not_heads, boost::unit_test::data::make(k_index_cases),
                       kind)
{
    kind.make(repo, wt);
    write_file(wt / "u.txt", "untracked\n");
    std::string index_tree = git_out(wt, {"write-tree"}).substr(0, 40);
    bool staged = index_tree != rev(wt, "HEAD^{tree}");
    auto result = save(repo, wt);
    BOOST_REQUIRE(result.saved);
    std::string recorded = trailer(repo.path(), result.saved->commit, "Stranded-Index");
    if (staged) {
        BOOST_REQUIRE_MESSAGE(guard::is_oid(recorded), "the staged version of " << kind.name << " was lost: the save says " << recorded);
        BOOST_TEST(rev(repo.path(), recorded + "^{tree}") == index_tree, "the index commit does not hold the index");
    } else {
        BOOST_TEST(recorded == "head", "an index equal to HEAD's tree was recorded as " << recorded);
    }
    expect_saved(working_files(wt), tree_files(repo.path(), result.saved->ref));
}

BOOST_AUTO_TEST_SUITE_END()
