// Layout 2 (C1): what a save commit holds and how plain git reads it back.
#include "guard/save/layout.hpp"

#include "guard/save/report.hpp"

#include <cstdio>

namespace guard {

namespace {

std::string one_line(std::string text)
{
    for (auto& ch : text)
        if (static_cast<unsigned char>(ch) < 0x20)
            ch = '?';
    return text;
}

// GIT_AUTHOR_* and GIT_COMMITTER_* for guard.identity ("Name <email>").
Git with_identity(const Git& git, const Settings& settings)
{
    Identity id = parse_identity(settings.identity);
    return git.with_env("GIT_AUTHOR_NAME", id.name)
        .with_env("GIT_AUTHOR_EMAIL", id.email)
        .with_env("GIT_COMMITTER_NAME", id.name)
        .with_env("GIT_COMMITTER_EMAIL", id.email);
}

std::string commit_tree(const Git& git, const std::string& tree, const std::vector<std::string>& parents,
                        const std::string& message)
{
    std::vector<std::string> args = {"-c", "i18n.commitEncoding=UTF-8", "commit-tree", "--no-gpg-sign", tree};
    for (const auto& p : parents)
        args.insert(args.end(), {"-p", p});
    args.insert(args.end(), {"-F", "-"});
    std::string id = first_line_of(git.out(args, "write the save commit", message));
    if (!is_oid(id))
        throw Error("write the save commit: git commit-tree gave no commit id");
    return id;
}

std::string head_tree(const Git& git, const Work& w)
{
    if (!w.head)
        return git.empty_tree();
    if (!w.head_tree.empty())
        return w.head_tree; // read with HEAD itself
    return first_line_of(git.out({"rev-parse", *w.head + "^{tree}"}, "read the tree of HEAD"));
}

std::string header(const Work& w, const std::string& what, const std::string& reason)
{
    std::string branch = w.branch.empty() ? "detached" : w.branch;
    std::string from = w.path.empty() ? "branch " + w.branch : w.path;
    return "stranded: " + what + " from " + one_line(from) + " (" + one_line(branch) + ")\n\n" +
           "Held " + summary(w) + ".\n\n" + "Stranded-Layout: 2\n" + "Stranded-From: " + one_line(from) +
           "\n" + "Stranded-Branch: " + one_line(branch) + "\n" +
           "Stranded-Head: " + w.head.value_or("unborn") + "\n" + "Stranded-Reason: " + one_line(reason) + "\n";
}

} // namespace

Identity parse_identity(const std::string& id)
{
    Identity parsed;
    auto open = id.find('<'), close = id.rfind('>');
    if (open != std::string::npos && close != std::string::npos && close > open) {
        parsed.name = id.substr(0, open);
        while (!parsed.name.empty() && parsed.name.back() == ' ')
            parsed.name.pop_back();
        parsed.email = id.substr(open + 1, close - open - 1);
    }
    return parsed;
}

std::string quote_path(const std::string& path)
{
    bool plain = true;
    for (unsigned char c : path)
        plain = plain && c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
    if (plain)
        return path;
    std::string out = "\"";
    for (unsigned char c : path) {
        const char* esc = c == '\a' ? "\\a" : c == '\b' ? "\\b" : c == '\t' ? "\\t" : c == '\n' ? "\\n"
                        : c == '\v' ? "\\v" : c == '\f' ? "\\f" : c == '\r' ? "\\r" : c == '"' ? "\\\""
                        : c == '\\' ? "\\\\" : nullptr;
        if (esc) {
            out += esc;
        } else if (c < 0x20 || c >= 0x7f) {
            char oct[8];
            std::snprintf(oct, sizeof oct, "\\%03o", c);
            out += oct;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

std::string write_save(const Git& repo, const Work& w, const Staged& st, const Settings& settings,
                       const std::string& reason)
{
    Git git = with_identity(repo, settings);
    std::string base = head_tree(git, w);
    std::string what = w.commits.empty() ? "uncommitted work" : "uncommitted work and commits";
    std::string message = header(w, what, reason);
    std::vector<std::string> parents;
    if (w.head)
        parents.push_back(*w.head);
    if (st.index_tree == base) {
        message += "Stranded-Index: head\n";
    } else if (st.index_tree == st.worktree_tree) {
        message += "Stranded-Index: worktree\n";
    } else {
        std::string index = commit_tree(git, st.index_tree, w.head ? std::vector{*w.head} : std::vector<std::string>{},
                                        "index on " + one_line(w.path.empty() ? w.branch : w.path) + "\n");
        parents.push_back(index);
        message += "Stranded-Index: " + index + "\n";
    }
    message += "Stranded-Index-Tree: " + st.index_tree + "\n";
    for (const auto& path : w.unmerged)
        message += "Stranded-Unmerged: " + quote_path(path) + "\n";
    if (w.head && w.branch_tip && *w.branch_tip != *w.head &&
        git.run({"merge-base", "--is-ancestor", *w.branch_tip, *w.head}).status != 0) {
        parents.push_back(*w.branch_tip);
        message += "Stranded-Branch-Tip: " + *w.branch_tip + "\n";
    }
    for (const auto& n : st.nested) {
        parents.push_back(n.commit);
        message += "Stranded-Nested: " + n.commit + " " + quote_path(n.path) + "\n" +
                   "Stranded-Nested-Head: " + n.head + " " + quote_path(n.path) + "\n" +
                   "Stranded-Nested-Branch: " + one_line(n.branch) + " " + quote_path(n.path) + "\n";
    }
    for (const auto& [oid, name] : w.own_refs) {
        parents.push_back(oid);
        message += "Stranded-Ref: " + oid + " " + name + "\n";
    }
    return commit_tree(git, st.worktree_tree, parents, message);
}

} // namespace guard
