#pragma once
// What the system install's files share (system_install.cpp, system_login.cpp).
#include "guard/install/system_install.hpp"

#include <filesystem>
#include <string>

namespace guard {

// Adds `line` to `report` (and marks it changed unless `changed` is false).
void say(InstallReport& report, std::string line, bool changed = true);

// Whether `path` is a link to an installed git-guard shim.
bool is_shim_link(const std::filesystem::path& path);

// A temporary link renamed over `link`: `link` never stops existing. Throws Error.
void link_atomically(const std::filesystem::path& link, const std::filesystem::path& target);

// The login shells' entry: a link to `shim` in <prefix>/lib/git-guard/login and
// `layout.profile` putting it first on PATH; rewritten only when it differs.
void place_login(InstallReport& report, const SystemLayout& layout, const std::filesystem::path& shim);

// The profile entry and its link, when they are ours.
void remove_login(InstallReport& report, const SystemLayout& layout);

} // namespace guard
