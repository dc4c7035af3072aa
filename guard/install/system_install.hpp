#pragma once

#include "guard/install/doctor.hpp"
#include "guard/install/install.hpp"

namespace guard {

// Where a system install puts things (docs/install.md, "System install").
struct SystemLayout {
    std::filesystem::path git = "/usr/bin/git";              // becomes a link to the shim
    std::filesystem::path diverted = "/usr/bin/git.distrib"; // the distribution's git, diverted
    std::filesystem::path profile = "/etc/profile.d/git-guard.sh";
};

// `git guard install --system` (root only): records a local dpkg diversion of /usr/bin/git
// to /usr/bin/git.distrib, keeps the distribution's git there and puts a link to the
// installed shim at /usr/bin/git, with no moment when /usr/bin/git is missing; adds the
// login shells' PATH entry in /etc/profile.d/. Idempotent; repairs a missing link.
// Throws Error on a refusal, before anything is changed.
InstallReport install_system(const SystemLayout& layout = {});

// `git guard uninstall --system` (root only): moves the distribution's git back to
// /usr/bin/git (the same file: byte for byte what the package installed) and removes
// the diversion and the profile.d entry. Says so and changes nothing when there is no
// system install. Throws Error on a refusal, before anything is changed.
InstallReport uninstall_system(const SystemLayout& layout = {});

// Doctor's `system_install` check: "system install" (and whether /usr/bin/git is the
// shim) or "PATH only"; fails on a half-made or broken system install.
Check system_install_check(const SystemLayout& layout = {});

} // namespace guard
