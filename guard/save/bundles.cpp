// A mirror's bundles as saves: listed, shown, restored and dropped by one handle each, read
// with git's own `bundle list-heads` and `bundle unbundle`.
#include "guard/save/bundles.hpp"

#include "guard/base/clock.hpp"
#include "guard/save/backup.hpp"
#include "guard/base/error.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"
#include "guard/git/trailers.hpp"
#include "guard/save/trust.hpp"
#include "guard/save/saveref.hpp"

#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr const char* k_prefix = "bundles/";
constexpr const char* k_heads = "refs/heads/";

// "<handle> <commit>" of every bundled save the journal records as dropped.
std::set<std::string> dropped(const std::vector<JournalEntry>& journal)
{
    std::set<std::string> out;
    for (const auto& e : journal)
        if (e.event.kind == "drop" && e.event.ref.starts_with(k_prefix))
            out.insert(e.event.ref + " " + e.event.commit);
    return out;
}

// (commit, ref) of each head the bundle names, as git reads it.
std::vector<std::pair<std::string, std::string>> heads_of(const fs::path& common, const fs::path& file)
{
    std::vector<std::pair<std::string, std::string>> out;
    std::istringstream in(git_out(common, {"bundle", "list-heads", file.string()}));
    for (std::string line; std::getline(in, line);) {
        auto space = line.find(' ');
        if (space != std::string::npos && line.compare(space + 1, 11, k_heads) == 0)
            out.emplace_back(line.substr(0, space), line.substr(space + 1));
    }
    return out;
}

// The bundle files, oldest first (their names are UTC stamps).
std::vector<fs::path> bundle_files(const fs::path& common)
{
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(common / "guard" / "bundles", ec))
        if (entry.path().extension() == ".bundle")
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

// The bundle's own time: it is written once, when the save is made.
std::pair<std::string, long long> file_time(const fs::path& file)
{
    struct stat st {};
    std::time_t t = ::stat(file.c_str(), &st) == 0 ? st.st_mtime : 0;
    return {utc_iso(t) + ".000Z", static_cast<long long>(t)};
}

Save make_save(const fs::path& file, const std::string& commit, const std::string& ref,
               const std::vector<JournalEntry>& journal)
{
    Save s;
    s.ref = bundle_handle(file, ref);
    s.commit = commit;
    s.branch = short_ref(ref);
    s.kind = "commits";
    s.bundle = file.string();
    s.summary = "commits only: kept in the bundle " + file.string();
    std::tie(s.time, s.unix_time) = file_time(file);
    s.foreign = true;
    for (const auto& e : journal)
        if (e.event.kind == "save" && e.event.ref == s.ref && e.event.commit == commit) {
            s.foreign = false;
            s.reason = e.event.reason;
        }
    if (s.reason.empty())
        s.reason = "branch delete (kept in a bundle: a mirror's fetch --prune)";
    return s;
}

} // namespace

fs::path bundles_dir(const fs::path& common)
{
    return common / "guard" / "bundles";
}

std::string bundle_handle(const fs::path& file, const std::string& ref)
{
    return k_prefix + file.stem().string() + "/" + short_ref(ref);
}

void journal_bundle_save(const fs::path& common, const fs::path& file, const std::string& ref,
                         const std::string& commit)
{
    journal_record(common, {.kind = "save", .ref = bundle_handle(file, ref), .commit = commit,
                            .branch = short_ref(ref), .reason = "branch delete",
                            .detail = "kept in the bundle " + file.string()});
}

std::vector<Save> bundle_saves(const fs::path& common, const std::vector<JournalEntry>& journal)
{
    auto files = bundle_files(common);
    auto gone = dropped(journal);
    std::set<std::string> seen; // a branch kept at one tip in two bundles is one save
    std::vector<Save> out;
    for (const auto& file : files) {
        try {
            for (const auto& [commit, ref] : heads_of(common, file))
                if (!gone.count(bundle_handle(file, ref) + " " + commit) && seen.insert(ref + " " + commit).second)
                    out.push_back(make_save(file, commit, ref, journal));
        } catch (const Error& e) {
            spdlog::warn("the bundle {} cannot be read: {}", file.string(), e.what());
        }
    }
    return out;
}

std::optional<Save> find_bundle_save(const std::vector<Save>& saves, const std::string& name)
{
    if (!name.ends_with(".bundle"))
        return std::nullopt;
    std::vector<const Save*> held;
    for (const auto& s : saves)
        if (!s.bundle.empty() && (s.bundle == name || fs::path(s.bundle).filename() == name ||
                                  fs::path(s.bundle) == absolute_path(name)))
            held.push_back(&s);
    if (held.size() > 1) {
        std::string names;
        for (const auto* s : held)
            names += "\n  " + s->ref;
        throw Error("the bundle " + name + " holds " + std::to_string(held.size()) + " saves; name one:" + names);
    }
    return held.empty() ? std::nullopt : std::optional<Save>(*held.front());
}

void load_bundle(const fs::path& common, const Save& save)
{
    // unbundle writes the pack and no ref: the store only gains objects, as a fetch would.
    git_out(common, {"bundle", "unbundle", save.bundle});
    git_out(common, {"cat-file", "-e", save.commit + "^{commit}"});
}

Restored restore_bundle(const fs::path& common, const Save& s)
{
    check_branch_name(s.branch, "the bundled branch");
    std::string ref = k_heads + s.branch;
    if (run({find_real_git(), "--git-dir=" + common.string(), "rev-parse", "-q", "--verify", ref}).status == 0)
        throw Error("a branch named '" + s.branch + "' exists; nothing was changed (the save stays in " +
                    s.bundle + ")");
    load_bundle(common, s);
    auto argv = git_without_hooks(common);
    for (const auto& word : {std::string("update-ref"), ref, s.commit, std::string()})
        argv.push_back(word); // must not exist: a branch made meanwhile is never moved
    if (auto r = run(argv); r.status != 0)
        throw Error("cannot create " + ref + ": " + r.err);
    return {s.ref, s.commit, "branch", {}, s.branch, s.commit, {}};
}

std::string drop_bundle(const fs::path& common, const Save& s)
{
    // Every copy of the save goes: the branch at that tip, in whichever bundle holds it.
    std::error_code ec;
    for (const auto& file : bundle_files(common)) {
        auto heads = heads_of(common, file);
        auto gone = dropped(read_journal(common));
        for (const auto& [commit, ref] : heads)
            if (commit == s.commit && short_ref(ref) == s.branch && !gone.count(bundle_handle(file, ref) + " " + commit))
                journal_record(common, {.kind = "drop", .ref = bundle_handle(file, ref), .commit = commit,
                                        .branch = s.branch, .reason = "drop", .detail = s.reason + "; " + file.string()});
        gone = dropped(read_journal(common));
        if (std::all_of(heads.begin(), heads.end(), [&](const auto& h) {
                return gone.count(bundle_handle(file, h.second) + " " + h.first) > 0;
            }))
            fs::remove(file, ec);
    }
    spdlog::warn("dropped {} (was {} in {})", s.ref, s.commit, s.bundle);
    return s.ref;
}

} // namespace guard
