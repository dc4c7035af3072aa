// Unit tests of the save engine: concurrency: saves of one tree under its lock, by real processes.
#include "tests/unit/save/save_fixtures.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

using namespace guard::test::saves;

BOOST_AUTO_TEST_SUITE(save_lock)

// --- locked saves ---------------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(two_processes_saving_one_tree_make_one_stranded_branch, WorktreeRepo)
{
    write_file(wt / "a.txt", "edited\n");
    write_file(wt / "u.txt", "untracked\n");
    int go[2];
    BOOST_REQUIRE(::pipe(go) == 0);
    std::vector<pid_t> children;
    for (int i = 0; i < 2; ++i) {
        pid_t pid = ::fork();
        BOOST_REQUIRE(pid >= 0);
        if (pid == 0) {
            ::close(go[1]);
            char c;
            (void)!::read(go[0], &c, 1); // both start together, on end-of-file
            int code = 0;
            try {
                guard::save_path(guard::site_at(repo.path()), wt, {});
            } catch (...) {
                code = 3;
            }
            ::_exit(code);
        }
        children.push_back(pid);
    }
    ::close(go[0]);
    ::close(go[1]);
    for (pid_t pid : children) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0), "a concurrent save failed");
    }
    BOOST_TEST(stranded_count(repo.path()) == 1,
               "two saves of one unchanged tree made "
                   << stranded_count(repo.path()) << " stranded branches:\n"
                   << git_out(repo.path(), {"for-each-ref", "refs/heads/stranded/"}));
}

BOOST_FIXTURE_TEST_CASE(a_save_happens_under_the_trees_lock, WorktreeRepo)
{
    write_file(wt / "u.txt", "untracked\n");
    repo.git({"config", "guard.lockTimeout", "1"});
    int held[2], release[2];
    BOOST_REQUIRE(::pipe(held) == 0 && ::pipe(release) == 0);
    pid_t pid = ::fork();
    BOOST_REQUIRE(pid >= 0);
    if (pid == 0) { // holds the tree's lock (keyed by its path, DESIGN §7) until told
        int code = 0;
        try {
            guard::PathLock lock(repo.path() / ".git", wt.string(), std::chrono::seconds(5));
            (void)!::write(held[1], "x", 1);
            char c;
            (void)!::read(release[0], &c, 1);
        } catch (...) {
            code = 3;
        }
        ::_exit(code);
    }
    char c = 0;
    BOOST_REQUIRE_MESSAGE(::read(held[0], &c, 1) == 1, "the child never took the lock");
    std::string why = refusal(repo.path(), wt);
    (void)!::write(release[1], "x", 1);
    int status = 0;
    ::waitpid(pid, &status, 0);
    for (int fd : {held[0], held[1], release[0], release[1]})
        ::close(fd);
    BOOST_TEST(!why.empty(), "a save went ahead while another process held the tree's lock");
    BOOST_TEST(why.find("guard.lockTimeout") != std::string::npos,
               "the refusal does not say why: " << why);
    BOOST_TEST(stranded_count(repo.path()) == 0,
               "a save was made while another process held the lock");
    auto result = save(repo, wt);
    BOOST_TEST(result.saved.has_value(), "once the lock was released the work was not saved");
}

BOOST_AUTO_TEST_SUITE_END()
