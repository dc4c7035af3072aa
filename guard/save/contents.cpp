#include "guard/save/contents.hpp"

#include "guard/base/error.hpp"
#include "guard/git/process.hpp"

#include <set>

namespace fs = std::filesystem;

namespace guard {

namespace {

// `diff-tree -z --name-status` between two trees: (status letter, path) pairs.
std::vector<std::pair<char, std::string>> diff(const fs::path& git_dir, const std::string& from,
                                               const std::string& to)
{
    std::string out = git_out(git_dir, {"diff-tree", "-r", "-z", "--no-renames", "--name-status",
                                        "--ignore-submodules=none", from, to});
    std::vector<std::pair<char, std::string>> pairs;
    for (size_t at = 0; at < out.size();) {
        size_t end = out.find('\0', at);
        size_t path_end = end == std::string::npos ? std::string::npos : out.find('\0', end + 1);
        if (path_end == std::string::npos)
            break;
        pairs.emplace_back(out[at], out.substr(end + 1, path_end - end - 1));
        at = path_end + 1;
    }
    return pairs;
}

} // namespace

SaveContents save_contents(const fs::path& git_dir, const SaveLayout& save)
{
    SaveContents c;
    std::string empty = git_out(git_dir, {"hash-object", "-t", "tree", "/dev/null"});
    empty = empty.substr(0, empty.find('\n'));
    std::string head_tree = save.head.empty() ? empty : save.head + "^{tree}";
    std::set<std::string> nested;
    for (const auto& n : save.nested)
        nested.insert(n.path);
    for (const auto& [status, path] : diff(git_dir, head_tree, save.index_tree))
        c.changes.push_back({path, "staged"});
    for (const auto& [status, path] : diff(git_dir, save.index_tree, save.tree)) {
        if (nested.count(path))
            continue;
        c.changes.push_back({path, status == 'D' ? "deleted" : status == 'A' ? "untracked" : "modified"});
    }
    for (const auto& n : save.nested)
        c.changes.push_back({n.path, "nested"});
    std::vector<std::string> args = {"rev-list", "--max-count=100"};
    for (const auto& tip : {save.head, save.branch_tip})
        if (!tip.empty())
            args.push_back(tip);
    if (args.size() == 2)
        return c;
    for (const auto& word : {"--not", "--exclude=refs/heads/stranded/*", "--exclude=refs/stranded/*", "--all"})
        args.emplace_back(word);
    std::string out = git_out(git_dir, args);
    for (size_t at = 0; at < out.size();) {
        size_t end = out.find('\n', at);
        c.commits.push_back(out.substr(at, end - at));
        at = end == std::string::npos ? out.size() : end + 1;
    }
    return c;
}

} // namespace guard
