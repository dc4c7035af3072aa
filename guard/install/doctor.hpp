#pragma once

#include "guard/git/site.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

struct Check {
    std::string name;   // stable snake_case id, e.g. "hook_present"
    bool ok = false;
    std::string detail; // what was found
    std::string fix;    // one line: how to fix it (empty when ok)
};

// Runs every check for the repository at `here` (the CLI's site); never throws for a
// failed check (only for "not in a repository").
std::vector<Check> diagnose(const Site& here);

} // namespace guard
