#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

// The front end's one parse of git's command line (contract C4).
struct GitCall {
    std::vector<std::string> globals;          // git's global options, as given (e.g. -c k=v)
    std::filesystem::path cwd;                 // after every -C
    std::vector<std::string> words;            // subcommand and its arguments, aliases expanded
    std::vector<std::string> argv;             // the caller's original argv (argv[0] = "git")
    std::string real_git;                      // absolute path of the real git
    bool enabled_asked = false;                // the front end has heard guard.enabled=true from git
    bool hooks_off = false;                    // the caller's own config names core.hooksPath or hook.*
};

} // namespace guard
