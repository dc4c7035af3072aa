// What a form of an in-place destroyer loses, asked of git (DESIGN §0): `status
// --porcelain=v2`, limited to the command's pathspec, for tracked and untracked
// content; `diff-tree` and `cat-file` for the untracked files a rev would overwrite.
#include "guard/judge/scope.hpp"

#include "guard/base/error.hpp"
#include "guard/git/git.hpp"
#include "guard/base/pattern.hpp"
#include "guard/git/worktrees.hpp"

#include <array>
#include <optional>
#include <set>

namespace guard {

namespace {

constexpr size_t k_max_pathspecs = 20000; // beyond this, ask about the whole tree instead

} // namespace

namespace {

// The field `n` (0-based) of a space-separated status record.
std::string field(const std::string& record, int n)
{
    size_t at = 0;
    for (int k = 0; k < n && at != std::string::npos; ++k)
        at = record.find(' ', at) == std::string::npos ? std::string::npos : record.find(' ', at) + 1;
    return at == std::string::npos ? "" : record.substr(at, record.find(' ', at) - at);
}

// The record's path: what follows the first `n` fields.
std::string tail(const std::string& record, int n)
{
    size_t at = 0;
    for (int k = 0; k < n && at != std::string::npos; ++k)
        at = record.find(' ', at) == std::string::npos ? std::string::npos : record.find(' ', at) + 1;
    return at == std::string::npos ? "" : record.substr(at);
}

} // namespace

std::optional<std::string> resolve(const GitCall& call, const std::string& rev)
{
    std::string name = rev == "-" ? "@{-1}" : rev;
    auto r = ask_git(call, {"rev-parse", "-q", "--verify", name + "^{commit}"});
    if (r.status != 0)
        return std::nullopt;
    return first_line_of(r.out);
}

namespace {

struct StatusAsk {
    const std::vector<std::string>* pathspec = nullptr;
    bool untracked = false;
    bool ignored = false;
};

// git status, porcelain v2, whatever the caller's configuration says (DESIGN §0.1).
std::vector<std::string> status(const GitCall& call, const StatusAsk& ask, Destroyed& d)
{
    std::vector<std::string> args{"--no-optional-locks", "status", "--porcelain=v2", "-z",
                                  "--branch", "--no-ahead-behind", "--no-renames", "--ignore-submodules=none",
                                  ask.untracked ? "--untracked-files=all" : "--untracked-files=no"};
    if (ask.ignored)
        args.emplace_back("--ignored=traditional");
    args.emplace_back("--");
    if (ask.pathspec)
        args.insert(args.end(), ask.pathspec->begin(), ask.pathspec->end());
    auto r = ask_git(call, args);
    if (r.status != 0)
        throw Error("git status failed: " + first_line_of(r.err));
    std::vector<std::string> records;
    for (auto& rec : split(r.out)) {
        if (rec.starts_with("# branch.oid "))
            d.head = rec.substr(13) == "(initial)" ? "" : rec.substr(13);
        else if (rec.starts_with("# branch.head "))
            d.branch = rec.substr(14) == "(detached)" ? "" : rec.substr(14);
        else if (!rec.empty() && rec[0] != '#')
            records.push_back(std::move(rec));
    }
    return records;
}

} // namespace

std::vector<std::string> keep_ignored(const GitCall& call)
{
    std::vector<std::string> out;
    if (call.config) { // the front end's listing of the guard.* keys: one reader, read once
        for (const auto& [key, value] : *call.config)
            if (key == "guard.keepignored")
                out.push_back(value);
        return out;
    }
    auto r = ask_git(call, {"config", "--get-all", "guard.keepIgnored"});
    size_t at = 0;
    while (r.status == 0 && at < r.out.size()) {
        size_t end = r.out.find('\n', at);
        out.push_back(r.out.substr(at, end - at));
        at = end == std::string::npos ? r.out.size() : end + 1;
    }
    return out;
}

namespace {

// Sorts status records into what the scope loses. `untracked_ok` filters untracked ones.
void collect(const std::vector<std::string>& records, const Scope& scope, const PatternList& keep,
             const std::set<std::string>* untracked_ok, Destroyed& d)
{
    for (const auto& rec : records) {
        char kind = rec[0];
        if (kind == '1') {
            std::string xy = field(rec, 1);
            bool lost = (scope.worktree && xy[1] != '.') || (scope.index && xy[0] != '.');
            if (!lost)
                continue;
            std::string path = tail(rec, 8);
            if (field(rec, 2)[0] == 'S')
                d.whole_tree_why = "submodule " + path + " has changes of its own";
            d.paths.push_back({path, true, false, field(rec, 4), field(rec, 7), field(rec, 5), xy[0] != '.'});
        } else if (kind == 'u') {
            d.whole_tree_why = "unmerged " + tail(rec, 10);
        } else if (kind == '?' || kind == '!') {
            std::string path = rec.substr(2);
            if (kind == '!' && !keep.match(path))
                continue;
            if (untracked_ok && !untracked_ok->contains(path))
                continue;
            if (path.ends_with('/'))
                d.whole_tree_why = "nested repository " + path;
            d.paths.push_back({path, false, kind == '!', "", "", "", false});
        }
    }
}

std::vector<std::string> top_literal(const std::vector<std::string>& paths)
{
    std::vector<std::string> out;
    for (const auto& p : paths)
        out.push_back(":(top,literal)" + p);
    return out;
}

// The untracked paths among `candidates` (root-relative) that `rev` holds.
std::set<std::string> held_by(const GitCall& call, const std::string& rev,
                              const std::vector<std::string>& candidates)
{
    std::string input;
    for (const auto& p : candidates)
        input += rev + ":" + p + "\n";
    auto r = ask_git(call, {"cat-file", "--batch-check=%(objectname)"}, input);
    std::set<std::string> held;
    size_t at = 0;
    for (const auto& p : candidates) {
        size_t end = r.out.find('\n', at);
        std::string line = r.out.substr(at, end - at);
        at = end == std::string::npos ? r.out.size() : end + 1;
        if (r.status != 0 || !line.ends_with(" missing"))
            held.insert(p); // in doubt: held
    }
    return held;
}

// The paths that differ between HEAD and `rev`: where untracked files get overwritten.
std::optional<std::vector<std::string>> changed_paths(const GitCall& call, const Destroyed& d,
                                                      const std::string& rev)
{
    auto r = d.head.empty() ? ask_git(call, {"ls-tree", "-r", "-z", "--name-only", "--full-tree", rev})
                            : ask_git(call, {"diff-tree", "-r", "-z", "--name-only", "--no-renames",
                                             d.head, rev});
    if (r.status != 0)
        return std::nullopt;
    return split(r.out);
}

} // namespace

Destroyed ask_scope(const GitCall& call, const Scope& scope, const std::string& reason)
{
    Destroyed d;
    d.reason = reason;
    bool whole = scope.pathspec.empty();
    if (!whole && scope.pathspec.size() > k_max_pathspecs)
        throw Error("too many paths to ask about one by one");
    if (scope.worktree || scope.index) {
        auto tracked = status(call, {whole ? nullptr : &scope.pathspec, false, false}, d);
        collect(tracked, scope, PatternList({}), nullptr, d);
    }
    if (!scope.overwrite && !scope.any_untracked)
        return d;
    auto keep_list = keep_ignored(call);
    PatternList keep(keep_list);
    bool ignored = scope.ignored && !keep_list.empty();
    if (scope.any_untracked || !whole) {
        auto records = status(call, {whole ? nullptr : &scope.pathspec, true, ignored}, d);
        std::vector<std::string> untracked;
        for (const auto& rec : records)
            if (rec[0] == '?' || rec[0] == '!')
                untracked.push_back(rec.substr(2));
        std::set<std::string> ok = scope.any_untracked || untracked.empty()
                                       ? std::set<std::string>(untracked.begin(), untracked.end())
                                       : held_by(call, *scope.overwrite, untracked);
        collect(records, {.worktree = false}, keep, &ok, d);
        return d;
    }
    auto changed = changed_paths(call, d, *scope.overwrite);
    if (!changed || changed->size() > k_max_pathspecs)
        return ask_scope(call, {.worktree = scope.worktree, .index = scope.index, .any_untracked = true},
                         reason);
    if (changed->empty())
        return d;
    auto spec = top_literal(*changed);
    collect(status(call, {&spec, true, ignored}, d), {.worktree = false}, keep, nullptr, d);
    return d;
}

} // namespace guard
