// Which git the full binary runs once a system install made /usr/bin/git the shim: the
// distribution's git diverted beside it (docs/install.md, "System install").
#include "guard/install/install.hpp"
#include "guard/git/process.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

// A PATH of fresh directories, restored (with GIT_GUARD_REAL_GIT) when the test ends.
struct PathFixture {
    fs::path root = fs::temp_directory_path() / ("guard-system-" + std::to_string(::getpid()));
    std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";

    PathFixture()
    {
        ::unsetenv("GIT_GUARD_REAL_GIT");
        fs::create_directories(root / "usr-bin");
        fs::create_directories(root / "opt-bin");
    }
    ~PathFixture()
    {
        ::setenv("PATH", old_path.c_str(), 1);
        std::error_code ec;
        fs::remove_all(root, ec);
    }
    void executable(const fs::path& path) const
    {
        std::ofstream(path) << "#!/bin/sh\nexit 0\n";
        fs::permissions(path, fs::perms(0755));
    }
    void use_path(const std::string& dirs) const { ::setenv("PATH", dirs.c_str(), 1); }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(system_install, PathFixture)

BOOST_AUTO_TEST_CASE(a_shim_with_a_diverted_git_beside_it_stands_for_that_git)
{
    fs::create_symlink(guard::front_end("git-guard-shim"), root / "usr-bin/git");
    executable(root / "usr-bin/git.distrib");
    use_path((root / "usr-bin").string());
    BOOST_TEST(guard::find_real_git() == (root / "usr-bin/git.distrib").string());
}

BOOST_AUTO_TEST_CASE(a_git_before_the_shim_on_path_is_still_the_one_run)
{
    fs::create_symlink(guard::front_end("git-guard-shim"), root / "usr-bin/git");
    executable(root / "usr-bin/git.distrib");
    executable(root / "opt-bin/git");
    use_path((root / "opt-bin").string() + ":" + (root / "usr-bin").string());
    BOOST_TEST(guard::find_real_git() == (root / "opt-bin/git").string());
}

// A broken system install (the shim gone): doctor must still find a git to ask.
BOOST_AUTO_TEST_CASE(a_diverted_git_whose_shim_is_missing_is_found)
{
    executable(root / "usr-bin/git.distrib");
    use_path((root / "usr-bin").string());
    BOOST_TEST(guard::find_real_git() == (root / "usr-bin/git.distrib").string());
}

BOOST_AUTO_TEST_CASE(a_plain_git_is_found_as_before)
{
    executable(root / "usr-bin/git");
    executable(root / "usr-bin/git.distrib");
    use_path((root / "usr-bin").string());
    BOOST_TEST(guard::find_real_git() == (root / "usr-bin/git").string());
}

BOOST_AUTO_TEST_SUITE_END()
