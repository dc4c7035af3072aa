#pragma once

#include <string>
#include <vector>

namespace guard {

// `git guard <command> ...`: looks the command up in the table and runs it.
// Returns the exit code: 0 done, 1 refused (work kept), 2 usage.
int run_cli(const std::vector<std::string>& args);

} // namespace guard
