// One reader of the repository's configuration: git's listing, read once, typed by git.
#include "guard/git/config.hpp"

#include "guard/git/bounded.hpp"
#include "guard/git/git.hpp"
#include "guard/git/process.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace guard {

namespace {

struct CachedConfig {
    std::string stamp;           // the config files as they were when read
    std::vector<fs::path> files; // what git read beyond config_files(): listed origins, includes
    ConfigEntries entries;
};

std::map<fs::path, CachedConfig>& config_cache()
{
    static std::map<fs::path, CachedConfig> cache;
    return cache;
}

// Device, inode, size and change time of each of `files` ("" for one that is missing).
std::string files_stamp(const std::vector<fs::path>& files)
{
    std::string stamp;
    for (const fs::path& file : files) {
        struct stat st {};
        if (::stat(file.c_str(), &st) == 0)
            stamp += std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) +
                     ":" + std::to_string(st.st_ctim.tv_sec) + "." + std::to_string(st.st_ctim.tv_nsec);
        stamp += ";";
    }
    return stamp;
}

std::string env_or(const char* name, const std::string& fallback)
{
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

// The files git reads for `git_dir` whatever they hold: the repository's own and its
// tree's, the global ones (GIT_CONFIG_GLOBAL, else ~/.gitconfig and the XDG file) and the
// system one. A file made where none was changes the stamp too.
std::vector<fs::path> config_files(const fs::path& git_dir)
{
    std::vector<fs::path> files{git_dir / "config", git_dir / "config.worktree", common_of(git_dir) / "config"};
    std::string home = env_or("HOME", "");
    if (const char* global = std::getenv("GIT_CONFIG_GLOBAL"))
        files.emplace_back(global);
    else if (!home.empty())
        files.insert(files.end(), {fs::path(home) / ".gitconfig",
                                   fs::path(env_or("XDG_CONFIG_HOME", home + "/.config")) / "git" / "config"});
    if (!std::getenv("GIT_CONFIG_NOSYSTEM"))
        files.emplace_back(env_or("GIT_CONFIG_SYSTEM", "/etc/gitconfig"));
    return files;
}

// The stamp of the config files git reads for `git_dir` itself: a write to one of them
// (by this process or another) asks git again.
std::string config_stamp(const fs::path& git_dir) { return files_stamp(config_files(git_dir)); }

// git `args` on `git_dir`: bounded by `deadline` when there is one (the hook).
RunResult ask(const fs::path& git_dir, const std::vector<std::string>& args, Deadline deadline)
{
    if (!deadline)
        return Git(git_dir).run(args);
    auto r = run_git_bounded(git_dir, args, "", *deadline);
    if (!r)
        return RunResult{-1, "", "git config did not answer in time"};
    return RunResult{r->status, r->out, r->err};
}

constexpr const char* k_handed = "GIT_GUARD_CONFIG";

// What binds a handed listing to one reading of `git_dir`: the directory itself (resolved,
// as the hook's front end resolves it), its config files' stamp and the `-c` git passes on.
std::string handoff_binding(const fs::path& git_dir, const std::string& identity)
{
    std::error_code ec;
    fs::path dir = fs::canonical(git_dir, ec);
    if (ec || identity.empty())
        return "";
    const char* params = std::getenv("GIT_CONFIG_PARAMETERS");
    return identity + '\0' + dir.string() + '\0' + config_stamp(dir) + '\0' + (params ? params : "") +
           std::string(1, '\0');
}

std::string& accepted_sender()
{
    static std::string identity;
    return identity;
}

// Whether `entries` may stand in for git's answer: only when they cannot weaken the guard.
bool strengthens_only(const ConfigEntries& entries)
{
    std::string enabled;
    for (const auto& [key, value] : entries) {
        if (key == "guard.enabled")
            enabled = value;
        if (key == "guard.baseref" || key == "guard.exclude")
            return false;
    }
    return enabled == "true";
}

// The environment holds no NUL: '%' and NUL are written as %25 and %00.
std::string escape_nul(const std::string& text)
{
    std::string out;
    for (char c : text)
        out += c == '%' ? "%25" : c == '\0' ? "%00" : std::string(1, c);
    return out;
}

std::string unescape_nul(const std::string& text)
{
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text.compare(i, 3, "%00") == 0)
            out += '\0', i += 2;
        else if (text.compare(i, 3, "%25") == 0)
            out += '%', i += 2;
        else
            out += text[i];
    }
    return out;
}

// The listing the shim handed down for `git_dir` as it is now; nothing when it was handed
// for another directory, another reading, or not at all.
std::optional<ConfigEntries> handed_config(const fs::path& git_dir)
{
    const char* handed = std::getenv(k_handed);
    if (!handed || !*handed || accepted_sender().empty())
        return std::nullopt;
    std::string text = unescape_nul(handed), binding = handoff_binding(git_dir, accepted_sender());
    if (binding.empty() || !text.starts_with(binding))
        return std::nullopt;
    ConfigEntries entries;
    for (const auto& word : split(text.substr(binding.size())))
        entries.push_back(config_entry(word));
    if (!strengthens_only(entries))
        return std::nullopt;
    return entries;
}

} // namespace

std::pair<std::string, std::string> config_entry(const std::string& word)
{
    auto nl = word.find('\n');
    return {word.substr(0, nl), nl == std::string::npos ? "" : word.substr(nl + 1)};
}

namespace {

bool plain(const std::string& raw, const std::string& type)
{
    if (type == "bool")
        return raw == "true" || raw == "false";
    return !raw.empty() && raw.size() < 10 && raw.find_first_not_of("0123456789") == std::string::npos;
}

// The file an include entry (`key` include.path or includeif.<condition>.path) of the file
// `origin` names, as git resolves it: `~/` is the home directory, a relative path is
// relative to `origin`'s directory. Every include counts, whether its condition holds or not.
std::optional<fs::path> included_file(const std::string& key, const std::string& value, const fs::path& origin)
{
    if (!(key == "include.path" || (key.starts_with("includeif.") && key.ends_with(".path"))) || value.empty())
        return std::nullopt;
    if (value.starts_with("~/"))
        return fs::path(env_or("HOME", "")) / value.substr(2);
    return origin.parent_path() / value;
}

// `git config -z --show-origin` output as entries, and in `files` what git read them from
// beyond `fixed` (config_files()): a file that set a listed key, and every included file.
ConfigEntries listed_entries(const std::string& out, const std::vector<fs::path>& fixed, std::vector<fs::path>& files)
{
    ConfigEntries entries;
    auto words = split(out);
    for (size_t i = 0; i + 1 < words.size(); i += 2) {
        fs::path origin = words[i].starts_with("file:") ? fs::path(words[i].substr(5)) : fs::path();
        auto entry = config_entry(words[i + 1]);
        if (!origin.empty())
            files.push_back(origin);
        if (auto included = included_file(entry.first, entry.second, origin))
            files.push_back(*included);
        else
            entries.push_back(std::move(entry));
    }
    std::erase_if(files, [&](const fs::path& f) { return std::find(fixed.begin(), fixed.end(), f) != fixed.end(); });
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    return entries;
}

} // namespace

const ConfigEntries& guard_config(const fs::path& git_dir, Deadline deadline)
{
    auto& cache = config_cache();
    std::vector<fs::path> fixed = config_files(git_dir);
    std::string stamp = files_stamp(fixed);
    if (auto it = cache.find(git_dir); it != cache.end() && it->second.stamp == stamp + files_stamp(it->second.files))
        return it->second.entries;
    if (auto handed = handed_config(git_dir))
        return (cache[git_dir] = {stamp, {}, std::move(*handed)}).entries;
    RunResult r = ask(git_dir, {"config", "-z", "--show-origin", "--get-regexp",
                                "^(guard|hook|filter)\\.|^remote\\..*\\.(mirror|fetch)$|^core\\.(fsmonitor|hookspath|filemode|autocrlf)$|"
                                "^include\\.path$|^includeif\\..*\\.path$"},
                      deadline);
    // Nothing listed when git cannot read them: every key reads as unset, as from git.
    std::vector<fs::path> files;
    ConfigEntries entries = listed_entries(r.out, fixed, files);
    if (r.status != 0 && r.status != 1) { // not read (1: none set): asked again next time
        static ConfigEntries unread;
        return unread = std::move(entries);
    }
    // The listed and included files are stamped after git read them: one changed in that
    // instant is read again only at its next change.
    std::string read_from = files_stamp(files);
    return (cache[git_dir] = {stamp + read_from, std::move(files), std::move(entries)}).entries;
}

void forget_config() { config_cache().clear(); }

void remember_config(const fs::path& git_dir, ConfigEntries entries)
{
    config_cache()[git_dir] = {config_stamp(git_dir), {}, std::move(entries)};
}

void accept_handoff_from(std::string identity) { accepted_sender() = std::move(identity); }

void hand_config_down(const fs::path& git_dir, const ConfigEntries& entries)
{
    std::string binding = handoff_binding(git_dir, process_identity(::getpid()));
    std::string text = binding;
    for (const auto& [key, value] : entries)
        text += key + "\n" + value + std::string(1, '\0');
    // Linux takes at most 128 KiB per environment string; far less leaves room for the rest.
    if (binding.empty() || text.size() > 32 * 1024)
        ::unsetenv(k_handed);
    else
        ::setenv(k_handed, escape_nul(text).c_str(), 1);
}

std::optional<std::string> typed_value(const fs::path& git_dir, const std::string& key, const std::string& raw,
                                       const std::string& type, Deadline deadline)
{
    if (plain(raw, type))
        return raw;
    RunResult r = ask(git_dir, {"config", "--type=" + type, "--get", key}, deadline);
    if (r.status != 0)
        return std::nullopt;
    return first_line_of(r.out);
}

std::chrono::seconds seconds_or(const std::optional<std::string>& value, std::chrono::seconds fallback)
{
    if (!value || value->empty() || value->size() > 12 || value->find_first_not_of("0123456789") != std::string::npos)
        return fallback; // unset, invalid or negative: the default
    return std::chrono::seconds(std::stoll(*value));
}

Settings read_settings(const fs::path& git_dir, Deadline deadline)
{
    Settings settings;
    std::optional<std::string> enabled, lock_worktrees, lock_timeout; // the last value wins, as in git
    for (const auto& [key, value] : guard_config(git_dir, deadline)) {
        if (key == "guard.enabled")
            enabled = value;
        else if (key == "guard.exclude")
            settings.exclude.push_back(value);
        else if (key == "guard.keepignored")
            settings.keep_ignored.push_back(value);
        else if (key == "guard.baseref")
            settings.base_refs.push_back(value);
        else if (key == "guard.identity" && !value.empty())
            settings.identity = value;
        else if (key == "guard.lockworktrees")
            lock_worktrees = value;
        else if (key == "guard.locktimeout")
            lock_timeout = value;
    }
    if (enabled)
        settings.enabled = typed_value(git_dir, "guard.enabled", *enabled, "bool", deadline) == "true";
    if (lock_worktrees)
        settings.lock_worktrees = typed_value(git_dir, "guard.lockWorktrees", *lock_worktrees, "bool", deadline) == "true";
    if (lock_timeout)
        settings.lock_timeout = seconds_or(typed_value(git_dir, "guard.lockTimeout", *lock_timeout, "int", deadline),
                                           settings.lock_timeout);
    return settings;
}

} // namespace guard
