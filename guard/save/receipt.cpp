#include "guard/save/receipt.hpp"

#include "guard/save/layout.hpp"

#include "guard/base/json.hpp"

#include <algorithm>
#include <map>

namespace guard {

namespace {

JsonObject& add_or_null(JsonObject& o, const char* key, const std::string& value)
{
    return o.add_raw(key, json_or_null(value));
}

std::string yes_no(const std::optional<bool>& b, const std::string& unset)
{
    return !b ? unset : *b ? "yes" : "no, not yet (git guard push)";
}

std::string source_text(const Save& s)
{
    return s.path.empty() ? "branch " + s.branch
                          : s.path + " (" + (s.branch.empty() ? "detached" : s.branch) + ")";
}

} // namespace

std::string save_line(const Save& s)
{
    std::string backup = s.backed_up && !*s.backed_up ? "  [not backed up]" : "";
    std::string foreign = s.foreign ? "  [from elsewhere]" : "";
    std::string bundle = s.bundle.empty() ? "" : "  " + s.bundle;
    return s.ref + "  " + s.commit.substr(0, 12) + "  " + s.time + "  " + source_text(s) + "  " +
           s.reason + bundle + backup + foreign;
}

std::string journal_line(const JournalEntry& e)
{
    const auto& ev = e.event;
    std::string source = !ev.path.empty() ? ev.path : !ev.branch.empty() ? "branch " + ev.branch : "-";
    std::string kind = ev.kind;
    kind.resize(std::max<size_t>(kind.size(), 8), ' ');
    return e.time + "  " + kind + " " + (ev.ref.empty() ? "-" : ev.ref) + "  " + source + "  " +
           ev.reason + (ev.ok ? "" : "  FAILED: " + ev.detail);
}

JsonObject save_json(const Save& s)
{
    JsonObject o;
    o.add("ref", s.ref).add("commit", s.commit);
    add_or_null(o, "path", s.path);
    add_or_null(o, "branch", s.branch);
    o.add("reason", s.reason).add("time", s.time).add("kind", s.kind);
    s.layout ? o.add("layout", static_cast<long long>(s.layout)) : o.add_null("layout");
    add_or_null(o, "summary", s.summary).add("in_place", s.in_place);
    s.backed_up ? o.add("backed_up", *s.backed_up) : o.add_null("backed_up");
    add_or_null(o, "bundle", s.bundle).add("foreign", s.foreign);
    return o;
}

JsonObject show_json(const Save& s, const SaveLayout& l, const SaveContents& c)
{
    JsonObject o = save_json(s);
    add_or_null(o, "head", l.head);
    add_or_null(o, "index", l.index_commit);
    std::vector<std::string> changes, nested;
    for (const auto& ch : c.changes)
        changes.push_back(JsonObject().add("path", ch.path).add("kind", ch.kind).str());
    for (const auto& n : l.nested) {
        JsonObject item;
        item.add("path", n.path);
        add_or_null(item, "commit", n.commit);
        add_or_null(item, "head", n.head);
        add_or_null(item, "branch", n.branch);
        nested.push_back(item.str());
    }
    o.add_raw("changes", json_array(changes)).add_strings("commits", c.commits);
    o.add_raw("nested", json_array(nested));
    return o;
}

JsonObject restored_json(const Restored& r)
{
    JsonObject o;
    o.add("ref", r.ref).add("commit", r.commit).add("kind", r.kind);
    add_or_null(o, "path", r.path.string());
    add_or_null(o, "branch", r.branch);
    o.add("head", r.head).add("detached", r.kind == "worktree" && r.branch.empty());
    o.add_strings("notes", r.notes);
    return o;
}

std::string show_text(const Save& s, const SaveLayout& l, const SaveContents& c)
{
    std::string out = s.ref + "\n";
    out += "  commit:    " + s.commit + "\n";
    out += "  from:      " + source_text(s) + "\n";
    out += "  when:      " + s.time + "\n";
    out += "  made:      " + std::string(s.foreign ? "elsewhere: this repository's journal does not record it, so "
                                                     "where and why are the save's own claim (its trailers)"
                                                   : "here (recorded in this repository's journal)") + "\n";
    if (s.foreign)
        out += "  claims:    " + (l.from.empty() ? std::string("no source (a plain commit)") : "made from " + l.from) +
               ", committed by " + l.identity + "\n";
    if (!s.bundle.empty())
        out += "  bundle:    " + s.bundle + "\n";
    out += "  why:       " + s.reason + (s.in_place ? " (an in-place save)" : "") + "\n";
    out += "  kind:      " + (s.kind == "tree" ? "uncommitted work, layout " + std::to_string(s.layout)
                                               : std::string("commits only")) + "\n";
    if (!l.head.empty())
        out += "  HEAD:      " + l.head + "\n";
    out += "  backed up: " + yes_no(s.backed_up, "no backup remote (guard.backupRemote)") + "\n";
    std::map<std::string, std::vector<std::string>> by_kind;
    for (const auto& ch : c.changes)
        by_kind[ch.kind].push_back(ch.path);
    for (const char* kind : {"staged", "modified", "deleted", "untracked", "nested"}) {
        auto it = by_kind.find(kind);
        if (it == by_kind.end())
            continue;
        out += "  " + std::string(kind) + " " + std::to_string(it->second.size()) + ":";
        for (size_t i = 0; i < it->second.size() && i < 10; ++i)
            out += (i ? ", " : " ") + it->second[i];
        out += it->second.size() > 10 ? ", ...\n" : "\n";
    }
    for (const auto& [why, path] : l.unsaved) // named, never silently left out (DESIGN §4.1.1)
        out += why == k_missing_blob ? "  not saved: staged entry " + path + " names a missing blob\n"
                                     : "  not saved: " + path + " (" + why + ")\n";
    if (!c.commits.empty())
        out += "  commits " + std::to_string(c.commits.size()) + " on no other ref: " +
               c.commits.front().substr(0, 12) + (c.commits.size() > 1 ? " ...\n" : "\n");
    out += "  take it back: git guard restore " + s.ref + (s.kind == "tree" || !s.path.empty() ? " [<path>]\n" : "\n");
    return out;
}

} // namespace guard
