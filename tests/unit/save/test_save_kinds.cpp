// Unit tests of the save engine: what each kind of change saves, from a linked and the main tree.
#include "tests/unit/save/save_fixtures.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

using namespace guard::test::saves;

BOOST_AUTO_TEST_SUITE(save_kinds)

BOOST_DATA_TEST_CASE_F(WorktreeRepo, each_kind_of_change_is_saved_and_the_tree_untouched,
                       boost::unit_test::data::make(k_kinds), kind)
{
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

BOOST_AUTO_TEST_SUITE_END()
