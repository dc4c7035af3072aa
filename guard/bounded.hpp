#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace guard {

// Runs git (`args` after the program) in `git_dir` (none: as found from the current
// directory) with `input` on stdin, killed at `deadline`. Returns nothing when the
// deadline passed. The child dies with us (PR_SET_PDEATHSIG), so a killed hook leaves
// no git behind.
struct Bounded { int status = -1; std::string out; };
std::optional<Bounded> run_git_bounded(const std::filesystem::path& git_dir,
                                       const std::vector<std::string>& args, const std::string& input,
                                       std::chrono::steady_clock::time_point deadline);

} // namespace guard
