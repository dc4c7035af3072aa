// The read-back of a save (DESIGN §5.6): the ref, read from the ref store by other than
// its writer, holds what was built; only that licenses a destroyer.
#include "guard/save/read_back.hpp"

#include "guard/save/chain.hpp"
#include "guard/git/repo.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

namespace fs = std::filesystem;

namespace guard {

namespace {

// `ref`'s commit and its tree, read by libgit2 through a repository handle of its own (its
// object cache is not the one that wrote the save: the objects come from disk). DESIGN §0.1
// names reading objects back to verify a save as libgit2's. Only where this run has libgit2
// up already (the in-place saves), so no run starts it for this; nothing when libgit2
// cannot read the repository (reftable, SHA-256) or the ref: git reads it back instead.
std::optional<std::pair<std::string, std::string>> read_back_in_process(const fs::path& common,
                                                                        const std::string& ref)
{
    if (!libgit2_started())
        return std::nullopt;
    git_repository* raw = nullptr;
    if (git_repository_open_ext(&raw, common.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) < 0) {
        git_error_clear();
        return std::nullopt;
    }
    Repository repo(raw);
    git_object* peeled = nullptr;
    if (git_revparse_single(&peeled, repo.get(), (ref + "^{commit}").c_str()) < 0) {
        git_error_clear();
        return std::nullopt;
    }
    Object commit(peeled);
    return std::make_pair(to_hex(*git_object_id(commit.get())),
                          to_hex(*git_commit_tree_id(reinterpret_cast<git_commit*>(commit.get()))));
}

} // namespace

// Only this proof licenses a removal: the ref, read back from the ref store by other than
// the writer (a separate git, or libgit2's own handle), holds what was built.
void verify(const Git& git, const Saved& s)
{
    if (auto ids = read_back_in_process(git.common(), s.ref)) {
        if (ids->first != s.commit || ids->second != s.tree)
            throw Error("verification failed: " + s.ref + " does not hold the saved commit " + s.commit);
        return;
    }
    RunResult r = git.run({"rev-parse", s.ref + "^{commit}", s.ref + "^{tree}"});
    auto ids = split(r.out, '\n');
    if (r.status != 0 || ids.size() != 2 || ids[0] != s.commit || ids[1] != s.tree)
        throw Error("verification failed: " + s.ref + " does not hold the saved commit " + s.commit);
}

namespace {

// What `tree` changes against the empty tree, for a save with no HEAD under it.
std::string diffstat_from_empty(const Git& git, const std::string& tree)
{
    RunResult r = git.run({"diff", "--no-ext-diff", "--no-textconv", "--no-renames", "--shortstat", git.empty_tree(), tree});
    std::string text = first_line_of(r.out);
    while (!text.empty() && text.front() == ' ')
        text.erase(0, 1);
    return text.empty() ? "no file changes" : text;
}

} // namespace

void verify_with_diffstat(const Git& git, Saved& s)
{
    if (s.base.empty()) { // no HEAD: the first parent may be the index's commit, not nothing
        verify(git, s);
        s.diffstat = diffstat_from_empty(git, s.tree);
        return;
    }
    // `log -1` resolves the ref and reads its commit (%H), its tree (%T) and the diff
    // against its first parent, HEAD (`s.base`), in one git.
    RunResult r = git.run({"log", "-1", "--no-color", "--format=%H%n%T", "--shortstat", "--no-ext-diff",
                           "--no-textconv", "--no-renames", "--diff-merges=first-parent", s.ref, "--"});
    auto lines = split(r.out, '\n');
    if (r.status != 0 || lines.size() < 2) {
        // git could read no diff (a blob of HEAD gone from the store): the read-back alone.
        verify(git, s);
        s.diffstat = "no file changes";
        return;
    }
    if (lines[0] != s.commit || lines[1] != s.tree)
        throw Error("verification failed: " + s.ref + " does not hold the saved commit " + s.commit);
    std::string text = lines.size() > 3 ? lines[3] : "";
    while (!text.empty() && text.front() == ' ')
        text.erase(0, 1);
    s.diffstat = text.empty() ? "no file changes" : text;
}

// A separate git reads the refs and their commits' trees from the stores; the same
// listing counts the saves, so the hook's batch save costs one process for both.
std::size_t read_back_all(const Git& git, std::vector<Saved>& saves)
{
    RunResult r = git.run({"for-each-ref", "--format=%(objectname) %(tree) %(refname)", "refs/heads/stranded/",
                           "refs/stranded/"});
    std::map<std::string, std::string> held; // ref -> "<commit> <tree>"
    std::size_t branches = 0, in_place = 0;
    for (const auto& line : split(r.out, '\n')) {
        auto first = line.find(' '), second = line.find(' ', first == std::string::npos ? first : first + 1);
        if (second == std::string::npos)
            continue;
        std::string ref = line.substr(second + 1);
        held[ref] = line.substr(0, second);
        if (!is_chain_ref(ref))
            ++(ref.starts_with("refs/heads/") ? branches : in_place);
    }
    for (auto& s : saves) {
        const std::string& read = held[s.ref];
        // %(tree) is empty unless git parsed a commit there: a tree read is the commit's,
        // and a save of a commit git cannot parse proves nothing.
        std::string tree = read.starts_with(s.commit + " ") ? read.substr(s.commit.size() + 1) : "";
        if (s.tree.empty() && is_oid(tree))
            s.tree = tree;
        if (r.status != 0 || !is_oid(tree) || read != s.commit + " " + s.tree)
            throw Error("verification failed: " + s.ref + " does not hold the saved commit " + s.commit);
    }
    return std::max(branches, in_place);
}

} // namespace guard
