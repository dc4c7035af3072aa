#include "guard/base/error.hpp"
#include "guard/install/execmirror.hpp"
#include "guard/modes/shim.hpp"

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(shim)

BOOST_AUTO_TEST_CASE(decode_call_takes_the_front_ends_parse)
{
    auto call = guard::decode_call({"git", "--guard-call=1", "/usr/bin/git", "/tmp/r", "2", "-c",
                                    "a=b", "3", "worktree", "remove", "x", "--", "-C", "/tmp/r",
                                    "-c", "a=b", "rmwt", "x"});
    BOOST_TEST(call.real_git == "/usr/bin/git");
    BOOST_TEST(call.cwd == "/tmp/r");
    BOOST_TEST((call.globals == std::vector<std::string>{"-c", "a=b"}));
    BOOST_TEST((call.words == std::vector<std::string>{"worktree", "remove", "x"}));
    BOOST_TEST((call.argv ==
                std::vector<std::string>{"git", "-C", "/tmp/r", "-c", "a=b", "rmwt", "x"}));
}

BOOST_AUTO_TEST_CASE(decode_call_knows_whether_the_front_end_asked_guard_enabled)
{
    auto asked = guard::decode_call({"git", "--guard-call=2", "/usr/bin/git", "/tmp/r", "0", "2", "reset",
                                     "--hard", "--", "reset", "--hard"});
    BOOST_TEST(asked.enabled_asked, "--guard-call=2 (git said guard.enabled=true) was not taken as asked");
    auto unasked = guard::decode_call({"git", "--guard-call=1", "/usr/bin/git", "/tmp/r", "0", "2", "reset",
                                       "--hard", "--", "reset", "--hard"});
    BOOST_TEST(!unasked.enabled_asked, "--guard-call=1 skipped the full binary's own guard.enabled question");
    BOOST_CHECK_THROW(guard::decode_call({"git", "--guard-call=3", "/g", "/c", "0", "1", "x", "--", "x"}),
                      guard::UsageError);
}

BOOST_AUTO_TEST_CASE(decode_call_knows_the_caller_switched_hooks_off)
{
    auto off = guard::decode_call({"git", "--guard-call=2,hooks-off", "/usr/bin/git", "/tmp/r", "2", "-c",
                                   "core.hooksPath=/dev/null", "3", "branch", "-D", "x", "--", "-c",
                                   "core.hooksPath=/dev/null", "branch", "-D", "x"});
    BOOST_TEST(off.hooks_off, "the handoff's hooks-off mark was lost: git would run with no hook of ours");
    BOOST_TEST(off.enabled_asked);
    auto on = guard::decode_call({"git", "--guard-call=1", "/usr/bin/git", "/tmp/r", "0", "1", "status", "--", "status"});
    BOOST_TEST(!on.hooks_off);
    BOOST_CHECK_THROW(guard::decode_call({"git", "--guard-call=2,x", "/g", "/c", "0", "1", "x", "--", "x"}),
                      guard::UsageError);
}

BOOST_AUTO_TEST_CASE(decode_call_refuses_a_malformed_handoff)
{
    BOOST_CHECK_THROW(guard::decode_call({"git", "worktree", "remove"}), guard::UsageError);
    BOOST_CHECK_THROW(guard::decode_call({"git", "--guard-call=1", "/g", "/c", "5", "-c"}),
                      guard::UsageError);
    BOOST_CHECK_THROW(guard::decode_call({"git", "--guard-call=1", "/g", "/c", "0", "1", "x", "y"}),
                      guard::UsageError);
}

BOOST_AUTO_TEST_CASE(subcommand_index_uses_the_front_ends_option_table)
{
    using v = std::vector<std::string>;
    BOOST_TEST(guard::subcommand_index(v{"git", "-C", "x", "-c", "a=b", "branch", "-m"}) == 5u);
    BOOST_TEST(guard::subcommand_index(v{"git", "--shallow-file", "f", "--attr-source", "HEAD",
                                         "--no-advice", "branch"}) == 6u);
    BOOST_TEST(guard::subcommand_index(v{"git", "--git-dir=x", "--bare", "branch"}) == 3u);
    BOOST_TEST(guard::subcommand_index(v{"git", "--version"}) == 2u);
    BOOST_TEST(guard::subcommand_index(v{"git", "--frobnicate", "branch"}) == 3u);
}

BOOST_AUTO_TEST_CASE(the_exec_path_mirror_is_intact)
{
    std::string why;
    BOOST_TEST(guard::exec_path_intact(why), why);
}

BOOST_AUTO_TEST_SUITE_END()
