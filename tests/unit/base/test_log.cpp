#include "guard/base/log.hpp"
#include "tests/unit/temp_repo.hpp"

#include <boost/test/unit_test.hpp>
#include <spdlog/spdlog.h>

#include <unistd.h>

namespace fs = std::filesystem;
using guard::test::TempRepo;

namespace {

// init_log replaces the process-wide default logger; put the old one back so later tests do
// not write into a deleted directory.
struct KeepDefaultLogger {
    std::shared_ptr<spdlog::logger> saved = spdlog::default_logger();
    ~KeepDefaultLogger() { spdlog::set_default_logger(saved); }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(guard_log, KeepDefaultLogger)

BOOST_AUTO_TEST_CASE(info_message_lands_in_guard_log)
{
    TempRepo repo;
    auto common = repo.path() / ".git";
    guard::init_log(common, false);
    spdlog::info("marker {}", 4711);
    spdlog::debug("hidden {}", 4712);
    auto file = common / "guard" / "guard.log";
    BOOST_REQUIRE_MESSAGE(fs::exists(file), "init_log did not create " << file);
    std::string text = guard::test::read_file(file);
    BOOST_TEST(text.find("marker 4711") != std::string::npos, "the info line is missing: " << text);
    BOOST_TEST(text.find("[" + std::to_string(::getpid()) + "]") != std::string::npos,
               "the line does not carry the pid: " << text);
    BOOST_TEST(text.find("info: marker") != std::string::npos,
               "the line does not carry the level: " << text);
    BOOST_TEST(text.find("hidden") == std::string::npos,
               "a debug line was written without verbose: " << text);
}

BOOST_AUTO_TEST_CASE(unwritable_directory_does_not_throw)
{
    TempRepo repo;
    // A regular file as a parent directory fails for root too, unlike a chmod.
    auto blocked = repo.path() / "README" / "not-a-dir";
    BOOST_CHECK_NO_THROW(guard::init_log(blocked, false));
    BOOST_CHECK_NO_THROW(spdlog::info("goes nowhere"));
    BOOST_CHECK_NO_THROW(guard::init_log(blocked, true));
    BOOST_CHECK_NO_THROW(spdlog::debug("goes to stderr only"));
    BOOST_TEST(!fs::exists(repo.path() / "README" / "not-a-dir"), "a log was created anyway");
}

BOOST_AUTO_TEST_SUITE_END()
