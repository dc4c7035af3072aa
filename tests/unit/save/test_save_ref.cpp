// Unit tests of the save engine: the save ref: its name, taken names, an existing commit saved under a prefix.
#include "guard/save/saveref.hpp"
#include "tests/unit/save/save_fixtures.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

using namespace guard::test::saves;

namespace {

// The first name a save of `wt` takes, `first` (stranded/wt/ and the pinned stamp), already
// taken: it holds `old`, main's parent.
struct FirstNameTaken : WorktreeRepo {
    ScopedEnv env;
    std::string first = "refs/heads/stranded/wt/20260101T000000.000Z";
    std::string old = rev(repo.path(), "main~1");
    FirstNameTaken()
    {
        env.set("GIT_GUARD_STAMP", "20260101T000000.000Z");
        repo.git({"update-ref", first, old});
    }
};

} // namespace

BOOST_AUTO_TEST_SUITE(save_ref)

// --- never overwrite ---------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(a_taken_name_is_never_overwritten, FirstNameTaken)
{
    write_file(wt / "u.txt", "work\n");
    auto result = save(repo, wt);
    BOOST_REQUIRE(result.saved);
    BOOST_TEST(rev(repo.path(), first) == old,
               "an existing stranded branch was overwritten: its work was lost");
    BOOST_TEST(result.saved->ref == first + "-2", "the work did not go to the -2 name");
    expect_saved(working_files(wt), tree_files(repo.path(), first + "-2"));
}

BOOST_FIXTURE_TEST_CASE(twenty_taken_names_give_a_clear_error_and_write_nothing, FirstNameTaken)
{
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
