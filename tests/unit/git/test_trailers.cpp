#include "guard/git/trailers.hpp"
#include "tests/unit/temp_repo.hpp"

#include <boost/test/unit_test.hpp>

using guard::test::TempRepo;

BOOST_AUTO_TEST_SUITE(guard_trailers)

BOOST_AUTO_TEST_CASE(paths_quoted_as_git_quotes_them_read_back)
{
    BOOST_TEST(guard::unquote_path("plain/path") == "plain/path");
    BOOST_TEST(guard::unquote_path("\"a\\tb\\\"c\\\\d\"") == "a\tb\"c\\d");
    BOOST_TEST(guard::unquote_path("\"caf\\303\\251\"") == "caf\xc3\xa9", "an octal-quoted byte was misread");
}

BOOST_AUTO_TEST_CASE(trailers_not_positions_name_the_parts)
{
    TempRepo repo;
    std::string head = repo.git({"rev-parse", "HEAD"});
    head.pop_back();
    std::string tree = repo.git({"rev-parse", "HEAD^{tree}"});
    tree.pop_back();
    std::string index = repo.git({"commit-tree", tree, "-p", head, "-m", "index"});
    index.pop_back();
    // The index commit is deliberately the FIRST extra parent listed last: position means nothing.
    std::string save = repo.git({"commit-tree", tree, "-p", head, "-p", index, "-m",
                                 "stranded: x\n\nStranded-Layout: 2\nStranded-Index: " + index +
                                     "\nStranded-Unmerged: \"odd\\tname\"\nStranded-From: /t\n"
                                     "Stranded-Branch: detached\nStranded-Head: " + head +
                                     "\nStranded-Reason: worktree remove"});
    save.pop_back();
    auto layout = guard::read_layout(repo.path() / ".git", save);
    BOOST_TEST(layout.layout == 2);
    BOOST_TEST(layout.head == head);
    BOOST_TEST(layout.index_commit == index);
    BOOST_TEST(layout.index_tree == tree);
    BOOST_TEST(layout.branch.empty(), "\"detached\" read as a branch name");
    BOOST_REQUIRE_EQUAL(layout.unmerged.size(), 1u);
    BOOST_TEST(layout.unmerged[0] == "odd\tname");
    auto plain = guard::read_layout(repo.path() / ".git", head);
    BOOST_TEST(plain.layout == 0, "a plain commit read as a save commit");
    BOOST_TEST(plain.head == head);
}

BOOST_AUTO_TEST_SUITE_END()
