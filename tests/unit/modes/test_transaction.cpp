// The hook's reading of git's input (guard/modes/transaction.cpp): what is a deletion or an update
// to judge, what is some other deletion, what is a written value, and what git never writes.
// The lines are classified by the front end's code (front/lines.c); read_classified reads
// its classification as the front end hands it over.
#include "guard/modes/transaction.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

namespace {

const std::string z40(40, '0');
const std::string z64(64, '0');
const std::string a40 = "1234567890abcdef1234567890abcdef12345678";
const std::string b40 = "abcdefabcdefabcdefabcdefabcdefabcdefabcd";

} // namespace

BOOST_AUTO_TEST_SUITE(transaction)

BOOST_AUTO_TEST_CASE(branch_and_save_deletions_are_judged)
{
    auto in = guard::parse_input(a40 + " " + z40 + " refs/heads/x\n" + z40 + " " + z40 +
                                 " refs/heads/stranded/x/1\n" + std::string(64, 'a') + " " + z64 +
                                 " refs/stranded/y/2");
    BOOST_REQUIRE(in.tx.deletions.size() == 3u);
    BOOST_TEST(in.tx.deletions[0].ref == "refs/heads/x");
    BOOST_TEST(in.tx.deletions[0].old_oid == a40);
    BOOST_TEST(in.tx.deletions[1].old_oid == ""); // git did not check it: resolved later
    BOOST_TEST(in.tx.deletions[2].ref == "refs/stranded/y/2"); // a last line without newline
    BOOST_TEST(in.unreadable.empty());
}

BOOST_AUTO_TEST_CASE(other_refs_and_written_values_hold)
{
    auto in = guard::parse_input(a40 + " " + z40 + " refs/remotes/origin/x\n" + z40 + " " + b40 +
                                 " refs/tags/new\n" + a40 + " " + b40 + " refs/remotes/origin/y\n");
    BOOST_TEST(in.tx.deletions.empty());
    BOOST_REQUIRE(in.tx.other_deleted.size() == 2u);
    BOOST_TEST(in.tx.other_deleted[0] == "refs/remotes/origin/x");
    BOOST_TEST(in.tx.other_deleted[1] == "refs/remotes/origin/y"); // moved: its old value holds nothing after
    BOOST_REQUIRE(in.tx.written.size() == 2u);
    BOOST_TEST(in.tx.written[0] == b40);
}

// By effect (DESIGN §0.6): every update of a branch, a save or HEAD not proven harmless is
// judged with its new value; the walk and prepare() tell a fast-forward from a forced move.
// The front end's classification (U, H, D, O) as it hands it over.
BOOST_AUTO_TEST_CASE(updates_are_judged_with_their_new_value)
{
    auto in = guard::read_classified("U " + a40 + " " + b40 + " refs/heads/forced\nU " + z40 + " " + b40 +
                                     " refs/heads/unchecked\nH " + a40 + " " + a40 + " refs/heads/same\nU " + a40 +
                                     " " + b40 + " HEAD\nD " + z40 + " " + z40 + " HEAD\nH " + z40 + " " + b40 +
                                     " refs/heads/new\n");
    BOOST_REQUIRE(in.tx.deletions.size() == 4u);
    BOOST_TEST(in.tx.deletions[0].ref == "refs/heads/forced");
    BOOST_TEST(in.tx.deletions[0].old_oid == a40);
    BOOST_TEST(in.tx.deletions[0].new_value == b40);
    BOOST_TEST(in.tx.deletions[1].old_oid == ""); // git did not check it: resolved later
    BOOST_TEST(in.tx.deletions[2].ref == "HEAD");
    BOOST_TEST(in.tx.deletions[3].ref == "HEAD"); // update-ref -d HEAD: a deletion
    BOOST_TEST(in.tx.deletions[3].new_value == "");
    BOOST_TEST(in.tx.written.size() == 5u);
    // A harmless update is not judged; its ref's old value holds nothing of its own after.
    BOOST_REQUIRE(in.tx.other_deleted.size() == 2u);
    BOOST_TEST(in.tx.other_deleted[1] == "refs/heads/new");
}

BOOST_AUTO_TEST_CASE(unreadable_lines_are_handed_over_named)
{
    auto in = guard::read_classified("X " + z40 + " zz refs/heads/x\nO " + a40 + " " + z40 + " refs/tags/t\n");
    BOOST_REQUIRE(in.unreadable.size() == 1u);
    BOOST_TEST(in.unreadable[0] == z40 + " zz refs/heads/x");
    BOOST_TEST(in.tx.deletions.empty());
    BOOST_REQUIRE(in.tx.other_deleted.size() == 1u);
    BOOST_TEST(in.tx.other_deleted[0] == "refs/tags/t");
}

BOOST_AUTO_TEST_CASE(symbolic_old_values_hold_nothing_symbolic_new_values_are_judged)
{
    auto in = guard::parse_input("ref:refs/heads/main " + z40 + " refs/heads/sym\n" + a40 +
                                 " ref:refs/heads/main refs/heads/sym2\n" + "ref:refs/heads/a ref:refs/heads/b refs/heads/s3\n");
    BOOST_REQUIRE(in.tx.deletions.size() == 1u);
    BOOST_TEST(in.tx.deletions[0].ref == "refs/heads/sym2");
    BOOST_TEST(in.tx.deletions[0].new_value == "ref:refs/heads/main");
    BOOST_TEST(in.unreadable.empty());
}

BOOST_AUTO_TEST_CASE(lines_git_never_writes_are_unreadable_not_deletions)
{
    auto in = guard::parse_input(z40 + " " + z40 + " refs/heads/crlf\r\n" + "xyz " + z40 +
                                 " refs/heads/bad-old\n" + z40 + " " + z40.substr(1) +
                                 " refs/heads/short\n" + std::string("refs/heads/alone\n") +
                                 z40 + std::string(1, '\0') + " " + z40 + " refs/heads/nul\n");
    BOOST_TEST(in.tx.deletions.empty());
    BOOST_TEST(in.unreadable.size() == 5u);
}

BOOST_AUTO_TEST_SUITE_END()
