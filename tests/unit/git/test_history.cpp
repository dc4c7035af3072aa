// unique_commits: the commits only some tips hold, from one walk, and no walk at all when
// a holder points at every tip (a tree on a branch's commit, status of many such trees).
#include "guard/base/error.hpp"
#include "guard/git/git.hpp"
#include "guard/git/history.hpp"
#include "tests/unit/temp_repo.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

namespace fs = std::filesystem;
using guard::test::TempRepo;

namespace {

std::string trimmed(std::string text)
{
    while (!text.empty() && text.back() == '\n')
        text.pop_back();
    return text;
}

} // namespace

BOOST_AUTO_TEST_CASE(unique_commits_of_tips_a_holder_points_at_run_no_git)
{
    // No repository there: any walk would throw.
    guard::Git nowhere(fs::temp_directory_path() / "git-guard-unit-no-such-repository");
    std::string tip(40, 'a');
    auto found = guard::unique_commits(nowhere, {tip, tip}, {std::string(40, 'b'), tip});
    BOOST_TEST(found[tip].empty());
    BOOST_CHECK_THROW(guard::unique_commits(nowhere, {std::string(40, 'c')}, {tip}), guard::Error);
}

BOOST_AUTO_TEST_CASE(unique_commits_still_finds_what_only_one_tip_holds)
{
    TempRepo repo;
    std::string base = trimmed(repo.git({"rev-parse", "HEAD"}));
    repo.write("work.txt", "work\n");
    repo.git({"add", "work.txt"});
    repo.git({"commit", "-q", "-m", "work"});
    std::string work = trimmed(repo.git({"rev-parse", "HEAD"}));
    auto found = guard::unique_commits(guard::Git(repo.path() / ".git"), {base, work}, {base});
    BOOST_TEST(found[base].empty());
    BOOST_REQUIRE_EQUAL(found[work].size(), 1u);
    BOOST_TEST(found[work].front() == work, "the commit only the work tip holds was not found: it would be lost");
}
