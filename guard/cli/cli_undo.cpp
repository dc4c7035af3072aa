// `git guard log` and `git guard undo`: the journal read as events, and the last destroyer
// taken back through the one restorer (restore_save, restore_in_place).
#include "guard/cli/cli_parts.hpp"

#include "guard/base/error.hpp"
#include "guard/install/watch.hpp"
#include "guard/save/journal.hpp"
#include "guard/save/receipt.hpp"
#include "guard/save/restore.hpp"
#include "guard/save/stranded.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace fs = std::filesystem;

namespace guard::cli {

namespace {

// What an entry is to a reader of the log: "snapshot" (the watcher's periodic copy of a
// changed tree), "destructive" (a save before a destroyer, a refusal, a discard, a drop, a
// restore, an undo, the watcher's save of lost work) or "record" (a push, a notification).
std::string entry_class(const JournalEntry& e)
{
    const auto& k = e.event.kind;
    if (k == "save" && e.event.reason == "snapshot")
        return "snapshot";
    if (k == "push" || k == "notify")
        return "record";
    return "destructive";
}

// A save made because something was about to destroy work (not an explicit `git guard
// save`, a snapshot, or the sweep of commits gc would prune).
bool destroyer_save(const JournalEntry& e)
{
    const auto& v = e.event;
    return v.kind == "save" && v.reason != "snapshot" && v.reason != "save" && v.reason != k_sweep_reason &&
           !v.ref.empty();
}

// One destroyer: every save one invocation made (the journal's op id; records written
// before op ids existed are grouped by process, in a row).
struct Destroyer {
    std::string op;
    std::string time;
    std::string reason;
    std::vector<JournalEvent> saves;
    bool undone = false;
};

std::vector<Destroyer> destroyers(const fs::path& common)
{
    std::vector<Destroyer> out;
    std::map<std::string, size_t> by_op;
    std::vector<std::string> undone;
    for (const auto& e : read_journal(common)) {
        if (e.event.kind == "undo")
            undone.push_back(e.event.detail);
        if (!destroyer_save(e))
            continue;
        std::string op = !e.op.empty() ? e.op : "pid-" + std::to_string(e.pid);
        auto it = by_op.find(op);
        bool joins = it != by_op.end() && (!e.op.empty() || it->second + 1 == out.size());
        if (!joins) {
            if (e.op.empty() && it != by_op.end())
                op += "@" + e.time; // the same pid again later: another process
            by_op[op] = out.size();
            out.push_back({op, e.time, e.event.reason, {}, false});
            it = by_op.find(op);
        }
        out[it->second].saves.push_back(e.event);
    }
    for (auto& d : out)
        d.undone = std::find(undone.begin(), undone.end(), d.op) != undone.end();
    return out;
}

std::string source_of(const JournalEvent& e)
{
    return !e.path.empty() ? e.path : !e.branch.empty() ? "branch " + e.branch : e.ref;
}

std::string destroyer_line(const Destroyer& d)
{
    std::string text = d.time + "  " + d.reason + ": " + std::to_string(d.saves.size()) + " save(s): ";
    for (size_t i = 0; i < d.saves.size() && i < 3; ++i)
        text += (i ? ", " : "") + source_of(d.saves[i]);
    if (d.saves.size() > 3)
        text += ", ...";
    return text + "  [op " + d.op + "]" + (d.undone ? "  (undone)" : "");
}

// Branch saves first (a tree put back attaches to its branch), then trees, then in-place
// saves (their trees must exist).
int order_of(const Save& s)
{
    return s.in_place ? 2 : s.path.empty() ? 0 : 1;
}

std::string restored_line(const Restored& r)
{
    if (r.kind == "branch")
        return "branch " + r.branch + " at " + short_id(r.head);
    if (r.kind == "stash")
        return "a stash entry (" + short_id(r.commit) + ")";
    return r.path.string() + (r.kind == "in-place" ? " (in place" : " (") +
           (r.branch.empty() ? ", detached at " : (r.kind == "in-place" ? ", " : "") + r.branch + " at ") +
           short_id(r.head) + ")";
}

} // namespace

int run_log(const Invocation& inv)
{
    po::options_description options("git guard log [--snapshots] [--json]");
    options.add_options()("json", "each record as its JSON line, with \"class\": destructive, snapshot or record")(
        "snapshots", "the watcher's periodic snapshots too (left out by default)");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    bool snapshots = vm.count("snapshots") > 0;
    size_t hidden = 0;
    for (const auto& e : read_journal(inv.site.repository())) {
        std::string cls = entry_class(e);
        if (cls == "snapshot" && !snapshots && ++hidden)
            continue;
        if (vm.count("json")) {
            std::string line = journal_json(e);
            line.insert(line.size() - 1, ",\"class\":\"" + cls + "\"");
            std::printf("%s\n", line.c_str());
        } else {
            std::printf("%s\n", journal_line(e).c_str());
        }
    }
    if (hidden && !vm.count("json"))
        std::printf("(%zu snapshot(s) not shown: git guard log --snapshots)\n", hidden);
    return 0;
}

namespace {

// The saves of `d` as the restorer finds them, in the order they go back; a save that is
// gone (dropped) is named in `in_way`.
std::vector<Save> saves_of(const fs::path& common, const Destroyer& d, std::vector<std::string>& in_way)
{
    std::map<std::string, Save> listed; // one listing for all: find_save lists every save each time
    for (auto& s : list_saves(common, {.in_place = true}))
        listed.emplace(s.ref, std::move(s));
    std::vector<Save> out;
    for (const auto& e : d.saves) {
        try {
            auto it = listed.find(e.ref);
            out.push_back(it != listed.end() ? it->second : find_save(common, e.ref));
        } catch (const Error& err) {
            in_way.push_back("the save " + e.ref + " is gone (dropped?): " + err.what());
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const Save& a, const Save& b) { return order_of(a) < order_of(b); });
    return out;
}

int print_list(const std::vector<Destroyer>& all)
{
    if (all.empty())
        std::printf("nothing to undo: the journal records no save made before a destroyer\n");
    size_t shown = 0;
    for (auto it = all.rbegin(); it != all.rend() && shown < 20; ++it, ++shown)
        std::printf("%s\n", destroyer_line(*it).c_str());
    if (!all.empty())
        std::printf("git guard undo takes back the newest; git guard undo --op <op> another\n");
    return 0;
}

// The newest destroyer (`op` empty), or the one named. The newest only: were it undone
// already, an older one is no "last destroyer" (a destroyer whose work an earlier save held
// already journals no save of its own, so it cannot be told apart from nothing).
const Destroyer* chosen(const std::vector<Destroyer>& all, const std::string& op)
{
    if (op.empty())
        return all.empty() ? nullptr : &all.back();
    for (auto it = all.rbegin(); it != all.rend(); ++it)
        if (it->op == op)
            return &*it;
    throw UsageError("no destroyer with op " + op + " in the journal (see 'git guard undo --list')");
}

// Puts every save of `saves` back; after a failure midway, says what went back and stops.
int put_back(const Invocation& inv, const std::vector<Save>& saves, const Destroyer& d)
{
    size_t done = 0;
    for (const auto& s : saves) {
        try {
            Restored r = s.in_place ? restore_in_place(inv.site, s)
                                    : restore_save(inv.site, s, {.recreate_branch = true});
            ++done;
            if (inv.verbose || saves.size() <= 5)
                std::printf("put back %s from %s\n", restored_line(r).c_str(), r.ref.c_str());
            for (const auto& note : r.notes)
                std::fprintf(stderr, "note: %s\n", note.c_str());
        } catch (const Error& e) {
            std::fprintf(stderr, "git-guard: undo stopped at %s after putting back %zu of %zu: %s\n", s.ref.c_str(),
                         done, saves.size(), e.what());
            return 1;
        }
    }
    journal_append(inv.site.repository(), {.kind = "undo", .reason = "undo", .detail = d.op});
    std::printf("undid %s of %s: %zu save(s) put back%s; the saves stay (git guard drop <ref> once you are happy)\n",
                d.reason.c_str(), d.time.c_str(), done,
                inv.verbose || saves.size() <= 5 ? "" : " (git guard -v undo lists each; git guard log has them)");
    return 0;
}

} // namespace

int run_undo(const Invocation& inv)
{
    po::options_description options("git guard undo [--list] [--op OP]");
    options.add_options()("list", "the recent destroyers undo can take back, newest first")(
        "op", po::value<std::string>(), "take back this destroyer (its op, from --list) instead of the newest");
    auto vm = parse(inv, options, {});
    if (wants_help(vm, options))
        return 0;
    const fs::path& common = inv.site.repository();
    auto all = destroyers(common);
    if (vm.count("list"))
        return print_list(all);
    const Destroyer* d = chosen(all, vm.count("op") ? vm["op"].as<std::string>() : "");
    if (!d) {
        std::printf("nothing to undo: the journal records no save made before a destroyer\n");
        return 0;
    }
    if (d->undone && !vm.count("op")) {
        std::printf("nothing to undo: the last destroyer (%s of %s) was undone already; git guard undo --list "
                    "shows the older ones, git guard undo --op <op> takes one back\n", d->reason.c_str(), d->time.c_str());
        return 0;
    }
    std::vector<std::string> in_way;
    auto saves = saves_of(common, *d, in_way);
    for (const auto& s : saves)
        for (auto& o : restore_obstacles(inv.site, s))
            in_way.push_back(std::move(o));
    if (!in_way.empty()) {
        std::fprintf(stderr, "git-guard: refused to undo %s of %s; nothing was changed. In the way:\n", d->reason.c_str(),
                     d->time.c_str());
        for (const auto& o : in_way)
            std::fprintf(stderr, "  %s\n", o.c_str());
        journal_append(common, {.kind = "refusal", .reason = "undo", .detail = d->op + ": " + in_way.front()});
        return 1;
    }
    return put_back(inv, saves, *d);
}

} // namespace guard::cli
