#include "guard/base/pattern.hpp"
#include "tests/unit/temp_repo.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using guard::PatternList;
using guard::test::TempRepo;

namespace {

enum class Shape { file, symlink_to_dir };

struct Case {
    std::vector<std::string> patterns;
    std::string path;
    bool selected; // what git itself decides: ignored or not
    Shape shape = Shape::file;
};

std::ostream& operator<<(std::ostream& os, const Case& c)
{
    os << "[";
    for (const auto& p : c.patterns)
        os << " '" << p << "'";
    return os << " ] " << c.path << (c.selected ? " selected" : " not selected");
}

// Each case states git's own answer; the test checks that git agrees (so the table
// is right) and that PatternList agrees with git (so guard.exclude and
// guard.keepIgnored mean what a .gitignore line means).
const Case k_cases[] = {
    // plain globs match the basename at any depth
    {{"*.log"}, "a.log", true},
    {{"*.log"}, "deep/dir/a.log", true},
    {{"*.log"}, "a.logx", false},
    {{".env"}, "sub/.env", true},
    {{"a*b"}, "ax/yb", false},
    // a leading or inner slash anchors to the root
    {{"/root.txt"}, "root.txt", true},
    {{"/root.txt"}, "sub/root.txt", false},
    {{"doc/*.txt"}, "doc/a.txt", true},
    {{"doc/*.txt"}, "doc/sub/a.txt", false},
    {{"doc/*.txt"}, "x/doc/a.txt", false},
    {{"x/*/z"}, "x/y/z", true},
    {{"x/*/z"}, "x/y/w/z", false},
    // a trailing slash: directories only, and everything below them
    {{"build/"}, "build/out.o", true},
    {{"build/"}, "sub/build/deep/out.o", true},
    {{"build/"}, "build", false},
    {{"node_modules/"}, "node_modules", false, Shape::symlink_to_dir},
    {{"scratch"}, "scratch/a/b.txt", true},
    {{"/scratch/"}, "sub/scratch/a.txt", false},
    // '**'
    {{"**/foo"}, "foo", true},
    {{"**/foo"}, "a/b/foo", true},
    {{"foo/**"}, "foo/a/b", true},
    {{"foo/**"}, "foo", false},
    {{"a/**/b"}, "a/b", true},
    {{"a/**/b"}, "a/x/y/b", true},
    {{"a/**/b"}, "a/xb", false},
    {{"**/logs/*.log"}, "x/logs/a.log", true},
    {{"**/logs/*.log"}, "logs/a.log", true},
    {{"**/logs/*.log"}, "x/logs/y/a.log", false},
    // negation: the last matching line decides...
    {{"*.log", "!keep.log"}, "keep.log", false},
    {{"*.log", "!keep.log"}, "other.log", true},
    {{"!keep.log", "*.log"}, "keep.log", true},
    // ...but nothing below an excluded directory comes back
    {{"tmp/", "!tmp/keep"}, "tmp/keep", true},
    {{"tmp/*", "!tmp/keep"}, "tmp/keep", false},
    {{"tmp/*", "!tmp/keep"}, "tmp/other", true},
    // classes, '?', escapes, trailing spaces, comments
    {{"[abc].txt"}, "b.txt", true},
    {{"[abc].txt"}, "d.txt", false},
    {{"[!abc].txt"}, "d.txt", true},
    {{"[!abc].txt"}, "a.txt", false},
    {{"file[0-9]"}, "file7", true},
    {{"file[0-9]"}, "filex", false},
    {{"?.txt"}, "a.txt", true},
    {{"?.txt"}, "ab.txt", false},
    {{"a?b"}, "a/b", false},
    {{"\\#hash"}, "#hash", true},
    {{"\\!bang"}, "!bang", true},
    {{"#comment"}, "#comment", false},
    {{"spaced  "}, "spaced", true},
    {{"-dash*"}, "-dash.txt", true},
    {{"with space.txt"}, "dir/with space.txt", true},
};

bool git_ignores(const Case& c)
{
    TempRepo repo;
    std::string lines;
    for (const auto& p : c.patterns)
        lines += p + "\n";
    repo.write(".gitignore", lines);
    fs::path target = repo.path() / c.path;
    if (c.shape == Shape::symlink_to_dir) {
        fs::create_directories(repo.path() / "real-dir");
        repo.write("real-dir/f", "x\n");
        fs::create_directory_symlink("real-dir", target);
    } else {
        repo.write(c.path, "x\n");
    }
    std::string out = repo.git({"ls-files", "-z", "-o", "-i", "--exclude-standard"});
    for (size_t at = 0, end; (end = out.find('\0', at)) != std::string::npos; at = end + 1)
        if (out.compare(at, end - at, c.path) == 0)
            return true;
    return false;
}

} // namespace

BOOST_AUTO_TEST_SUITE(pattern)

BOOST_DATA_TEST_CASE(gitignore_syntax_as_git_reads_it, boost::unit_test::data::make(k_cases), c)
{
    BOOST_TEST(git_ignores(c) == c.selected, "the test table disagrees with git itself");
    auto got = PatternList(c.patterns).match(c.path);
    BOOST_TEST(got.has_value() == c.selected,
               (c.selected
                    ? "a path the pattern selects was not matched: an excluded or kept file is "
                      "treated the wrong way"
                    : "a path the pattern does not select was matched: work would be dropped as "
                      "excluded"));
}

BOOST_AUTO_TEST_CASE(match_names_the_deciding_pattern)
{
    PatternList list({"*.tmp", "scratch/", "!keep.tmp"});
    BOOST_TEST(list.match("a/b.tmp").value_or("") == "*.tmp");
    BOOST_TEST(list.match("scratch/x/y").value_or("") == "scratch/");
    BOOST_TEST(!list.match("keep.tmp"), "a negated path was reported as excluded");
    BOOST_TEST(PatternList({}).empty());
    BOOST_TEST(PatternList({"# only a comment", ""}).empty(),
               "comments or blank lines became patterns");
}

BOOST_AUTO_TEST_CASE(wildmatch_basics)
{
    using guard::wildmatch;
    BOOST_TEST(wildmatch("*.c", "x.c"));
    BOOST_TEST(!wildmatch("*.c", "d/x.c"), "'*' crossed a '/'");
    BOOST_TEST(wildmatch("**/x.c", "a/b/x.c"));
    BOOST_TEST(wildmatch("a/**", "a/b/c"));
    BOOST_TEST(wildmatch("a/**/z", "a/z"));
    BOOST_TEST(wildmatch("[a-c]x", "bx"));
    BOOST_TEST(!wildmatch("[a-c]x", "dx"));
    BOOST_TEST(wildmatch("[]]x", "]x"), "']' first in a class is literal");
    BOOST_TEST(wildmatch("\\*x", "*x"));
    BOOST_TEST(!wildmatch("\\*x", "ax"), "an escaped '*' matched anything");
    BOOST_TEST(!wildmatch("a?c", "a/c"), "'?' matched a '/'");
}

BOOST_AUTO_TEST_SUITE_END()
