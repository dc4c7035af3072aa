#pragma once

#include <string>
#include <vector>

namespace guard {

// `git-guard hook reference-transaction <state> [<hook path>]`, stdin as git
// gave it. Saves each branch the transaction deletes, runs the chained hook
// with the same input, and returns the exit code git should see.
int run_hook(const std::vector<std::string>& args);

} // namespace guard
