// The audit record: one JSON line per event, appended, never rewritten.
#include "guard/save/journal.hpp"

#include "guard/base/file.hpp"

#include "guard/save/backup.hpp"
#include "guard/base/clock.hpp"
#include "guard/base/json.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"
#include "guard/judge/work.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <set>
#include <exception>
#include <fcntl.h>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace guard {

namespace {

int g_deferred = 0; // DeferBackup scopes alive in this process

// Backup pushes of this process, each in the background: the first save starts one at once;
// later ones within k_push_interval wait for the next one or for the process's normal exit
// (a process that execs git instead leaves them to the next guard run, which retries every
// save not yet backed up).
constexpr auto k_push_interval = std::chrono::seconds(2);
std::optional<std::chrono::steady_clock::time_point> g_last_push;
std::set<fs::path> g_unpushed;

void push_at_exit()
{
    for (const auto& dir : g_unpushed)
        push_in_background(dir);
    g_unpushed.clear();
}

void push_soon(const fs::path& common_dir)
{
    auto now = std::chrono::steady_clock::now();
    if (g_last_push && now - *g_last_push < k_push_interval) {
        if (g_unpushed.empty())
            std::atexit(push_at_exit);
        g_unpushed.insert(common_dir);
        return;
    }
    g_last_push = now;
    g_unpushed.erase(common_dir);
    push_in_background(common_dir);
}

std::string now_iso()
{
    return utc_millis("%Y-%m-%dT%H:%M:%S");
}

// guard.onSave gets the save's journal line on stdin, as git gives a hook its input. It is a
// user-configured command, so it runs through `sh -c` as git runs hooks and aliases.
void notify(const fs::path& common_dir, const JournalEvent& event, const std::string& line)
{
    RecordSettings settings = read_record_settings(common_dir);
    if (settings.on_save.empty())
        return;
    auto r = run({"/bin/sh", "-c", settings.on_save},
                 {.input = line + "\n", .timeout_ms = settings.on_save_timeout_s * 1000});
    if (!r.timed_out && r.status == 0) {
        spdlog::info("guard.onSave ran for {}", event.ref);
        return;
    }
    std::string why = r.timed_out ? "killed after guard.onSaveTimeout=" +
                                        std::to_string(settings.on_save_timeout_s) + " s"
                                  : "exited " + std::to_string(r.status) + ": " + r.err.substr(0, 200);
    spdlog::warn("guard.onSave failed for {}: {}", event.ref, why);
    journal_append(common_dir, {.kind = "notify", .ref = event.ref, .commit = event.commit,
                                .path = event.path, .branch = event.branch, .reason = "guard.onSave",
                                .detail = why, .ok = false});
}

// A commit id as text, whether the engine keeps it as a git_oid or as hex already.
[[maybe_unused]] std::string hex_of(const git_oid& oid) { return to_hex(oid); }
[[maybe_unused]] std::string hex_of(const std::string& hex) { return hex; }

} // namespace

fs::path journal_path(const fs::path& common_dir) { return common_dir / "guard" / "journal.jsonl"; }

std::string journal_json(const JournalEntry& entry)
{
    const JournalEvent& e = entry.event;
    JsonObject o;
    o.add("time", entry.time).add("kind", e.kind);
    o.add_raw("ref", json_or_null(e.ref)).add_raw("commit", json_or_null(e.commit));
    o.add_raw("path", json_or_null(e.path)).add_raw("branch", json_or_null(e.branch));
    o.add_raw("reason", json_or_null(e.reason)).add_raw("detail", json_or_null(e.detail));
    o.add_raw("remote", json_or_null(e.remote)).add("ok", e.ok).add("pid", entry.pid);
    o.add_raw("op", json_or_null(entry.op));
    return o.str();
}

std::string journal_append(const fs::path& common_dir, const JournalEvent& event)
{
    std::string line;
    try {
        if (!fs::is_directory(common_dir)) // deleted meanwhile: a record must not make it again
            throw std::runtime_error("the git dir is gone");
        fs::create_directories(common_dir / "guard");
        line = journal_json({event, now_iso(), static_cast<long long>(::getpid()), journal_operation()}) + "\n";
        // O_APPEND and one write: lines of concurrent processes never interleave, and
        // nothing already written is ever touched.
        int fd = ::open(journal_path(common_dir).c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            throw std::runtime_error(std::strerror(errno));
        ssize_t n = ::write(fd, line.data(), line.size());
        int saved_errno = errno;
        ::close(fd);
        if (n != static_cast<ssize_t>(line.size()))
            throw std::runtime_error(n < 0 ? std::strerror(saved_errno) : "short write");
    } catch (const std::exception& e) {
        spdlog::error("cannot write the journal {}: {}", journal_path(common_dir).string(), e.what());
    }
    if (!line.empty())
        line.pop_back();
    return line;
}

namespace {

// A save pointed at an existing commit knows only the tree's name; a save commit says where
// it came from (Stranded-From, Stranded-Branch): the record gets the absolute path.
JournalEvent with_source(const fs::path& common_dir, JournalEvent event)
{
    if (event.kind != "save" || event.path.empty() || fs::path(event.path).is_absolute() || event.commit.empty())
        return event;
    auto r = run({find_real_git(), "--git-dir=" + common_dir.string(), "log", "-1", "--no-show-signature",
                  "--format=%(trailers:key=Stranded-From,valueonly)%n%(trailers:key=Stranded-Branch,valueonly)",
                  event.commit});
    auto nl = r.out.find('\n');
    std::string from = r.status == 0 ? r.out.substr(0, nl) : "";
    if (from.empty() || !fs::path(from).is_absolute())
        return event;
    event.path = from;
    std::string branch = nl == std::string::npos ? "" : r.out.substr(nl + 1, r.out.find('\n', nl + 1) - nl - 1);
    if (event.branch.empty() && branch != "detached")
        event.branch = branch;
    return event;
}

} // namespace

void journal_record(const fs::path& common_dir, const JournalEvent& recorded)
{
    JournalEvent event = recorded;
    try {
        event = with_source(common_dir, recorded);
    } catch (const std::exception& e) {
        spdlog::warn("journal: cannot read where {} came from: {}", recorded.ref, e.what());
    }
    std::string line = journal_append(common_dir, event);
    if (event.kind != "save")
        return;
    try {
        notify(common_dir, event, line);
        if (g_deferred == 0)
            push_soon(common_dir);
    } catch (const std::exception& e) {
        spdlog::warn("after saving {}: {}", event.ref, e.what());
    }
}

namespace {

// One line's fields straight into `e` (no map per line). False when it is not a record.
bool read_entry(std::string_view line, JournalEntry& e)
{
    JournalEvent& v = e.event;
    bool ok = read_json_fields(line, [&](std::string_view key, std::string&& value) {
        static const std::map<std::string_view, std::string JournalEvent::*> k_fields = {
            {"kind", &JournalEvent::kind},     {"ref", &JournalEvent::ref},       {"commit", &JournalEvent::commit},
            {"path", &JournalEvent::path},     {"branch", &JournalEvent::branch}, {"reason", &JournalEvent::reason},
            {"detail", &JournalEvent::detail}, {"remote", &JournalEvent::remote}};
        if (auto it = k_fields.find(key); it != k_fields.end())
            v.*(it->second) = std::move(value);
        else if (key == "time")
            e.time = std::move(value);
        else if (key == "pid")
            e.pid = std::atoll(value.c_str());
        else if (key == "op")
            e.op = std::move(value);
        else if (key == "ok")
            v.ok = value != "false";
    });
    return ok && !v.kind.empty();
}

} // namespace

std::vector<JournalEntry> read_journal(const fs::path& common_dir)
{
    MappedFile file(journal_path(common_dir));
    return parse_journal(file.bytes());
}

std::vector<JournalEntry> parse_journal(std::string_view text)
{
    std::vector<JournalEntry> out;
    out.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
    int number = 0;
    for (size_t at = 0; at < text.size();) {
        size_t end = std::min(text.find('\n', at), text.size());
        std::string_view line(text.data() + at, end - at);
        at = end + 1;
        ++number;
        JournalEntry& e = out.emplace_back();
        if (!read_entry(line, e)) {
            out.pop_back();
            spdlog::warn("journal line {} is not a record; skipped", number);
        }
    }
    return out;
}

void journal_refusal(const fs::path& common_dir, const Work& work, const std::string& message,
                     const std::string& reason)
{
    try {
        fs::path common = common_dir;
        if (common.empty())
            common = guard::common_dir(open_repository(work.path).get());
        journal_append(common, {.kind = "refusal", .commit = work.head ? hex_of(*work.head) : "",
                                .path = work.path, .branch = work.branch, .reason = reason,
                                .detail = message});
    } catch (const std::exception& e) {
        spdlog::error("cannot journal the refusal for {}: {}", work.path, e.what());
    }
}

JournalEvent tip_save_event(const std::string& ref, const std::string& commit, const std::string& name,
                            const std::string& reason)
{
    bool branch = reason.find("branch") != std::string::npos;
    return {.kind = "save", .ref = ref, .commit = commit, .path = branch ? "" : name,
            .branch = branch ? name : "", .reason = reason, .detail = "commits only"};
}

DeferBackup::DeferBackup(fs::path common_dir) : m_common_dir(std::move(common_dir)) { ++g_deferred; }

DeferBackup::~DeferBackup()
{
    if (--g_deferred == 0)
        push_in_background(m_common_dir); // never throws
}

} // namespace guard
