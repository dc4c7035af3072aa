#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace guard {

struct Site; // site.hpp

// The front end's one parse of git's command line (contract C4).
struct GitCall {
    std::vector<std::string> globals;          // git's global options, as given (e.g. -c k=v)
    std::filesystem::path cwd;                 // after every -C
    std::vector<std::string> words;            // subcommand and its arguments, aliases expanded
    std::vector<std::string> argv;             // the caller's original argv (argv[0] = "git")
    std::string real_git;                      // absolute path of the real git
    bool enabled_asked = false;                // the front end has heard guard.enabled=true from git
    bool hooks_off = false;                    // the caller's own config names core.hooksPath or hook.*
    // git's listing of the repository's guard.* keys as the front end read it for the
    // caller ("key", value; guard_config's entries), when it did: never read again.
    std::optional<std::vector<std::pair<std::string, std::string>>> config;
    // The run's one Site (site.hpp, site_of): asked of git the first time a layer needs
    // it, never again for this call; a run that needs none (a clean in-place destroyer:
    // git's status said nothing goes) never asks.
    mutable std::shared_ptr<const Site> site;
};

} // namespace guard
