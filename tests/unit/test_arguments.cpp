// The in-place destroyers read only the form of a command from its arguments; these
// cases pin that reading to git's parse-options rules.
#include "guard/arguments.hpp"

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

BOOST_AUTO_TEST_SUITE_END()
