// What a save may ask of restore: paths that stay inside the target, names that stay
// branches. Checked whole before the first write, so a planted save changes nothing.
#include "guard/save/trust.hpp"

#include "guard/base/error.hpp"
#include "guard/git/process.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace fs = std::filesystem;

namespace guard {

namespace {

// What a restore writes at a path relative to the target: a file, a link, a gitlink (an
// empty directory) or a nested repository's root.
enum class Entry { file, link, gitlink, repo };

using Entries = std::map<std::string, Entry>;

// git refuses `.git` however a case-insensitive or NTFS file system may spell it; so do we.
bool is_dot_git(std::string c)
{
    while (!c.empty() && (c.back() == ' ' || c.back() == '.'))
        c.pop_back();
    std::transform(c.begin(), c.end(), c.begin(), [](unsigned char ch) { return std::tolower(ch); });
    return c == ".git" || c == "git~1";
}

// Why `path` (relative to a tree root) could lead outside it, or "".
std::string path_flaw(const std::string& path)
{
    if (path.empty())
        return "an empty path";
    if (path.front() == '/')
        return "an absolute path";
    for (size_t start = 0; start <= path.size();) {
        size_t end = std::min(path.find('/', start), path.size());
        std::string c = path.substr(start, end - start);
        if (c.empty())
            return "an empty path component";
        if (c == "." || c == "..")
            return "a '" + c + "' component";
        if (is_dot_git(c))
            return "a '" + c + "' component (git's own directory)";
        start = end + 1;
    }
    return "";
}

void refuse(const std::string& what, const std::string& entry, const std::string& why)
{
    throw Error("the save names " + what + " '" + entry + "' with " + why +
                ": it would write outside the restore target, so nothing was restored "
                "(a save may come from someone else; inspect it with git guard show)");
}

// Every entry of `tree`, as git lists it: "<mode> <type> <id>\t<path>", NUL-terminated.
void add_tree(const fs::path& git_dir, const std::string& tree, const std::string& prefix,
              Entries* entries)
{
    std::string out = git_out(git_dir, {"ls-tree", "-r", "-z", "--full-tree", tree});
    for (size_t start = 0; start < out.size();) {
        size_t end = out.find('\0', start);
        std::string line = out.substr(start, end - start);
        start = end == std::string::npos ? out.size() : end + 1;
        auto tab = line.find('\t');
        if (tab == std::string::npos)
            continue;
        std::string path = line.substr(tab + 1), mode = line.substr(0, 6);
        if (auto why = path_flaw(path); !why.empty())
            refuse("the file", prefix + path, why);
        if (entries)
            (*entries)[prefix + path] = mode == "120000" ? Entry::link
                                        : mode == "160000" ? Entry::gitlink
                                                           : Entry::file;
    }
}

void add_layout(const fs::path& git_dir, const SaveLayout& save, const std::string& prefix, Entries& entries)
{
    add_tree(git_dir, save.tree, prefix, &entries);
    if (!save.index_tree.empty() && save.index_tree != save.tree)
        add_tree(git_dir, save.index_tree, prefix, nullptr); // the index: names only, no files
    for (const auto& [name, id] : save.own_refs)
        if (name.starts_with("refs/worktree/") || name.starts_with("refs/bisect/") ||
            name.starts_with("refs/rewritten/"))
            check_ref_name(name, "the per-worktree ref");
    for (const auto& n : save.nested) {
        if (auto why = path_flaw(n.path); !why.empty())
            refuse("the nested repository", prefix + n.path, why);
        if (n.commit.empty())
            continue;
        auto at = entries.find(prefix + n.path);
        if (at != entries.end() && (at->second == Entry::file || at->second == Entry::link))
            refuse("the nested repository", prefix + n.path, "the path of a file or link the save also writes");
        entries[prefix + n.path] = Entry::repo;
        SaveLayout inner = read_layout(git_dir, n.commit);
        for (const auto& b : {n.branch, inner.branch})
            if (!b.empty())
                check_branch_name(b, "the nested repository " + prefix + n.path + "'s branch");
        add_layout(git_dir, inner, prefix + n.path + "/", entries);
    }
}

} // namespace

void check_save_input(const fs::path& git_dir, const SaveLayout& save)
{
    Entries entries;
    add_layout(git_dir, save, "", entries);
    // A path under a link (or a file) would be written through it, wherever it points.
    for (const auto& [path, kind] : entries)
        for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
            auto at = entries.find(path.substr(0, slash));
            if (at == entries.end() || at->second == Entry::repo)
                continue;
            std::string what = at->second == Entry::link ? "a symbolic link" : at->second == Entry::file ? "a file" : "a gitlink";
            refuse(kind == Entry::repo ? "the nested repository" : "the file", path,
                   "a leading directory '" + at->first + "' that the save writes as " + what);
        }
}

void check_ref_name(const std::string& ref, const std::string& what)
{
    bool ok = ref.starts_with("refs/") && ref.find('\n') == std::string::npos &&
              run({find_real_git(), "check-ref-format", ref}).status == 0;
    if (!ok)
        throw Error("the save names " + what + " '" + ref + "', which is not a valid ref name; "
                    "nothing was restored");
}

void check_branch_name(const std::string& branch, const std::string& what)
{
    if (branch.starts_with("-") || branch == "HEAD")
        throw Error("the save names " + what + " '" + branch + "', which is no branch name git "
                    "would create; nothing was restored");
    check_ref_name("refs/heads/" + branch, what);
}

} // namespace guard
