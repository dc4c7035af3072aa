#pragma once
// Saves that name a missing object (DESIGN §15: a save ref never names a missing object,
// and every command survives one bad ref). A save written after a prune won the race,
// or a store damaged by hand, is found here, shown, and removed by `git guard repair`.

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

// One save ref whose commit, or that commit's tree, is not in the object store.
struct BrokenSave {
    std::string ref;
    std::string oid;  // what the ref names
};

// The saves among `refs` (all saves when empty) whose commit or tree is missing: one
// for-each-ref that reads no object, and one cat-file. Throws Error when git cannot list.
std::vector<BrokenSave> broken_saves(const std::filesystem::path& common, const std::vector<std::string>& refs = {});

// Every save ref's name (removal and in-place saves), read without reading any object.
std::vector<std::string> save_ref_names(const std::filesystem::path& common);

// Deletes each of `broken` (only while it still names what it named), journaled as a
// refusal naming the lost commit, so the loss is told, never left as a dangling ref.
// Returns how many were removed.
size_t remove_broken(const std::filesystem::path& common, const std::vector<BrokenSave>& broken,
                     const std::string& reason);

} // namespace guard
