// The saves of contract C1, both namespaces: listing, finding, dropping.
#include "guard/save/stranded.hpp"

#include "guard/base/clock.hpp"
#include "guard/base/file.hpp"
#include "guard/save/backup.hpp"
#include "guard/save/bundles.hpp"
#include "guard/save/chain.hpp"
#include "guard/save/chain_index.hpp"
#include "guard/save/folded.hpp"
#include "guard/git/history.hpp"
#include "guard/git/published.hpp"
#include "guard/save/journal.hpp"
#include "guard/save/listing.hpp"
#include "guard/save/repair.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <ctime>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr const char* k_removal_prefix = "refs/heads/stranded/";
constexpr const char* k_in_place_prefix = "refs/stranded/";

// git's for-each-ref, one record per save: fields split by NUL, records ending in NUL + LF.
// `output`, when given, gets git's whole output when one for-each-ref listed every save
// (and stays "" when a broken save made it list them one by one).
std::vector<std::vector<std::string>> for_each_save(const fs::path& common_dir, const std::string& format,
                                                    std::string* output = nullptr)
{
    std::vector<std::string> args{find_real_git(), "--git-dir=" + common_dir.string(), "for-each-ref",
                                  "--format=" + format + "%00", k_removal_prefix, k_in_place_prefix};
    auto r = run(args);
    if (r.status != 0) {
        // One save naming a missing object fails the whole listing: list the others by
        // name, and say which is broken and how to remove it.
        std::vector<BrokenSave> broken;
        try {
            broken = broken_saves(common_dir);
        } catch (const Error&) {
        }
        if (broken.empty())
            throw Error("cannot list the saves: git for-each-ref: " + r.err);
        std::set<std::string> bad;
        for (const auto& b : broken) {
            bad.insert(b.ref);
            std::fprintf(stderr, "git-guard: warning: the save %s names %s, which is not in the object store "
                                 "(pruned); 'git guard repair' removes it\n", b.ref.c_str(), b.oid.c_str());
        }
        args.resize(4);
        for (const auto& b : save_ref_names(common_dir))
            if (!bad.count(b))
                args.push_back(b);
        if (args.size() == 4)
            return {};
        r = run(args);
        if (r.status != 0)
            throw Error("cannot list the saves: git for-each-ref: " + r.err);
    } else if (output) {
        *output = r.out;
    }
    std::vector<std::vector<std::string>> records(1);
    for (size_t start = 0; start < r.out.size();) {
        size_t end = r.out.find('\0', start);
        if (end == std::string::npos)
            break;
        std::string field = r.out.substr(start, end - start);
        start = end + 1;
        if (field.starts_with("\n") && records.back().empty())
            field.erase(0, 1);
        records.back().push_back(field);
        if (start < r.out.size() && r.out[start] == '\n') {
            records.emplace_back();
            ++start;
        }
    }
    if (records.back().empty())
        records.pop_back();
    return records;
}

long long from_iso(const std::string& iso)
{
    std::tm tm{};
    if (!strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%S", &tm))
        return 0;
    return static_cast<long long>(timegm(&tm));
}

// The stamp ending the ref's name (`YYYYMMDDTHHMMSS.mmmZ[-N]`) as ISO 8601, or "".
std::string stamp_time(const std::string& ref)
{
    std::string stamp = ref.substr(ref.rfind('/') + 1);
    std::tm tm{};
    if (stamp.size() < 19 || !strptime(stamp.substr(0, 15).c_str(), "%Y%m%dT%H%M%S", &tm))
        return "";
    char text[40];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
    return std::string(text) + "." + stamp.substr(16, 3) + "Z";
}

// `<name>` of `refs/…/stranded/<name>/<stamp>`: a branch or a tree's directory name.
std::string ref_source(const std::string& ref)
{
    std::string rest = ref.substr(ref.starts_with(k_removal_prefix) ? 20 : 14);
    return rest.substr(0, rest.rfind('/'));
}

// The newest save record of each ref, pointing into the journal as read.
using Recorded = std::unordered_map<std::string_view, const JournalEntry*>; // keys: the journal's own refs

void fill_from_journal(Save& s, const Recorded& saves)
{
    auto it = saves.find(s.ref);
    // Made here when this repository's journal recorded it; else it came from elsewhere.
    s.foreign = it == saves.end() || (!it->second->event.commit.empty() && it->second->event.commit != s.commit);
    if (it != saves.end()) {
        const auto& e = it->second->event;
        if (s.path.empty() && s.branch.empty()) {
            s.path = e.path;
            s.branch = e.branch;
        }
        if (s.reason.empty())
            s.reason = e.reason;
        if (s.time.empty())
            s.time = it->second->time;
    }
    if (s.path.empty() && s.branch.empty())
        s.branch = ref_source(s.ref); // saved before the journal: the name is all we know
    if (s.reason.empty())
        s.reason = "unknown (saved before the journal)";
}

Save make_save(std::vector<std::string>& f, const Recorded& saves)
{
    // f: ref, commit, committer time, trailers, body; ref and commit are moved out of it
    Save s;
    s.ref = std::move(f[0]);
    s.commit = std::move(f[1]);
    s.in_place = s.ref.starts_with(k_in_place_prefix);
    const std::string& trailers = f[3];
    std::string from = trailer_value(trailers, "Stranded-From");
    std::string layout = trailer_value(trailers, "Stranded-Layout");
    bool made = !from.empty() && !trailer_value(trailers, "Stranded-Head").empty();
    s.kind = made ? "tree" : "commits";
    s.layout = !made ? 0 : layout.empty() ? 1 : std::atoi(layout.c_str());
    if (made) {
        std::string branch = trailer_value(trailers, "Stranded-Branch");
        from.starts_with("branch ") ? void(s.branch = from.substr(7)) : void(s.path = from);
        if (s.branch.empty() && branch != "detached")
            s.branch = branch;
        s.reason = trailer_value(trailers, "Stranded-Reason");
        auto held = f[4].find("Held ");
        s.summary = held == std::string::npos ? "" : f[4].substr(held, f[4].find('\n', held) - held);
    } else {
        s.summary = "commits only: points at " + s.commit.substr(0, 12);
    }
    s.time = stamp_time(s.ref);
    fill_from_journal(s, saves);
    if (s.time.empty()) {
        s.time = utc_iso(static_cast<std::time_t>(std::atoll(f[2].c_str()))) + ".000Z";
    }
    s.unix_time = from_iso(s.time);
    return s;
}

bool matches(const Save& s, const ListOptions& o)
{
    if (s.in_place && !o.in_place)
        return false;
    if (!o.source.empty() && s.path.find(o.source) == std::string::npos &&
        s.branch.find(o.source) == std::string::npos)
        return false;
    return s.unix_time >= o.since;
}

// Every save, made from the refs, the chains and the journal; or, when none of those has
// changed since the last full listing, that listing (listing.hpp), given to `each` one by
// one. `made`, when given, gets the saves as made (none when the listing was read).
void each_save(const fs::path& common, const std::function<void(const Save&)>& each, std::vector<Save>* made = nullptr)
{
    std::string listed; // git's own answer: every save ref and chain, with its object id
    auto refs = for_each_save(common, "%(refname)%00%(objectname)%00%(committerdate:unix)%00"
                                      "%(trailers:only,unfold)%00%(contents:body)", &listed);
    MappedFile journal_file(journal_path(common));
    std::string_view journal_text = journal_file.bytes();
    RecordSettings settings = read_record_settings(common);
    // A mirror's bundles are files, not refs: the key does not hold them, so no listing.
    std::error_code ec;
    bool keep = !listed.empty() && !fs::exists(bundles_dir(common), ec) && !ec;
    ListingKey key = listing_key({listed, journal_text, settings.backup_remote});
    if (keep && read_listing(common, key, each))
        return;
    Recorded recorded; // the newest save record of each ref
    auto journal = parse_journal(journal_text);
    recorded.reserve(journal.size());
    for (const auto& e : journal)
        if (e.event.kind == "save" && !e.event.ref.empty())
            recorded[e.event.ref] = &e;
    auto pushed = backed_up(journal, settings.backup_remote);
    std::vector<Save> out;
    std::unordered_set<std::string> seen; // a save folded while its name stayed (a failed deletion) is listed once
    std::map<std::string, std::string> chains; // read by this one for-each-ref, walked above their index
    for (auto& f : refs) {
        if (f.size() >= 5 && is_chain_ref(f[0]))
            chains[f[0]] = f[1];
        if (f.size() < 5 || is_chain_ref(f[0]) || !seen.insert(f[0] + " " + f[1]).second)
            continue;
        Save s = make_save(f, recorded);
        if (!settings.backup_remote.empty())
            s.backed_up = pushed.count(s.ref + " " + s.commit) > 0;
        out.push_back(std::move(s));
    }
    for (auto& s : bundle_saves(common, journal))
        out.push_back(std::move(s));
    add_chained(out, seen, chain_records(common, chains), [&](auto& f) { return make_save(f, recorded); },
                settings.backup_remote.empty() ? nullptr : &pushed);
    if (keep)
        write_listing(common, key, out);
    if (made) {
        *made = std::move(out);
        return;
    }
    for (const auto& s : out)
        each(s);
}

std::vector<Save> all_saves(const fs::path& common)
{
    std::vector<Save> out;
    each_save(common, [&](const Save& s) { out.push_back(s); }, &out);
    return out;
}

} // namespace

std::vector<SaveRef> save_refs(const fs::path& common_dir)
{
    std::vector<SaveRef> out;
    for (const auto& f : for_each_save(common_dir, "%(refname)%00%(objectname)"))
        if (f.size() >= 2)
            out.push_back({f[0], f[1]});
    return out;
}

void for_each_listed(const fs::path& common, const ListOptions& options, const std::function<void(const Save&)>& each)
{
    each_save(common, [&](const Save& s) {
        if (matches(s, options))
            each(s);
    });
}

std::vector<Save> list_saves(const fs::path& common, const ListOptions& options)
{
    std::vector<Save> out = all_saves(common);
    std::erase_if(out, [&](const Save& s) { return !matches(s, options); });
    return out;
}

Save find_save(const fs::path& common, const std::string& name)
{
    std::vector<std::string> candidates = {name, "refs/heads/" + name, "refs/" + name,
                                           k_removal_prefix + name, k_in_place_prefix + name};
    auto saves = all_saves(common);
    for (const auto& c : candidates)
        for (const auto& s : saves)
            if (s.ref == c)
                return s;
    if (auto bundled = find_bundle_save(saves, name))
        return *bundled;
    throw Error("no save '" + name + "' (see 'git guard list --all')");
}

std::string drop_stranded(const fs::path& common, const std::string& name)
{
    Save s = find_save(common, name);
    if (!s.bundle.empty())
        return drop_bundle(common, s);
    if (!s.chain.empty())
        return drop_folded(common, s);
    auto argv = git_without_hooks(common);
    // No hook runs: ours refuses deleting a save with unique commits, and drop is how to let
    // one go. The old value makes it fail rather than delete a ref that moved meanwhile.
    for (const auto& word : {std::string("update-ref"), std::string("-d"), s.ref, s.commit})
        argv.push_back(word);
    auto r = run(argv);
    if (r.status != 0)
        throw Error("cannot drop " + s.ref + ": " + r.err);
    spdlog::warn("dropped {} (was {})", s.ref, s.commit);
    journal_record(common, {.kind = "drop", .ref = s.ref, .commit = s.commit, .path = s.path,
                            .branch = s.branch, .reason = "drop", .detail = s.reason});
    return s.ref;
}

std::vector<Save> drop_published(const fs::path& common)
{
    PublishedCheck check(common, read_settings(common));
    auto saves = list_saves(common, {.in_place = true});
    std::erase_if(saves, [](const Save& s) { return !s.bundle.empty(); }); // its commits may be in no store to judge
    std::vector<TipOf> tips;
    for (const auto& s : saves)
        tips.emplace_back(s.commit, s.branch);
    // All of them at once: one walk per candidate base, one merge-tree for the rest.
    auto published = published_tips(check, Git(common), tips);
    std::vector<Save> dropped;
    for (size_t i = 0; i < saves.size(); ++i)
        if (published[i])
            dropped.push_back(std::move(saves[i]));
    // Each one as listed, without finding it again: one transaction, one drop link per chain.
    drop_all(common, dropped);
    return dropped;
}

} // namespace guard
