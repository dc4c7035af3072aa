#pragma once

#include "guard/install/doctor.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

struct Installation;

// Saves are private by default (DESIGN §13): what the repository serves to a fetch or clone
// (git's upload-pack) leaves out both save namespaces, through `uploadpack.hideRefs`.
// A push into the repository (receive-pack) is not refused for them, so a guarded hub can
// still be another clone's guard.backupRemote.
inline constexpr const char* k_hidden_saves[] = {"refs/stranded", "refs/heads/stranded"};

// Adds each namespace of k_hidden_saves to uploadpack.hideRefs unless git already hides it,
// recording `config-add` in the manifest first.
void hide_saves(Installation& ctx);

// Undoes one `config-add KEY VALUE` record (uninstall's key-by-key path).
void undo_config_add(Installation& ctx, const std::vector<std::string>& record);

// Whether git's upload-pack would hide `ref` under the hideRefs `rules` (the values of
// uploadpack.hideRefs then transfer.hideRefs, in config order), as git decides it.
bool ref_is_hidden(const std::string& ref, const std::vector<std::string>& rules);

// Doctor: which save namespaces the repository at `common` serves to a fetch.
Check served_check(const std::string& git, const std::filesystem::path& common);

// Doctor: how many saves there are, of each storage, and how many came from elsewhere.
Check saves_check(const std::filesystem::path& common);

// Doctor: whether the install manifest was written for this repository (not a copy's origin).
Check manifest_check(const std::filesystem::path& common);

} // namespace guard
