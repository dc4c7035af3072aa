#pragma once

#include "guard/git/git.hpp"
#include "guard/judge/work.hpp"
#include "guard/save/staging_raw.hpp"

#include <filesystem>
#include <optional>
#include <memory>
#include <string>
#include <vector>

namespace guard {

// A nested repository or submodule, saved whole (C1 `Stranded-Nested`): `commit`
// is its own save (or its HEAD when only commits were at risk), with every
// object it reaches copied into the guarded repository.
struct NestedSave {
    std::string path;    // relative to the outer tree's root
    std::string commit;
    std::string head;    // its HEAD id, or "unborn"
    std::string branch;  // its branch, or "detached"
};

// The trees a save records, staged into a private index seeded from the checkout's own
// index (DESIGN §5.2): the files git's status found changed go in as their bytes on disk
// (DESIGN §4.1.1, staging_raw.hpp: stage_listed), or, where only git's `add` can say how
// (links, nested repositories, conflicts, hidden edits), `add` stages them and the changed
// files are then replaced by their bytes; none of the repository's programs is run. The
// checkout's files, index, HEAD and branch are never written.
struct Staged {
    std::string worktree_tree;           // S's tree: the working state
    std::string index_tree;              // I's tree: the index, conflicts resolved to the working file
    std::vector<NestedSave> nested;
    std::vector<Unsaved> unsaved;        // files left as git staged them (Stranded-Unsaved)
};

class TempFile;

// In the private index `git` stages into: `work.excluded` paths removed, the tracked ones
// put back as `work.head` has them (LESSONS 7: staged, then put back, never named to add).
void put_back_excluded(const Git& git, const Work& work);

// The first half of a save's staging, started beside the inspection when work is
// expected (an explicit save, a destroyer that found some): I's tree, written by git from
// a private copy of the index while git's status runs, instead of after it. stage_checkout
// stages S on top of that copy when there is no conflict to record first; otherwise it is
// dropped, and costs only the time it ran.
class EarlyStaging {
public:
    EarlyStaging(const Git& git, const std::filesystem::path& common);
    ~EarlyStaging();
    EarlyStaging(const EarlyStaging&) = delete;
    EarlyStaging& operator=(const EarlyStaging&) = delete;

    // The private index and I's tree id, once; nothing when git failed.
    struct Result {
        std::filesystem::path index;
        std::string index_tree;
    };
    std::optional<Result> take();

private:
    std::unique_ptr<TempFile> m_index_copy;
    std::optional<Git::Job> m_write;
};

// Stages `work` (as inspected in the checkout `git` names: its git dir and its
// root) into private indexes under `<common>/guard/tmp/`, saving nested
// repositories recursively into the store at `common`. Throws Error when git
// cannot stage or write. `early`, when given, is the staging started beside the
// inspection of this same checkout. `nested_saved`, when given, names the nested
// repositories to save; the others are left out of the save (and of `git add`).
Staged stage_checkout(const Git& git, const Work& work, const std::filesystem::path& common,
                      EarlyStaging* early = nullptr, const std::vector<std::string>* nested_saved = nullptr);

// Every file under `root` (a tree git can no longer read), as a tree in the
// store at `common`.
std::string stage_husk(const std::filesystem::path& common, const std::filesystem::path& root);

// A private file `<dir>/<stem>-<pid>-XXXXXX`, removed with its `.lock` on
// destruction. Leftovers of killed runs are swept by `sweep_tmp`.
class TempFile {
public:
    TempFile(const std::filesystem::path& dir, const std::string& stem);
    ~TempFile();
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

// Removes what killed saves left in `<common>/guard/tmp/` (older than an hour).
void sweep_tmp(const std::filesystem::path& common);

} // namespace guard
