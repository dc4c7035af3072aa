#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace guard {

// A save ref and its commit, in either namespace of contract C1.
struct SaveRef {
    std::string ref;      // refs/heads/stranded/<name>/<stamp> or refs/stranded/<name>/<stamp>
    std::string commit;
};

// Every save ref, through git's for-each-ref (any ref storage git supports).
std::vector<SaveRef> save_refs(const std::filesystem::path& common_dir);

// One save with its facts: from its trailers, else its journal record, else its ref name.
struct Save {
    std::string ref;
    std::string commit;
    std::string path;       // source tree path ("" when it came from a branch)
    std::string branch;     // source branch ("" when detached)
    std::string reason;     // the operation; never empty
    std::string time;       // UTC ISO 8601 of the save
    long long unix_time = 0;
    std::string kind;       // "tree" (a save commit holds uncommitted work) or "commits"
    int layout = 0;         // 2, 1 for save commits; 0 for "commits"
    std::string summary;    // "Held …" from the save commit, or what the commits are
    bool in_place = false;  // under refs/stranded/ (before reset --hard, checkout --, …)
    std::optional<bool> backed_up; // nothing when no guard.backupRemote is configured
    bool foreign = false;   // this repository's journal does not record making it: it arrived
                            // from elsewhere (fetched, pushed in, copied); its trailers are a claim
    std::string bundle;     // a mirror's bundle file holding it ("" for a ref)
    std::string chain;      // the chain that holds it (folded, in-place); "" for a ref
};

struct ListOptions {
    bool in_place = false;     // --all: in-place saves too
    std::string source;        // --source: a path or branch (or a part of one)
    long long since = 0;       // --since, seconds since the epoch
};

// Every save of the repository whose common dir is `common`, as `options` filter them.
std::vector<Save> list_saves(const std::filesystem::path& common, const ListOptions& options = {});

// The same saves given to `each` one by one, in the same order, without holding them all:
// for a listing of 20,000 (the Save given may be reused by the next call).
void for_each_listed(const std::filesystem::path& common, const ListOptions& options,
                     const std::function<void(const Save&)>& each);

// The save that `name` means: a full ref, `stranded/<…>` or `<name>/<stamp>` in either
// namespace. Throws Error when there is none.
Save find_save(const std::filesystem::path& common, const std::string& name);

// Deletes the save `name` without saving (no hook runs), journaled as "drop".
// Returns the full ref.
std::string drop_stranded(const std::filesystem::path& common, const std::string& name);

// `drop --published`: drops every save whose content is published (DESIGN §4.2) and
// returns them; keeps the others.
std::vector<Save> drop_published(const std::filesystem::path& common);

} // namespace guard
