#include "guard/base/log.hpp"

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstddef>
#include <exception>
#include <memory>
#include <vector>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr std::size_t k_log_size = std::size_t{1024} * 1024;
constexpr std::size_t k_log_files = 3;

// Several processes (the shim, the hook, git's own children) append to one file; the pid
// tells their lines apart.
constexpr const char* k_pattern = "%Y-%m-%d %H:%M:%S.%e [%P] %^%l%$: %v";

spdlog::sink_ptr file_sink(const fs::path& common_dir)
{
    try {
        fs::create_directories(common_dir / "guard");
        return std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
            (common_dir / "guard" / "guard.log").string(), k_log_size, k_log_files);
    } catch (const std::exception&) {
        return nullptr; // spdlog_ex or filesystem_error: an unwritable repository still works
    }
}

} // namespace

void init_log(const fs::path& common_dir, bool verbose)
{
    try {
        std::vector<spdlog::sink_ptr> sinks;
        if (auto sink = common_dir.empty() ? nullptr : file_sink(common_dir))
            sinks.push_back(sink);
        if (verbose)
            sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
        // With no sink at all this replaces spdlog's default stdout logger, which would
        // otherwise mix log lines into the command's output.
        auto logger = std::make_shared<spdlog::logger>("guard", sinks.begin(), sinks.end());
        logger->set_pattern(k_pattern);
        logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
        // Every line is flushed: the shim execs git right after logging, and exec drops
        // whatever is still buffered.
        logger->flush_on(spdlog::level::trace);
        spdlog::set_default_logger(logger);
    } catch (const std::exception&) {
        // Logging is a diagnostic: the command goes on without it.
    }
}

} // namespace guard
