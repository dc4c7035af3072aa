#include "tests/unit/temp_repo.hpp"

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_CASE(temp_repo_makes_a_real_repository)
{
    guard::test::TempRepo repo(true);
    BOOST_TEST(repo.git({"rev-parse", "--abbrev-ref", "HEAD"}) == "main\n");
    BOOST_TEST(repo.git({"ls-remote", repo.origin().string(), "main"}).size() > 40);
}
