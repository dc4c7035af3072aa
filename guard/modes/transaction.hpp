#pragma once

// A reference transaction as git hands it to the hook, and the settings the hook reads.

#include "guard/git/bounded.hpp"
#include "guard/judge/deletions.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace guard {

bool is_save_ref(const std::string& ref);   // refs/heads/stranded/*, refs/stranded/*

// git's input: `<old> <new> <ref>` lines. Each deletion and each update of a branch, a
// save or HEAD (whether HEAD is detached is the caller's to ask) lands in `tx.deletions`,
// an update with its `new_value`. A line naming a branch or a save that git cannot have
// written is kept in `unreadable`. An old value git did not check (all zeros) is empty.
struct Input {
    RefTransaction tx;
    std::vector<std::string> unreadable;
};
// `text` is git's input, classified by the front end's own code (front/lines.c).
Input parse_input(const std::string& text);
// The front end's classified form of it (front/lines.h, classified_input), read as is.
Input read_classified(const std::string& text);

struct HookSettings {
    Settings settings;                  // guard.enabled, guard.baseRef, guard.lockTimeout
    std::chrono::seconds timeout{30};   // guard.hookTimeout
    bool mirror = false;                // a fetch refspec reaches refs/heads/: saves would be pruned
    bool refs_locked = false;           // reftable in `prepared`: git holds the store, keep bundles
};
// Read through `git config` typed (--type=bool, --type=int), as git and the shim read
// them (a repository libgit2 cannot open still answers).
HookSettings hook_settings(const std::filesystem::path& git_dir);

} // namespace guard
