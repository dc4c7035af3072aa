#include "guard/install/privacy.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using guard::ref_is_hidden;

BOOST_AUTO_TEST_SUITE(privacy)

// git's refs.c decides as these do: a prefix on a component boundary, the last match wins.
BOOST_AUTO_TEST_CASE(hide_refs_rules_read_as_git_reads_them)
{
    std::vector<std::string> install{"refs/stranded", "refs/heads/stranded"};
    BOOST_TEST(ref_is_hidden("refs/stranded/tree/20240101T000000.000Z", install));
    BOOST_TEST(ref_is_hidden("refs/heads/stranded/topic/20240101T000000.000Z", install));
    BOOST_TEST(!ref_is_hidden("refs/heads/strandedness", install));
    BOOST_TEST(!ref_is_hidden("refs/heads/main", install));
    BOOST_TEST(ref_is_hidden("refs/stranded/x", {"refs/stranded/"}));
    BOOST_TEST(ref_is_hidden("refs/stranded/x", {"^refs/stranded"}));
    BOOST_TEST(!ref_is_hidden("refs/heads/stranded/x", {"refs/heads", "!refs/heads/stranded"}));
    BOOST_TEST(ref_is_hidden("refs/heads/stranded/x", {"!refs/heads/stranded", "refs/heads"}));
    BOOST_TEST(!ref_is_hidden("refs/stranded/x", {}));
}

BOOST_AUTO_TEST_SUITE_END()
