#include "guard/install.hpp"

#include "guard/process.hpp"
#include "guard/repo.hpp"
#include "tests/unit/temp_repo.hpp"

#include <boost/test/unit_test.hpp>

namespace fs = std::filesystem;
using guard::test::TempRepo;

BOOST_AUTO_TEST_SUITE(install)

// git 2.39 resolves each of these the way `rev-parse --git-path hooks` does.
BOOST_AUTO_TEST_CASE(hooks_default_to_the_common_dir)
{
    TempRepo repo;
    repo.add_worktree("wt");
    auto handle = guard::open_repository(repo.root() / "wt");
    auto hooks = guard::locate_hooks(guard::find_real_git(), handle.get());
    BOOST_TEST(hooks.dirs.size() == 1u);
    BOOST_TEST(guard::absolute_path(hooks.dirs[0]) ==
               guard::absolute_path(repo.path() / ".git/hooks"));
    BOOST_TEST(hooks.value.empty());
}

BOOST_AUTO_TEST_CASE(a_relative_hooks_path_is_one_directory_per_worktree)
{
    TempRepo repo;
    fs::path wt = repo.add_worktree("wt");
    repo.git({"config", "core.hooksPath", ".husky/_"});
    auto handle = guard::open_repository(repo.path());
    auto hooks = guard::locate_hooks(guard::find_real_git(), handle.get());
    BOOST_TEST_REQUIRE(hooks.dirs.size() == 2u);
    BOOST_TEST(hooks.dirs[0] == hooks.roots[0] / ".husky/_");
    BOOST_TEST(guard::absolute_path(hooks.roots[1]) == guard::absolute_path(wt));
    BOOST_TEST(hooks.scope == "local");
    for (const auto& tree : {repo.path(), wt}) {
        std::string git_says =
            repo.git_in(tree, {"rev-parse", "--path-format=absolute", "--git-path", "hooks"});
        git_says.erase(git_says.find('\n'));
        BOOST_TEST(guard::absolute_path(git_says) == guard::absolute_path(tree / ".husky/_"));
    }
}

BOOST_AUTO_TEST_CASE(an_absolute_hooks_path_is_taken_as_it_is)
{
    TempRepo repo;
    repo.git({"config", "core.hooksPath", (repo.root() / "shared-hooks").string()});
    auto handle = guard::open_repository(repo.path());
    auto hooks = guard::locate_hooks(guard::find_real_git(), handle.get());
    BOOST_TEST_REQUIRE(hooks.dirs.size() == 1u);
    BOOST_TEST(hooks.dirs[0] == repo.root() / "shared-hooks");
    BOOST_TEST(hooks.roots[0].empty());
}

BOOST_AUTO_TEST_CASE(the_real_git_is_recent_enough_here)
{
    auto [major, minor] = guard::git_version(guard::find_real_git());
    BOOST_TEST((major > 2 || (major == 2 && minor >= 38)));
}

BOOST_AUTO_TEST_SUITE_END()
