// Reading a save (contract C1) back by its trailers, with git, for restore and show.
#include "guard/git/trailers.hpp"

#include "guard/base/error.hpp"
#include "guard/git/git.hpp"
#include "guard/git/process.hpp"

#include <sstream>

namespace fs = std::filesystem;

namespace guard {

std::string git_out(const fs::path& git_dir, std::vector<std::string> args)
{
    args.insert(args.begin(), {find_real_git(), "--git-dir=" + git_dir.string()});
    auto r = run(args);
    if (r.status != 0)
        throw Error("git " + args[2] + " failed: " + r.err.substr(0, r.err.find('\n')));
    return r.out;
}

namespace {

// "<id> <path>": the id, and the (possibly quoted) path.
std::pair<std::string, std::string> id_and_path(const std::string& value)
{
    auto space = value.find(' ');
    if (space == std::string::npos)
        return {value, ""};
    return {value.substr(0, space), unquote_path(value.substr(space + 1))};
}

SavedNested& nested_at(SaveLayout& s, const std::string& path)
{
    for (auto& n : s.nested)
        if (n.path == path)
            return n;
    s.nested.push_back({"", path, "", ""});
    return s.nested.back();
}

void read_trailer(SaveLayout& s, const std::string& key, const std::string& value)
{
    if (key == "Stranded-Layout")
        s.layout = std::atoi(value.c_str());
    else if (key == "Stranded-Index")
        s.index_commit = value;
    else if (key == "Stranded-Head")
        s.head = value == "unborn" ? "" : value;
    else if (key == "Stranded-From")
        s.from = value;
    else if (key == "Stranded-Branch")
        s.branch = value == "detached" ? "" : value;
    else if (key == "Stranded-Reason")
        s.reason = value;
    else if (key == "Stranded-Branch-Tip")
        s.branch_tip = value;
    else if (key == "Stranded-Ref") {
        auto [id, name] = id_and_path(value);
        s.own_refs.emplace_back(name, id);
    } else if (key == "Stranded-Unmerged")
        s.unmerged.push_back(unquote_path(value));
    else if (key == "Stranded-Unsaved") {
        auto [why, path] = id_and_path(value);
        s.unsaved.emplace_back(why, path);
    } else if (key == "Stranded-Nested" || key == "Stranded-Nested-Head" || key == "Stranded-Nested-Branch") {
        auto [id, path] = id_and_path(value);
        SavedNested& n = nested_at(s, path);
        (key == "Stranded-Nested" ? n.commit : key == "Stranded-Nested-Head" ? n.head : n.branch) =
            (id == "unborn" || id == "detached") ? "" : id;
    }
}

} // namespace

std::string unquote_path(const std::string& text)
{
    if (text.size() < 2 || text.front() != '"' || text.back() != '"')
        return text;
    std::string out;
    for (size_t i = 1; i + 1 < text.size(); ++i) {
        if (text[i] != '\\' || i + 2 >= text.size()) {
            out += text[i];
            continue;
        }
        char e = text[++i];
        if (e >= '0' && e <= '7' && i + 2 < text.size()) {
            out += static_cast<char>(((e - '0') << 6) | ((text[i + 1] - '0') << 3) | (text[i + 2] - '0'));
            i += 2;
        } else {
            const std::string plain = "abtnvfr\"\\", meant = "\a\b\t\n\v\f\r\"\\";
            auto at = plain.find(e);
            out += at == std::string::npos ? e : meant[at];
        }
    }
    return out;
}

SaveLayout read_layout(const fs::path& git_dir, const std::string& commit)
{
    SaveLayout s;
    s.commit = first_line_of(git_out(git_dir, {"rev-parse", "--verify", "--end-of-options", commit + "^{commit}"}));
    std::istringstream in(git_out(git_dir, {"log", "-1", "--no-show-signature", "--format=%T%n%cn <%ce>%n%(trailers:only,unfold)", s.commit}));
    std::getline(in, s.tree);
    std::getline(in, s.identity);
    for (std::string line; std::getline(in, line);) {
        auto colon = line.find(": ");
        if (colon != std::string::npos && line.starts_with("Stranded-"))
            read_trailer(s, line.substr(0, colon), line.substr(colon + 2));
    }
    bool made = !s.from.empty() && (s.layout == 2 || !s.head.empty() || s.reason.size());
    if (s.layout != 2)
        s.layout = made ? 1 : 0;
    if (s.layout == 0) { // a commit-only save: the commit is HEAD, its tree both index and files
        s = SaveLayout{.commit = s.commit, .tree = s.tree, .head = s.commit, .index_tree = s.tree,
                       .identity = s.identity};
        return s;
    }
    auto tree_of = [&](const std::string& c) {
        return first_line_of(git_out(git_dir, {"rev-parse", "--verify", c + "^{tree}"}));
    };
    std::string empty_tree = first_line_of(git_out(git_dir, {"hash-object", "-t", "tree", "/dev/null"}));
    std::string head_tree = s.head.empty() ? empty_tree : tree_of(s.head);
    if (s.layout == 1 || s.index_commit.empty() || s.index_commit == "head") {
        s.index_tree = head_tree; // layout 1 recorded no index: HEAD's tree is the best guess
        s.index_commit.clear();
    } else if (s.index_commit == "worktree") {
        s.index_tree = s.tree;
        s.index_commit.clear();
    } else {
        s.index_tree = tree_of(s.index_commit);
    }
    return s;
}

void verify_layout(const fs::path& git_dir, const SaveLayout& save)
{
    std::vector<std::string> args = {"rev-list", "--objects", "--no-walk", save.commit};
    for (const auto& c : {save.index_commit, save.head})
        if (!c.empty())
            args.push_back(c);
    try {
        git_out(git_dir, args);
        for (const auto& n : save.nested)
            if (!n.commit.empty())
                verify_layout(git_dir, read_layout(git_dir, n.commit));
    } catch (const Error& e) {
        throw Error("the save " + save.commit.substr(0, 12) + " no longer verifies (" + e.what() +
                    "); nothing was changed");
    }
}

} // namespace guard
