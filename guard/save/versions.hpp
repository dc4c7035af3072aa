#pragma once

#include "guard/judge/destroyed.hpp"
#include "guard/git/libgit2.hpp"
#include "guard/save/limited_save.hpp"

#include <string>
#include <vector>

namespace guard {

// One path's content in a save: absent (deleted), or a blob with its mode.
struct Content {
    std::string path;
    bool present = false;
    git_oid blob{};
    git_filemode_t mode = GIT_FILEMODE_BLOB;
};

// The lost paths of `d` as they are on disk now, their blobs written by git. A path
// that is gone (or a directory now) is absent. Throws Error when git cannot write them.
std::vector<Content> working_versions(const GitCall& call, const Site& site, const Destroyed& d);

// The staged versions of the lost tracked paths whose index entry differs from HEAD's.
std::vector<Content> staged_versions(const Destroyed& d);

} // namespace guard
