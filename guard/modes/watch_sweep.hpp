#pragma once
// The watcher's record of lost tips and the sweep before gc prunes (DESIGN §15): the
// commits it once knew as tips that are unreachable now.
#include <filesystem>
#include <string>
#include <vector>

namespace guard {

// A commit once known as a tip that no ref reaches now.
struct LostCommit {
    std::string oid;
    std::string name;   // the branch or tree it was
    std::string when;   // when it vanished (UTC), or since when no watcher ran
};
std::vector<LostCommit> lost_commits(const std::filesystem::path& common);

// Before gc can prune: saves every lost commit that is still at risk (§4.2), with
// `reason`. Returns how many were saved.
int sweep_lost(const std::filesystem::path& common, const std::string& reason);

// The shim's part of the sweep: before `git gc`, `git prune` or `git maintenance run` in the
// repository at `common`, the lost commits at risk are saved, with one line on stderr, and a
// kept pack of the folded saves that could keep what gc would prune is released (kept.hpp).
// Never throws and never stops git.
void sweep_before_gc(const std::filesystem::path& common) noexcept;

// `<common>/guard/watch/lost`: one line per tip the watcher found at risk, "<unix> <oid> <name>".
void record_lost(const std::filesystem::path& common, const std::string& oid, const std::string& name);

} // namespace guard
