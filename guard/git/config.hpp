#pragma once

// The repository's configuration, as git reads it: one `git config -z --get-regexp` per
// process while the config files stay as they are, and one typed reading of each value
// (DESIGN §0.5: a valueless `[guard] enabled` read as true by one reader and false by
// another let a branch go unsaved).

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace guard {

// The repository-local guard.* keys (DESIGN §9).
struct Settings {
    bool enabled = false;
    std::vector<std::string> exclude;
    std::vector<std::string> keep_ignored;
    std::vector<std::string> base_refs;
    std::string identity = "git-guard <git-guard@localhost>";
    std::chrono::seconds lock_timeout{60};
    bool lock_worktrees = false;   // guard.lockWorktrees, set by install --lock-worktrees
};

// When set, every git this reader starts is killed at that time (the hook's bound).
using Deadline = std::optional<std::chrono::steady_clock::time_point>;

// The guard.* and hook.* entries of `git_dir`'s configuration, the remotes' `mirror`
// and `fetch` entries, the filter.* and core.fsmonitor entries (the programs a save
// must not run, DESIGN §4.1.1), core.fileMode and core.autocrlf (how git stages a file),
// as git lists them (keys as `config --get-regexp` prints them;
// a valueless key lists as ""), read once per process while the config files git read
// them from stay as they are (the repository's, the global and system ones, and what
// they include): one decision reads the settings, the hook's keys, the hooks to turn off
// and guard.onSave from one git. forget_config() drops what was read (after install
// changes them).
using ConfigEntries = std::vector<std::pair<std::string, std::string>>;
// One entry as `git config -z --get-regexp` writes it: "key\nvalue", or "key" (valueless).
std::pair<std::string, std::string> config_entry(const std::string& word);
const ConfigEntries& guard_config(const std::filesystem::path& git_dir, Deadline deadline = {});
void forget_config();

// Takes `entries` as guard_config's reading of `git_dir` (the shim's front end listed
// them for the caller, the same git): while the config files stay as they are now,
// guard_config answers from them instead of asking git again.
void remember_config(const std::filesystem::path& git_dir, ConfigEntries entries);

// Hands `entries`, guard_config's reading of `git_dir`, to the hook of the git this process
// is about to exec (in GIT_GUARD_CONFIG): the hook's guard_config takes them instead of
// asking git again only for that same git dir, while its config files keep the stamp they
// have now and GIT_CONFIG_PARAMETERS is as here (a caller's `-c`, which git adds to it,
// makes the hook ask). Nothing is handed when the listing is too large for the environment.
void hand_config_down(const std::filesystem::path& git_dir, const ConfigEntries& entries);

// Lets guard_config take a listing handed down by the process `identity` (process_identity
// of the git that runs the hook: the shim's full binary handed it and exec'd that git, so
// they share a pid and start time). Without this call no handed listing is ever taken. A
// listing that would weaken the guard (guard.enabled not "true", a guard.baseRef or
// guard.exclude entry) is never taken either: git is asked (DESIGN §2.4, §0.7).
void accept_handoff_from(std::string identity);

// git's reading of `key` (as guard_config lists it, with its last value `raw`) as
// `type` ("bool" or "int"): "true", "false" and plain decimal numbers read as they are,
// anything else (valueless, `yes`, `1k`, a bad value) is asked of git with --type.
// Nothing when git cannot read it as `type`.
std::optional<std::string> typed_value(const std::filesystem::path& git_dir, const std::string& key,
                                       const std::string& raw, const std::string& type, Deadline deadline = {});

// `value` (as typed_value read it) as seconds; `fallback` when absent, negative or invalid.
std::chrono::seconds seconds_or(const std::optional<std::string>& value, std::chrono::seconds fallback);

// The guard.* keys of the repository whose git dir (or common dir) is `git_dir`,
// read by git (so includes, conditional includes and every format work).
Settings read_settings(const std::filesystem::path& git_dir, Deadline deadline = {});

} // namespace guard
