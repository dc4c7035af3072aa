// What a child of ours sees of our environment: the variables git sets for its hooks that
// would point our calls elsewhere are removed between fork and exec (no env(1) before each).
#include "guard/git/git.hpp"
#include "guard/git/process.hpp"
#include "tests/unit/temp_repo.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>

using guard::test::TempRepo;

namespace {

// Sets a variable for one test, and takes it away again.
struct Variable {
    std::string name;
    Variable(std::string n, const std::string& value) : name(std::move(n)) { ::setenv(name.c_str(), value.c_str(), 1); }
    ~Variable() { ::unsetenv(name.c_str()); }
    Variable(const Variable&) = delete;
    Variable& operator=(const Variable&) = delete;
};

} // namespace

BOOST_AUTO_TEST_SUITE(guard_child_env)

BOOST_AUTO_TEST_CASE(an_unset_variable_is_gone_in_the_child_and_kept_here)
{
    Variable prefix("GIT_PREFIX", "sub/dir/");
    auto r = guard::run({"/bin/sh", "-c", "echo \"${GIT_PREFIX-unset} ${KEPT-none}\""},
                        {.env = {{"KEPT", "yes"}}, .unset = {"GIT_PREFIX"}});
    BOOST_TEST(r.status == 0);
    BOOST_TEST(r.out == "unset yes\n", "the child still saw GIT_PREFIX, or lost a variable it was given");
    BOOST_TEST(std::string(std::getenv("GIT_PREFIX")) == "sub/dir/", "the parent's own environment was changed");
}

// A hook's git sees GIT_WORK_TREE of the git that ran the hook: a git call of ours that
// names no work tree (the git dir alone) must not take the caller's.
BOOST_AUTO_TEST_CASE(a_git_call_never_sees_the_callers_work_tree)
{
    TempRepo repo;
    TempRepo other;
    Variable tree("GIT_WORK_TREE", other.path().string());
    guard::Git bare(repo.path() / ".git");
    auto inside = bare.run({"rev-parse", "--show-toplevel"});
    BOOST_TEST(inside.out.find(other.path().string()) == std::string::npos,
               "a git call without a work tree used the caller's GIT_WORK_TREE: " + inside.out);
}

BOOST_AUTO_TEST_SUITE_END()
