// guard.backupRemote: every save pushed to a second place, never blocking the operation.
#include "guard/save/backup.hpp"

#include "guard/git/config.hpp"
#include "guard/git/quiet.hpp"
#include "guard/git/git.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"
#include "guard/save/stranded.hpp"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdlib>
#include <exception>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

int seconds_or(const std::string& text, int fallback)
{
    try {
        int value = std::stoi(text);
        return value > 0 ? value : fallback;
    } catch (const std::exception&) {
        return fallback;
    }
}

// Where a backup push goes: the remote's push URL, and the options that keep the push from
// writing remote-tracking refs here (refs/remotes/<remote>/stranded/… next to the user's
// own). A push to a URL writes none on git <= 2.55; newer git tracks it through the one
// configured remote whose push URL it is (git 93775e35b7). Each remote pushing to that URL
// is shown to the push with no URL at all, so none matches; the push itself goes to the
// URL, which no remote's settings reach.
struct PushTarget {
    std::string url;
    std::vector<std::string> options;
};

PushTarget push_target(const fs::path& common_dir, const std::string& remote)
{
    // `remote -v`: "<name>\t<url> (fetch|push)", URLs as git rewrites them (pushInsteadOf).
    auto r = run({find_real_git(), "--git-dir=" + common_dir.string(), "remote", "-v"});
    const std::string suffix = " (push)";
    std::vector<std::pair<std::string, std::string>> pushes; // name, push URL
    for (const auto& line : split(r.status == 0 ? r.out : "", '\n')) {
        auto tab = line.find('\t');
        if (tab == std::string::npos || !line.ends_with(suffix))
            continue;
        pushes.emplace_back(line.substr(0, tab), line.substr(tab + 1, line.size() - tab - 1 - suffix.size()));
    }
    PushTarget target{.url = remote, .options = {}};
    for (const auto& [name, url] : pushes)
        if (name == remote) {
            target.url = url; // the first, as `git remote get-url --push` names it
            break;
        }
    std::set<std::string> cleared;
    for (const auto& [name, url] : pushes)
        if (url == target.url && cleared.insert(name).second)
            for (auto key : {".url=", ".pushurl="})
                target.options.insert(target.options.end(), {"-c", "remote." + name + key});
    return target;
}

// The destination refs of `git push --porcelain` lines "<flag>\t<src>:<dst>\t<summary>" whose
// flag is a success: ' ', '*', '=' or '+'.
std::set<std::string> accepted(const std::string& porcelain)
{
    std::set<std::string> refs;
    std::istringstream in(porcelain);
    for (std::string line; std::getline(in, line);) {
        if (line.size() < 3 || line[1] != '\t' || std::string(" *=+").find(line[0]) == std::string::npos)
            continue;
        auto colon = line.find(':', 2), tab = line.find('\t', 2);
        if (colon != std::string::npos && tab != std::string::npos && tab > colon)
            refs.insert(line.substr(colon + 1, tab - colon - 1));
    }
    return refs;
}

// guard.onSave and guard.onSaveTimeout from the user's own config files only (system and
// global scope): an unattended save runs no command the repository's config names (DESIGN §15).
void read_user_on_save(const fs::path& common_dir, RecordSettings& s)
{
    auto r = run({find_real_git(), "--git-dir=" + common_dir.string(), "config", "-z", "--show-scope",
                  "--get-regexp", "^guard\\.onsave(timeout)?$"});
    auto fields = split(r.status == 0 ? r.out : "");
    for (size_t i = 0; i + 1 < fields.size(); i += 2) {
        if (fields[i] != "system" && fields[i] != "global")
            continue;
        auto [key, value] = config_entry(fields[i + 1]);
        if (key == "guard.onsave")
            s.on_save = value;
        else
            s.on_save_timeout_s = seconds_or(value, s.on_save_timeout_s);
    }
}

} // namespace

RecordSettings read_record_settings(const fs::path& common_dir)
{
    RecordSettings s;
    if (unattended())
        read_user_on_save(common_dir, s);
    try {
        // guard_config reads them once per process: the hook may save hundreds of refs in
        // one run, and each save asks for these keys twice (onSave, backup).
        for (const auto& [key, value] : guard_config(common_dir)) {
            if (key == "guard.onsave" && !unattended())
                s.on_save = value;
            else if (key == "guard.onsavetimeout" && !unattended())
                s.on_save_timeout_s = seconds_or(value, s.on_save_timeout_s);
            else if (key == "guard.backupremote")
                s.backup_remote = value;
            else if (key == "guard.backuptimeout")
                s.backup_timeout_s = seconds_or(value, s.backup_timeout_s);
        }
    } catch (const std::exception& e) {
        spdlog::warn("cannot read guard.onSave/guard.backupRemote: {}", e.what());
    }
    return s;
}

std::vector<std::string> git_without_hooks(const fs::path& common_dir)
{
    return {find_real_git(), "--git-dir=" + common_dir.string(), "-c", "core.hooksPath=/dev/null",
            "-c", "hook.reference-transaction.enabled=false", "-c", "hook.pre-push.enabled=false"};
}

std::set<std::string> backed_up(const std::vector<JournalEntry>& journal, const std::string& remote)
{
    std::set<std::string> out;
    for (const auto& e : journal)
        if (e.event.kind == "push" && e.event.ok && e.event.remote == remote)
            out.insert(e.event.ref + " " + e.event.commit);
    return out;
}

PushResult push_pending(const fs::path& common_dir)
{
    PushResult result;
    try {
        RecordSettings settings = read_record_settings(common_dir);
        if (settings.backup_remote.empty())
            return result;
        auto journal = read_journal(common_dir);
        auto done = backed_up(journal, settings.backup_remote);
        std::map<std::string, JournalEvent> saves; // each push record names its save's source
        for (const auto& e : journal)
            if (e.event.kind == "save")
                saves[e.event.ref] = e.event;
        std::map<std::string, std::string> pending; // ref -> commit
        for (const auto& s : save_refs(common_dir))
            if (!done.count(s.ref + " " + s.commit))
                pending[s.ref] = s.commit;
        if (pending.empty())
            return result;
        auto argv = git_without_hooks(common_dir);
        PushTarget target = push_target(common_dir, settings.backup_remote);
        argv.insert(argv.end(), target.options.begin(), target.options.end());
        for (auto word : {"push", "--porcelain", "--no-verify"}) // --quiet would hide the porcelain lines
            argv.emplace_back(word);
        argv.push_back(target.url);
        for (const auto& [ref, commit] : pending)
            argv.push_back(commit + ":" + ref); // the commit journaled, even if the ref moved since
        auto r = run(argv, {.env = {{"GIT_TERMINAL_PROMPT", "0"}},
                            .timeout_ms = settings.backup_timeout_s * 1000});
        auto ok = r.timed_out ? std::set<std::string>{} : accepted(r.out);
        result.error = r.timed_out ? "push to " + settings.backup_remote + " took longer than " +
                                         std::to_string(settings.backup_timeout_s) + " s"
                                   : r.err.substr(0, r.err.find('\n'));
        for (const auto& [ref, commit] : pending) {
            bool pushed = ok.count(ref) > 0;
            (pushed ? result.pushed : result.failed).push_back(ref);
            const JournalEvent& save = saves[ref];
            journal_append(common_dir, {.kind = "push", .ref = ref, .commit = commit, .path = save.path,
                                        .branch = save.branch, .reason = save.reason,
                                        .detail = pushed ? "" : result.error,
                                        .remote = settings.backup_remote, .ok = pushed});
        }
        if (result.failed.empty())
            result.error.clear();
        else
            spdlog::warn("backup push to {} failed for {} save(s): {}", settings.backup_remote,
                         result.failed.size(), result.error);
    } catch (const std::exception& e) {
        result.error = e.what();
        spdlog::warn("backup push failed: {}", e.what());
    }
    return result;
}

void push_in_background(const fs::path& common_dir)
{
    if (read_record_settings(common_dir).backup_remote.empty())
        return;
    std::string self;
    try {
        self = self_path();
    } catch (const std::exception&) {
    }
    if (fs::path(self).filename() != "git-guard") {
        push_pending(common_dir);
        return;
    }
    pid_t pid = ::fork();
    if (pid < 0) {
        spdlog::warn("cannot start the backup push: fork failed; the next save retries");
        return;
    }
    if (pid == 0) {
        ::setsid();
        int null = ::open("/dev/null", O_RDWR);
        for (int fd = 0; fd < 3; ++fd)
            ::dup2(null, fd);
        ::syscall(SYS_close_range, 3U, ~0U, 0U); // the tree's lock and every pipe stay with us
        // git's hook environment names the caller's repository, maybe relatively.
        for (const char* name : {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
                                 "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_PREFIX"})
            ::unsetenv(name);
        if (::fork() != 0)
            _exit(0); // the grandchild is nobody's child: no zombie, nobody waits
        ::execl(self.c_str(), "git-guard", "-C", common_dir.c_str(), "push", static_cast<char*>(nullptr));
        _exit(127);
    }
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
}

} // namespace guard
