#include "guard/base/digest.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using guard::Digest;

BOOST_AUTO_TEST_SUITE(digest)

BOOST_AUTO_TEST_CASE(the_same_bytes_give_the_same_digest)
{
    std::string big(100003, 'x'); // not a multiple of the 8-byte word: the tail counts
    BOOST_TEST(Digest().add(big).hex() == Digest().add(big).hex());
    BOOST_TEST(Digest().add(big).hex().size() == 32u);
}

BOOST_AUTO_TEST_CASE(lengths_and_tails_are_part_of_it)
{
    BOOST_TEST(!(Digest().add("ab").add("c") == Digest().add("a").add("bc")));
    BOOST_TEST(!(Digest().add("") == Digest()));
    BOOST_TEST(!(Digest().add(std::string("a\0", 2)) == Digest().add("a")));
    std::string one(17, 'y'), other = one;
    other[16] = 'z'; // only the byte after the last whole word differs
    BOOST_TEST(!(Digest().add(one) == Digest().add(other)));
}

BOOST_AUTO_TEST_SUITE_END()
