// The journal's op id (issue 36): the records of one invocation share one, and it is handed
// down in GIT_GUARD_OP (tests/e2e/undo.sh checks that a new process takes it over only from
// its parent or grandparent).
#include "guard/save/journal.hpp"
#include "tests/unit/temp_repo.hpp"

#include <boost/test/unit_test.hpp>

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

using guard::test::TempRepo;

BOOST_AUTO_TEST_SUITE(guard_journal_op)

BOOST_AUTO_TEST_CASE(records_of_one_invocation_share_an_op)
{
    TempRepo repo;
    auto common = repo.path() / ".git";
    guard::journal_append(common, {.kind = "discard", .path = "/x/one", .reason = "discard"});
    guard::journal_append(common, {.kind = "discard", .path = "/x/two", .reason = "discard"});
    pid_t child = ::fork();
    if (child == 0) { // a fork is the same invocation
        guard::journal_append(common, {.kind = "discard", .path = "/x/child", .reason = "discard"});
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    auto entries = guard::read_journal(common);
    BOOST_REQUIRE_EQUAL(entries.size(), 3u);
    BOOST_TEST(!entries[0].op.empty(), "a record has no op");
    BOOST_TEST(entries[0].op == entries[1].op, "two records of one invocation have different ops");
    BOOST_TEST(entries[2].op == entries[0].op, "a fork of the invocation wrote another op: " << entries[2].op);
    BOOST_TEST(std::string(::getenv("GIT_GUARD_OP")) == entries[0].op, "the op is not handed down in GIT_GUARD_OP");
}

BOOST_AUTO_TEST_SUITE_END()
