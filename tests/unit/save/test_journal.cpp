#include "guard/save/journal.hpp"
#include "guard/git/process.hpp"
#include "guard/base/progress.hpp"
#include "tests/unit/temp_repo.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using guard::test::TempRepo;

BOOST_AUTO_TEST_SUITE(guard_journal)

BOOST_AUTO_TEST_CASE(records_are_appended_oldest_first_and_never_truncated)
{
    TempRepo repo;
    auto common = repo.path() / ".git";
    guard::journal_record(common, {.kind = "discard", .path = "/x/one", .reason = "discard"});
    auto size_before = fs::file_size(guard::journal_path(common));
    guard::journal_record(common, {.kind = "drop", .ref = "refs/heads/stranded/a/b", .branch = "a",
                                   .reason = "drop"});
    BOOST_TEST(fs::file_size(guard::journal_path(common)) > size_before, "the journal did not grow");
    auto entries = guard::read_journal(common);
    BOOST_REQUIRE_EQUAL(entries.size(), 2u);
    BOOST_TEST(entries[0].event.kind == "discard", "the oldest record is not first");
    BOOST_TEST(entries[0].event.path == "/x/one");
    BOOST_TEST(entries[1].event.ref == "refs/heads/stranded/a/b");
    BOOST_TEST(entries[1].time.size() == 24u, "the time is not ISO 8601 to the millisecond: " << entries[1].time);
    BOOST_TEST(guard::read_journal(common)[0].event.kind == "discard", "reading truncated the journal");
}

BOOST_AUTO_TEST_CASE(a_record_never_makes_a_deleted_git_dir_again)
{
    TempRepo repo;
    fs::path gone = repo.root() / "deleted.git";
    guard::journal_append(gone, {.kind = "save", .ref = "refs/stranded/x/1"});
    BOOST_TEST(!fs::exists(gone), "a journal record made a deleted repository's git dir again");
}

BOOST_AUTO_TEST_CASE(concurrent_processes_never_interleave_lines)
{
    TempRepo repo;
    auto common = repo.path() / ".git";
    constexpr int k_children = 4, k_each = 50;
    std::string long_detail(2000, 'd');
    for (int c = 0; c < k_children; ++c) {
        if (::fork() == 0) {
            for (int i = 0; i < k_each; ++i)
                guard::journal_append(common, {.kind = "refusal", .path = "/p", .reason = "r", .detail = long_detail});
            _exit(0);
        }
    }
    for (int c = 0; c < k_children; ++c)
        ::wait(nullptr);
    BOOST_TEST(guard::read_journal(common).size() == static_cast<size_t>(k_children * k_each),
               "concurrent appends lost or tore records");
}

BOOST_AUTO_TEST_CASE(a_bounded_child_and_its_children_are_killed_at_the_bound)
{
    auto start = std::chrono::steady_clock::now();
    auto r = guard::run({"/bin/sh", "-c", "sleep 30 & sleep 30"}, {.timeout_ms = 300});
    auto took = std::chrono::steady_clock::now() - start;
    BOOST_TEST(r.timed_out, "the child was not reported as timed out");
    BOOST_TEST(took < std::chrono::seconds(10), "run waited for the child past its bound");
    auto ok = guard::run({"/bin/sh", "-c", "cat"}, {.input = "in", .timeout_ms = 5000});
    BOOST_TEST(!ok.timed_out);
    BOOST_TEST(ok.out == "in", "a bounded child's output was lost");
}

// The wait after the pipes close (a child that closed them and lives on; one that exits
// with a status): the bound still holds there, and an exit is reaped with its status.
BOOST_AUTO_TEST_CASE(a_bounded_child_is_waited_for_after_its_pipes_close)
{
    auto start = std::chrono::steady_clock::now();
    auto r = guard::run({"/bin/sh", "-c", "exec >&- 2>&- </dev/null; sleep 30"}, {.timeout_ms = 300});
    BOOST_TEST(r.timed_out, "a child that closed its pipes and lived on was not stopped at the bound");
    auto took = std::chrono::steady_clock::now() - start;
    BOOST_TEST((took < std::chrono::seconds(10)), "the wait outlived the bound");
    for (int i = 0; i < 20; ++i) {
        auto exit3 = guard::run({"/bin/sh", "-c", "echo out; exit 3"}, {.timeout_ms = 5000});
        BOOST_TEST(!exit3.timed_out);
        BOOST_TEST(exit3.status == 3, "a bounded child's exit status was lost");
        BOOST_TEST(exit3.out == "out\n");
    }
    auto job = guard::start({"/bin/sh", "-c", "exit 4"}, {.timeout_ms = 5000});
    auto done = job.wait();
    BOOST_TEST(done.status == 4, "a bounded job's exit status was lost");
    BOOST_TEST(!done.timed_out);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(guard_progress)

BOOST_AUTO_TEST_CASE(nothing_when_not_a_terminal)
{
    int fds[2];
    BOOST_REQUIRE(::pipe(fds) == 0);
    {
        guard::Progress meter("Saving", 10, fds[1], std::chrono::milliseconds(0));
        for (size_t i = 1; i <= 10; ++i)
            meter.update(i);
    }
    ::close(fds[1]);
    char buf[64];
    BOOST_TEST(::read(fds[0], buf, sizeof buf) == 0, "a meter was written to a pipe");
    ::close(fds[0]);
}

BOOST_AUTO_TEST_CASE(a_meter_on_a_terminal_once_the_delay_passed)
{
    int master = ::posix_openpt(O_RDWR | O_NOCTTY);
    BOOST_REQUIRE(master >= 0 && ::grantpt(master) == 0 && ::unlockpt(master) == 0);
    int slave = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
    BOOST_REQUIRE(slave >= 0);
    {
        guard::Progress quick("Saving", 10, slave, std::chrono::milliseconds(60000));
        quick.update(5); // ends before its delay: leaves no trace
    }
    {
        guard::Progress meter("Saving", 1000, slave, std::chrono::milliseconds(0));
        meter.update(420);
    }
    // A terminal hands its bytes over in pieces: read until nothing more comes.
    std::string text;
    pollfd ready{master, POLLIN, 0};
    while (::poll(&ready, 1, 500) == 1) {
        char buf[256];
        ssize_t n = ::read(master, buf, sizeof buf);
        if (n <= 0)
            break;
        text.append(buf, static_cast<size_t>(n));
    }
    BOOST_TEST(text.find("Saving:  42% (420/1000)") != std::string::npos, "no meter on the terminal: " << text);
    BOOST_TEST(text.find("(5/10)") == std::string::npos, "a step shorter than the delay drew a meter");
    BOOST_TEST(text.find("done.") != std::string::npos, "the meter's line was not ended");
    ::close(slave);
    ::close(master);
}

BOOST_AUTO_TEST_SUITE_END()
