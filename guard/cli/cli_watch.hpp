#pragma once
// `git guard watch` (cli_watch.cpp), beside the commands of cli_parts.hpp.
#include "guard/cli/cli_parts.hpp"

namespace guard::cli {

int run_watch(const Invocation& inv);
// `git guard repair`: removes the saves that name missing objects (save/repair.hpp).
int run_repair(const Invocation& inv);

} // namespace guard::cli
