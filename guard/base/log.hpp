#pragma once

#include <filesystem>

namespace guard {

// Sends spdlog's default logger to the rotating file `<common_dir>/guard/guard.log`
// (1 MiB x 3); `verbose` adds a stderr sink. Never throws: when the file cannot
// be opened, or `common_dir` is empty, logging goes nowhere (or only to stderr)
// and the command goes on.
void init_log(const std::filesystem::path& common_dir, bool verbose);

} // namespace guard
