// The in-place destroyers read only the form of a command from its arguments; these
// cases pin that reading to git's parse-options rules.
#include "guard/git/arguments.hpp"

#include <boost/test/unit_test.hpp>

#include <array>
#include <string>
#include <vector>

using guard::Arguments;
using guard::OptionSpec;
using guard::parse_arguments;

namespace {

constexpr std::array k_table = {OptionSpec{"force", 'f'}, OptionSpec{"hard"}, OptionSpec{"hash"},
                                OptionSpec{"d", 'd'}, OptionSpec{"x", 'x'},
                                OptionSpec{"exclude", 'e', true}, OptionSpec{"source", 's', true}};

Arguments parse(std::vector<std::string> words)
{
    words.insert(words.begin(), "cmd");
    return parse_arguments(words, 1, k_table);
}

} // namespace

BOOST_AUTO_TEST_SUITE(arguments)

BOOST_AUTO_TEST_CASE(a_unique_prefix_is_the_option)
{
    BOOST_TEST(parse({"--forc"}).has("force"));
    BOOST_TEST(parse({"--har"}).has("hard"));
    BOOST_TEST(!parse({"--har"}).has("hash"));
}

BOOST_AUTO_TEST_CASE(an_ambiguous_prefix_counts_as_every_match)
{
    Arguments a = parse({"--ha"});
    BOOST_TEST(a.has("hard"));
    BOOST_TEST(a.has("hash"));
}

BOOST_AUTO_TEST_CASE(short_options_cluster_and_count)
{
    Arguments a = parse({"-fdx", "-f"});
    BOOST_TEST(a.count["force"] == 2);
    BOOST_TEST(a.has("d"));
    BOOST_TEST(a.has("x"));
}

BOOST_AUTO_TEST_CASE(values_attached_or_separate)
{
    Arguments a = parse({"-efoo", "-e", "bar", "--exclude=baz", "--source", "HEAD~1", "-sX"});
    BOOST_TEST((a.values["exclude"] == std::vector<std::string>{"foo", "bar", "baz"}));
    BOOST_TEST(a.last("source") == "X");
}

BOOST_AUTO_TEST_CASE(options_anywhere_before_dashdash_and_paths_after)
{
    Arguments a = parse({"HEAD", "-f", "--", "-f", "a.txt"});
    BOOST_TEST((a.operands == std::vector<std::string>{"HEAD"}));
    BOOST_TEST((a.paths == std::vector<std::string>{"-f", "a.txt"}));
    BOOST_TEST(a.count["force"] == 1);
    BOOST_TEST(a.dashdash);
}

BOOST_AUTO_TEST_CASE(a_negation_is_not_the_option)
{
    BOOST_TEST(!parse({"--no-force"}).has("force"));
}

BOOST_AUTO_TEST_CASE(a_negation_undoes_what_came_before_and_the_last_wins)
{
    BOOST_TEST(!parse({"-f", "--no-force"}).has("force"));
    BOOST_TEST(parse({"--no-force", "-f"}).has("force"));
    BOOST_TEST(!parse({"-f", "--no-forc"}).has("force"), "an abbreviated negation is a negation");
    BOOST_TEST(parse({"-e", "a", "--no-exclude", "-e", "b"}).values["exclude"] == std::vector<std::string>{"b"});
}

BOOST_AUTO_TEST_CASE(a_value_is_the_next_word_whatever_it_looks_like)
{
    Arguments a = parse({"-f", "-e", "-n"});
    BOOST_TEST(a.values["exclude"] == std::vector<std::string>{"-n"});
    BOOST_TEST(a.operands.empty());
    BOOST_TEST(parse({"--exclude", "--dry-run"}).values["exclude"] == std::vector<std::string>{"--dry-run"});
    BOOST_TEST(parse({"-fe-n"}).values["exclude"] == std::vector<std::string>{"-n"});
}

BOOST_AUTO_TEST_CASE(end_of_options_makes_the_rest_operands)
{
    Arguments a = parse({"-f", "--end-of-options", "-d", "--", "x"});
    BOOST_TEST(!a.has("d"));
    BOOST_TEST((a.operands == std::vector<std::string>{"-d"}));
    BOOST_TEST((a.paths == std::vector<std::string>{"x"}));
}

// reset's modes, as the front end's table declares them: one variable, the last wins.
BOOST_AUTO_TEST_CASE(the_last_of_a_group_is_in_force)
{
    auto reset = [](std::vector<std::string> words) {
        words.insert(words.begin(), "reset");
        return parse_arguments(words, 1, GUARD_TABLE(reset));
    };
    BOOST_TEST(!reset({"--hard", "--soft"}).has("hard"));
    BOOST_TEST(reset({"--soft", "--hard"}).has("hard"));
    BOOST_TEST(reset({"--mixed", "--ha"}).has("hard"));
}

// The misreadings that destroyed work unsaved (issue 16 item 5), in the front end's tables.
BOOST_AUTO_TEST_CASE(clean_rm_and_prune_as_git_reads_them)
{
    auto read = [](std::span<const OptionSpec> table, std::vector<std::string> words) {
        return parse_arguments(words, 1, table);
    };
    BOOST_TEST(!read(GUARD_TABLE(clean), {"clean", "-f", "-e", "-n"}).has("dry-run"));
    BOOST_TEST(!read(GUARD_TABLE(clean), {"clean", "-fd", "--exclude", "-n"}).has("dry-run"));
    BOOST_TEST(!read(GUARD_TABLE(clean), {"clean", "-f", "-e", "--dry-run"}).has("dry-run"));
    BOOST_TEST(!read(GUARD_TABLE(clean), {"clean", "-n", "--no-dry-run", "-f"}).has("dry-run"));
    BOOST_TEST(read(GUARD_TABLE(clean), {"clean", "-fn"}).has("dry-run"));
    BOOST_TEST(!read(GUARD_TABLE(rm), {"rm", "-f", "--cached", "--no-cached", "x"}).has("cached"));
    BOOST_TEST(!read(GUARD_TABLE(worktree_prune), {"worktree", "-n", "--no-dry-run"}).has("dry-run"));
}

BOOST_AUTO_TEST_SUITE_END()
