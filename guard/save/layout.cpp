// Layout 2 (C1): what a save commit holds and how plain git reads it back.
#include "guard/save/layout.hpp"

#include "guard/save/report.hpp"
#include "guard/save/saveref.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

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

namespace {

// A save before any commit is written (C1): the index commit I when the index is its own,
// then S, whose parents and message name I once it is written.
struct SavePlan {
    std::optional<std::string> index_tree;    // I's tree; none: no I
    std::vector<std::string> index_parents;   // HEAD, when there is one
    std::string index_message;
    std::string tree;                         // S's
    std::vector<std::string> parents_before;  // HEAD
    std::vector<std::string> parents_after;   // T, N1..Nk, per-worktree refs
    std::string message_before;               // up to "Stranded-Index: "
    std::string index_word;                   // "head" or "worktree" when there is no I
    std::string message_after;

    std::string message(const std::string& index) const
    {
        return message_before + "Stranded-Index: " + (index_tree ? index : index_word) + "\n" + message_after;
    }
    std::vector<std::string> parents(const std::string& index) const
    {
        std::vector<std::string> all = parents_before;
        if (index_tree)
            all.push_back(index);
        all.insert(all.end(), parents_after.begin(), parents_after.end());
        return all;
    }
};

SavePlan plan_save(const Git& git, const Work& w, const Staged& st, const std::string& reason)
{
    SavePlan plan;
    // HEAD's tree unread (HEAD came from status): status's X column says it, no git asked.
    bool index_is_head = w.head_tree.empty() && w.head && w.index_is_head ? *w.index_is_head
                                                                          : st.index_tree == head_tree(git, w);
    std::string what = w.commits.empty() ? "uncommitted work" : "uncommitted work and commits";
    plan.message_before = header(w, what, reason);
    if (w.head)
        plan.parents_before.push_back(*w.head);
    plan.tree = st.worktree_tree;
    if (index_is_head) {
        plan.index_word = "head";
    } else if (st.index_tree == st.worktree_tree) {
        plan.index_word = "worktree";
    } else {
        plan.index_tree = st.index_tree;
        plan.index_parents = plan.parents_before;
        plan.index_message = "index on " + one_line(w.path.empty() ? w.branch : w.path) + "\n";
    }
    std::string& m = plan.message_after;
    m += "Stranded-Index-Tree: " + st.index_tree + "\n";
    for (const auto& path : w.unmerged)
        m += "Stranded-Unmerged: " + quote_path(path) + "\n";
    // What the save could not hold as its bytes is named, never silently left out (§4.1.1).
    for (const auto& u : st.unsaved)
        m += "Stranded-Unsaved: " + one_line(u.why) + " " + quote_path(u.path) + "\n";
    if (w.head && w.branch_tip && *w.branch_tip != *w.head &&
        git.run({"merge-base", "--is-ancestor", *w.branch_tip, *w.head}).status != 0) {
        plan.parents_after.push_back(*w.branch_tip);
        m += "Stranded-Branch-Tip: " + *w.branch_tip + "\n";
    }
    for (const auto& n : st.nested) {
        plan.parents_after.push_back(n.commit);
        m += "Stranded-Nested: " + n.commit + " " + quote_path(n.path) + "\n" +
             "Stranded-Nested-Head: " + n.head + " " + quote_path(n.path) + "\n" +
             "Stranded-Nested-Branch: " + one_line(n.branch) + " " + quote_path(n.path) + "\n";
    }
    for (const auto& [oid, name] : w.own_refs) {
        plan.parents_after.push_back(oid);
        m += "Stranded-Ref: " + oid + " " + name + "\n";
    }
    for (const auto& oid : w.reflog) {
        plan.parents_after.push_back(oid);
        m += "Stranded-Reflog: " + oid + "\n";
    }
    return plan;
}

// `$<variable>` as fast-import's raw date ("<seconds> <+hhmm>"): now, in the local zone,
// when unset, as git dates a commit; the raw and ISO 8601 forms with a zone, as tests and
// scripts pin dates, read here. Nothing for any other form: git reads it, in commit-tree.
std::optional<std::string> raw_date(const char* variable)
{
    const char* set = std::getenv(variable);
    std::string text = set ? set : "";
    if (text.empty()) {
        std::time_t now = std::time(nullptr);
        std::tm local{};
        localtime_r(&now, &local);
        int off = static_cast<int>(local.tm_gmtoff / 60);
        char zone[32];
        std::snprintf(zone, sizeof zone, "%c%02d%02d", off < 0 ? '-' : '+', std::abs(off) / 60, std::abs(off) % 60);
        return std::to_string(static_cast<long long>(now)) + " " + zone;
    }
    auto digits = [](const std::string& t, size_t at, size_t n) {
        return at + n <= t.size() && std::all_of(t.begin() + static_cast<long>(at), t.begin() + static_cast<long>(at + n),
                                                 [](char c) { return c >= '0' && c <= '9'; });
    };
    auto zone_at = [&](const std::string& t, size_t at) -> std::optional<int> { // minutes east
        if (t.size() == at + 1 && t[at] == 'Z')
            return 0;
        if (t.size() != at + 5 || (t[at] != '+' && t[at] != '-') || !digits(t, at + 1, 4))
            return std::nullopt;
        int minutes = std::stoi(t.substr(at + 1, 2)) * 60 + std::stoi(t.substr(at + 3, 2));
        return t[at] == '-' ? -minutes : minutes;
    };
    std::string raw = text[0] == '@' ? text.substr(1) : text;
    size_t space = raw.find(' ');
    if (space != std::string::npos && space >= 9 && digits(raw, 0, space) && zone_at(raw, space + 1))
        return raw; // "<seconds> <zone>", git's own raw form
    // "YYYY-MM-DD HH:MM:SS <zone>" or "YYYY-MM-DDTHH:MM:SS<zone>"
    if (!digits(text, 0, 4) || text.size() < 20 || text[4] != '-' || !digits(text, 5, 2) || text[7] != '-' ||
        !digits(text, 8, 2) || (text[10] != ' ' && text[10] != 'T') || !digits(text, 11, 2) || text[13] != ':' ||
        !digits(text, 14, 2) || text[16] != ':' || !digits(text, 17, 2))
        return std::nullopt;
    auto zone = zone_at(text, text[19] == ' ' ? 20 : 19);
    if (!zone)
        return std::nullopt;
    std::tm utc{};
    utc.tm_year = std::stoi(text.substr(0, 4)) - 1900;
    utc.tm_mon = std::stoi(text.substr(5, 2)) - 1;
    utc.tm_mday = std::stoi(text.substr(8, 2));
    utc.tm_hour = std::stoi(text.substr(11, 2));
    utc.tm_min = std::stoi(text.substr(14, 2));
    utc.tm_sec = std::stoi(text.substr(17, 2));
    long long seconds = static_cast<long long>(timegm(&utc)) - *zone * 60LL;
    char out[40];
    std::snprintf(out, sizeof out, "%lld %c%02d%02d", seconds, *zone < 0 ? '-' : '+', std::abs(*zone) / 60,
                  std::abs(*zone) % 60);
    return out;
}

// fast-import's ident lines for `id`, or nothing when fast-import would read them otherwise
// than commit-tree does (an empty name, a name or address with <, > or a newline).
std::optional<std::string> ident_lines(const Identity& id)
{
    auto plain = [](const std::string& s) { return s.find_first_of("<>\n") == std::string::npos; };
    if (id.name.empty() || !plain(id.name) || !plain(id.email))
        return std::nullopt;
    auto author = raw_date("GIT_AUTHOR_DATE"), committer = raw_date("GIT_COMMITTER_DATE");
    if (!author || !committer)
        return std::nullopt;
    std::string who = id.name + " <" + id.email + "> ";
    return "author " + who + *author + "\ncommitter " + who + *committer + "\n";
}

// One commit of the stream onto `ref`: the parents as given (`from` the first; `reset`
// first when there is none, so the commit is a root as commit-tree writes it), the whole
// tree replaced by `tree`.
std::string import_commit(const std::string& ref, int mark, const std::string& idents, const std::string& message,
                          const std::vector<std::string>& parents, const std::string& tree)
{
    std::string c = parents.empty() ? "reset " + ref + "\n" : "";
    c += "commit " + ref + "\nmark :" + std::to_string(mark) + "\n" + idents + "data " +
         std::to_string(message.size()) + "\n" + message + "\n";
    for (size_t i = 0; i < parents.size(); ++i)
        c += (i == 0 ? "from " : "merge ") + parents[i] + "\n";
    return c + "M 040000 " + tree + " \"\"\n\n";
}

// The lines of `out` that are object ids, in order.
std::vector<std::string> oid_lines(const std::string& out)
{
    std::vector<std::string> ids;
    for (const auto& line : split(out, '\n'))
        if (is_oid(line))
            ids.push_back(line);
    return ids;
}

} // namespace

std::string write_save(const Git& repo, const Work& w, const Staged& st, const Settings& settings,
                       const std::string& reason)
{
    Git git = with_identity(repo, settings);
    SavePlan plan = plan_save(git, w, st, reason);
    std::string index;
    if (plan.index_tree)
        index = commit_tree(git, *plan.index_tree, plan.index_parents, plan.index_message);
    return commit_tree(git, plan.tree, plan.parents(index), plan.message(index));
}

std::optional<std::string> write_save_at(const Git& git, const Work& w, const Staged& st, const Settings& settings,
                                         const std::string& reason, const std::string& ref)
{
    auto idents = ident_lines(parse_identity(settings.identity));
    if (!idents)
        return std::nullopt;
    SavePlan plan = plan_save(git, w, st, reason);
    auto save_commit = [&](const std::string& index) {
        // I by its mark: fast-import cannot look up by id a commit it has not yet written out.
        return import_commit(ref, 2, *idents, plan.message(index), plan.parents(":1"), plan.tree) +
               "get-mark :2\ndone\n";
    };
    std::string first = "feature done\n"; // a stream cut short writes no ref
    if (plan.index_tree) // I first, and its id asked: S's message names it
        first += import_commit(ref, 1, *idents, plan.index_message, plan.index_parents, *plan.index_tree) +
                 "get-mark :1\n";
    else
        first += save_commit("");
    std::string index;
    auto reply = [&](const std::string& out) -> std::optional<std::string> {
        if (out.find('\n') == std::string::npos)
            return std::nullopt; // I's id not read yet
        index = first_line_of(out);
        return is_oid(index) ? save_commit(index) : "";
    };
    std::vector<std::string> args = hooks_off(git);
    // fast-import refuses to move a ref to a commit that does not descend from it; the
    // caller listed the refs and found the name free.
    // unpackLimit=0: the stream's one or two commits stay in the pack fast-import writes;
    // loosening them would start unpack-objects, one git more (gc --auto gathers packs).
    args.insert(args.end(), {"-c", "fastimport.unpackLimit=0", "fast-import", "--quiet"});
    RunResult r = plan.index_tree ? git.run(args, first, reply) : git.run(args, first); // no I: one turn
    auto ids = oid_lines(r.out);
    if (r.status != 0 || ids.size() != (plan.index_tree ? 2U : 1U) || (plan.index_tree && ids[0] != index)) {
        spdlog::debug("fast-import did not write the save {} ({}); writing it with commit-tree", ref, first_line_of(r.err));
        return std::nullopt;
    }
    return ids.back();
}

} // namespace guard
