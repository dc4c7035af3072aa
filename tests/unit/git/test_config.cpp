// The config listing the shim hands to its git's hook (GIT_GUARD_CONFIG, config.hpp
// hand_config_down): taken for the same tree read the same way, ignored otherwise.
#include "guard/git/config.hpp"
#include "guard/git/process.hpp"
#include "tests/unit/temp_repo.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <optional>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;
using guard::ConfigEntries;
using guard::test::read_file;
using guard::test::TempRepo;

namespace {

// Leaves the process as it found it: no handed listing, no GIT_CONFIG_PARAMETERS, nothing cached.
struct Handoff {
    Handoff() { clear(); }
    ~Handoff() { clear(); }
    static void clear()
    {
        ::unsetenv("GIT_GUARD_CONFIG");
        ::unsetenv("GIT_CONFIG_PARAMETERS");
        ::unsetenv("GIT_TRACE");
        ::unsetenv("GIT_CONFIG_GLOBAL");
        guard::forget_config();
        // The hook takes a listing only from the git that runs it: here, this process.
        guard::accept_handoff_from(guard::process_identity(::getpid()));
    }
};

std::optional<std::string> value_of(const ConfigEntries& entries, const std::string& key)
{
    std::optional<std::string> value;
    for (const auto& [k, v] : entries)
        if (k == key)
            value = v;
    return value;
}

// A listing git would never give for these repositories: a key no test sets, and a value
// with what the environment cannot hold or the escaping must not confuse.
const ConfigEntries k_handed{{"guard.enabled", "true"}, {"guard.keepignored", "100% %00 odd\nvalue"}};

} // namespace

BOOST_AUTO_TEST_SUITE(guard_config_handoff)

BOOST_FIXTURE_TEST_CASE(a_listing_handed_for_this_tree_is_read_without_asking_git, Handoff)
{
    TempRepo repo;
    fs::path git_dir = repo.path() / ".git";
    guard::hand_config_down(git_dir, k_handed);
    BOOST_REQUIRE_MESSAGE(std::getenv("GIT_GUARD_CONFIG"), "nothing was handed down");
    guard::forget_config(); // as the hook starts: nothing read yet
    fs::path trace = repo.root() / "trace";
    ::setenv("GIT_TRACE", trace.c_str(), 1);
    const ConfigEntries& read = guard::guard_config(git_dir);
    ::unsetenv("GIT_TRACE");
    BOOST_TEST(value_of(read, "guard.keepignored").value_or("(unset)") == "100% %00 odd\nvalue",
               "the handed listing was not read as handed");
    BOOST_TEST(read.size() == k_handed.size());
    BOOST_TEST(!fs::exists(trace), "git was asked again for a listing handed down:\n"
                                       << (fs::exists(trace) ? read_file(trace) : ""));
}

BOOST_FIXTURE_TEST_CASE(a_listing_handed_for_another_tree_is_ignored, Handoff)
{
    TempRepo handed_for, other;
    guard::hand_config_down(handed_for.path() / ".git", k_handed);
    guard::forget_config();
    const ConfigEntries& read = guard::guard_config(other.path() / ".git");
    BOOST_TEST(!value_of(read, "guard.keepignored"), "another repository's handed listing was read as this one's");
}

BOOST_FIXTURE_TEST_CASE(a_listing_handed_before_the_config_changed_is_ignored, Handoff)
{
    TempRepo repo;
    fs::path git_dir = repo.path() / ".git";
    guard::hand_config_down(git_dir, k_handed);
    repo.git({"config", "guard.enabled", "false"});
    guard::forget_config();
    const ConfigEntries& read = guard::guard_config(git_dir);
    BOOST_TEST(value_of(read, "guard.enabled").value_or("(unset)") == "false",
               "a stale handed listing hid guard.enabled=false written after it");
    BOOST_TEST(!value_of(read, "guard.keepignored"));
}

BOOST_FIXTURE_TEST_CASE(a_caller_dash_c_makes_the_hook_ask_git, Handoff)
{
    TempRepo repo;
    fs::path git_dir = repo.path() / ".git";
    guard::hand_config_down(git_dir, k_handed);
    // git adds `git -c guard.enabled=false ...` to this before its hooks run
    ::setenv("GIT_CONFIG_PARAMETERS", "'guard.enabled'='false'", 1);
    guard::forget_config();
    const ConfigEntries& read = guard::guard_config(git_dir);
    BOOST_TEST(value_of(read, "guard.enabled").value_or("(unset)") == "false",
               "a handed listing hid the caller's -c guard.enabled=false");
}

BOOST_FIXTURE_TEST_CASE(a_listing_too_large_for_the_environment_is_not_handed, Handoff)
{
    TempRepo repo;
    fs::path git_dir = repo.path() / ".git";
    guard::hand_config_down(git_dir, k_handed);
    guard::hand_config_down(git_dir, {{"guard.exclude", std::string(40 * 1024, 'x')}});
    BOOST_TEST(!std::getenv("GIT_GUARD_CONFIG"), "a 40 KiB listing (or the one before it) was left in the environment");
}

BOOST_FIXTURE_TEST_CASE(a_listing_from_another_process_is_ignored, Handoff)
{
    TempRepo repo;
    fs::path git_dir = repo.path() / ".git";
    guard::hand_config_down(git_dir, k_handed);
    guard::accept_handoff_from(guard::process_identity(::getppid())); // the hook of a git it did not exec
    guard::forget_config();
    BOOST_TEST(!value_of(guard::guard_config(git_dir), "guard.keepignored"),
               "a listing another process handed (a caller's environment) was read");
}

BOOST_FIXTURE_TEST_CASE(a_listing_that_would_weaken_the_guard_is_ignored, Handoff)
{
    TempRepo repo;
    fs::path git_dir = repo.path() / ".git";
    repo.git({"config", "guard.enabled", "true"});
    for (const ConfigEntries& weak : {ConfigEntries{{"guard.enabled", "false"}},
                                      ConfigEntries{{"guard.enabled", "true"}, {"guard.baseref", "refs/heads/x"}},
                                      ConfigEntries{{"guard.enabled", "true"}, {"guard.exclude", "*"}}}) {
        guard::hand_config_down(git_dir, weak);
        guard::forget_config();
        const ConfigEntries& read = guard::guard_config(git_dir);
        BOOST_TEST(value_of(read, "guard.enabled").value_or("(unset)") == "true",
                   "a handed listing switched guard.enabled off or was taken with " << weak.back().first);
        BOOST_TEST(!value_of(read, "guard.baseref"));
        BOOST_TEST(!value_of(read, "guard.exclude"));
    }
}

BOOST_AUTO_TEST_SUITE_END()

// A process that lives long (the watcher, for days) reads the listing again when a file git
// read it from changed: the global file, a file it includes.
BOOST_AUTO_TEST_SUITE(guard_config_reread)

BOOST_FIXTURE_TEST_CASE(a_change_in_the_global_or_an_included_file_is_read, Handoff)
{
    TempRepo repo;
    fs::path git_dir = repo.path() / ".git";
    fs::path global = repo.root() / "global.cfg", included = repo.root() / "included.cfg";
    guard::test::write_file(global, "[include]\n\tpath = included.cfg\n");
    guard::test::write_file(included, "[guard]\n\tkeepIgnored = one\n");
    ::setenv("GIT_CONFIG_GLOBAL", global.c_str(), 1);
    auto kept = [&] { return value_of(guard::guard_config(git_dir), "guard.keepignored").value_or("(unset)"); };
    BOOST_TEST(kept() == "one");
    // Each rewrite changes the size: the stamp differs even within one tick of the file clock.
    guard::test::write_file(included, "[guard]\n\tkeepIgnored = three\n");
    BOOST_TEST(kept() == "three", "a change in an included config file was not read: the listing before it was kept");
    guard::test::write_file(global, "[include]\n\tpath = included.cfg\n[guard]\n\tkeepIgnored = four\n");
    BOOST_TEST(kept() == "four", "a change in the global config file was not read: the listing before it was kept");
}

BOOST_AUTO_TEST_SUITE_END()
