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
// no git behind. git's stderr is kept in `err`, never passed on: the hook adds nothing
// to git's own stderr (a dangling symref's warning came twice from our calls, t1430).
struct Bounded { int status = -1; std::string out; std::string err; };
std::optional<Bounded> run_git_bounded(const std::filesystem::path& git_dir,
                                       const std::vector<std::string>& args, const std::string& input,
                                       std::chrono::steady_clock::time_point deadline);

} // namespace guard
