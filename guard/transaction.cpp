// Reading git's hook input and the hook's settings.
#include "guard/transaction.hpp"

#include <cstdlib>
#include <string>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace guard {

namespace {

bool is_id(const std::string& v)
{
    return (v.size() == 40 || v.size() == 64) && v.find_first_not_of("0123456789abcdef") == std::string::npos;
}

bool is_zero(const std::string& v)
{
    return is_id(v) && v.find_first_not_of('0') == std::string::npos;
}

bool is_guarded(const std::string& ref)
{
    return ref.starts_with("refs/heads/") || ref.starts_with("refs/stranded/");
}

// `git config` for the keys the hook reads, in one call (a config libgit2 might not
// parse, or a repository it cannot open, still answers).
std::vector<std::pair<std::string, std::string>> read_config(const fs::path& git_dir)
{
    auto r = run_git_bounded(git_dir, {"config", "-z", "--get-regexp", "^(guard|remote)\\."}, "",
                             Clock::now() + std::chrono::seconds(10));
    std::vector<std::pair<std::string, std::string>> entries;
    if (!r)
        return entries;
    size_t at = 0;
    while (at < r->out.size()) {
        size_t end = r->out.find('\0', at);
        std::string item = r->out.substr(at, end - at);
        at = end == std::string::npos ? r->out.size() : end + 1;
        size_t nl = item.find('\n');
        entries.emplace_back(item.substr(0, nl), nl == std::string::npos ? "" : item.substr(nl + 1));
    }
    return entries;
}

} // namespace

Input parse_input(const std::string& text)
{
    Input in;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
        at = end == std::string::npos ? text.size() : end + 1;
        size_t a = line.find(' '), b = a == std::string::npos ? a : line.find(' ', a + 1);
        if (b == std::string::npos) {
            if (line.find("refs/heads/") != std::string::npos || line.find("refs/stranded/") != std::string::npos)
                in.unreadable.push_back(line);
            continue;
        }
        std::string old_value = line.substr(0, a), new_value = line.substr(a + 1, b - a - 1);
        std::string ref = line.substr(b + 1);
        bool clean = ref.find_first_of(std::string(" \r\0", 3)) == std::string::npos;
        if (is_id(new_value) && !is_zero(new_value))
            in.tx.written.push_back(new_value);
        if (!is_guarded(ref)) {
            if (is_zero(new_value))
                in.tx.other_deleted.push_back(ref);
            continue;
        }
        if (!clean || !(is_id(new_value) || new_value.starts_with("ref:")))
            in.unreadable.push_back(line);
        else if (is_zero(new_value) && old_value.starts_with("ref:"))
            in.tx.other_deleted.push_back(ref); // a symbolic ref holds no commits
        else if (is_zero(new_value) && is_id(old_value) && old_value.size() == new_value.size())
            in.tx.deletions.push_back({ref, is_zero(old_value) ? "" : old_value});
        else if (is_zero(new_value))
            in.unreadable.push_back(line);
    }
    return in;
}

HookSettings hook_settings(const fs::path& git_dir)
{
    HookSettings h;
    for (const auto& [key, value] : read_config(git_dir)) {
        if (key == "guard.enabled")
            h.settings.enabled = value == "true" || value == "yes" || value == "on" || value == "1";
        else if (key == "guard.baseref")
            h.settings.base_refs.push_back(value);
        else if (key == "guard.hooktimeout") {
            char* end = nullptr;
            long seconds = std::strtol(value.c_str(), &end, 10);
            if (end && !*end && seconds >= 0)
                h.timeout = std::chrono::seconds(seconds);
        } else if (key.starts_with("remote.") && key.ends_with(".mirror"))
            h.mirror = h.mirror || value == "true" || value == "fetch";
        else if (key.starts_with("remote.") && key.ends_with(".fetch")) {
            std::string dst = value.substr(value.find(':') == std::string::npos ? value.size() : value.find(':') + 1);
            h.mirror = h.mirror || dst == "refs/*" || dst.starts_with("refs/heads/");
        }
    }
    return h;
}

bool is_save_ref(const std::string& ref)
{
    return ref.starts_with("refs/heads/stranded/") || ref.starts_with("refs/stranded/");
}

} // namespace guard
