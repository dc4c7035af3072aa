// Reading git's hook input and the hook's settings.
#include "guard/modes/transaction.hpp"

#include <optional>
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
    return ref == "HEAD" || ref.starts_with("refs/heads/") || ref.starts_with("refs/stranded/");
}

// `git config <type> --get <key>` (or `--get-regexp`, -z), as git reads the value:
// `[guard] enabled` without a value is true, `1k` is 1024. Nothing when unset or invalid.
std::optional<std::string> typed(const fs::path& git_dir, const std::string& type, const std::string& key)
{
    auto r = run_git_bounded(git_dir, {"config", "--type=" + type, "--get", key}, "",
                             Clock::now() + std::chrono::seconds(10));
    if (!r || r->status != 0)
        return std::nullopt;
    return r->out.substr(0, r->out.find('\n'));
}

// `key` and value pairs from `git config -z [--type=<type>] --get-regexp <pattern>`;
// nothing when none is set; `failed` when git could not read them as `type`.
std::vector<std::pair<std::string, std::string>> entries(const fs::path& git_dir, const std::string& type,
                                                         const std::string& pattern, bool& failed)
{
    std::vector<std::string> args{"config", "-z"};
    if (!type.empty())
        args.push_back("--type=" + type);
    args.insert(args.end(), {"--get-regexp", pattern});
    auto r = run_git_bounded(git_dir, args, "", Clock::now() + std::chrono::seconds(10));
    failed = !r || (r->status != 0 && r->status != 1);
    std::vector<std::pair<std::string, std::string>> found;
    for (size_t at = 0; r && r->status == 0 && at < r->out.size();) {
        size_t end = r->out.find('\0', at);
        std::string item = r->out.substr(at, end - at);
        at = end == std::string::npos ? r->out.size() : end + 1;
        size_t nl = item.find('\n');
        found.emplace_back(item.substr(0, nl), nl == std::string::npos ? "" : item.substr(nl + 1));
    }
    return found;
}

std::chrono::seconds seconds_or(const std::optional<std::string>& value, std::chrono::seconds fallback)
{
    if (!value || value->empty() || value->find_first_not_of("0123456789") != std::string::npos)
        return fallback; // unset, invalid or negative: the default
    return std::chrono::seconds(std::stoll(*value));
}

// One guarded line: a deletion (new all zeros) or an update (a new id, or `ref:` of
// 2.46+) of a branch, a save or HEAD, whose old value is not symbolic (a symbolic ref
// holds no commits). `old` all zeros: git did not check it (prepare() reads it).
void add_guarded(const std::string& old_value, const std::string& new_value, const std::string& ref, Input& in)
{
    bool old_id = is_id(old_value) && (new_value.starts_with("ref:") || old_value.size() == new_value.size());
    if (old_value.starts_with("ref:"))
        in.tx.other_deleted.push_back(ref);
    else if (!old_id)
        in.unreadable.push_back(old_value + " " + new_value + " " + ref);
    else if (is_zero(new_value) || new_value != old_value)
        in.tx.deletions.push_back({ref, is_zero(old_value) ? "" : old_value, is_zero(new_value) ? "" : new_value});
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
            if (is_zero(new_value) || (is_id(new_value) && !is_zero(old_value)))
                in.tx.other_deleted.push_back(ref); // its old value holds nothing after this
            continue;
        }
        if (!clean || !(is_id(new_value) || new_value.starts_with("ref:")))
            in.unreadable.push_back(line);
        else
            add_guarded(old_value, new_value, ref, in);
    }
    return in;
}

HookSettings hook_settings(const fs::path& git_dir)
{
    HookSettings h;
    // The shim reads guard.enabled the same way (`git config --bool`): one reader per fact.
    h.settings.enabled = typed(git_dir, "bool", "guard.enabled") == "true";
    if (!h.settings.enabled)
        return h;
    h.timeout = seconds_or(typed(git_dir, "int", "guard.hookTimeout"), h.timeout);
    h.settings.lock_timeout = seconds_or(typed(git_dir, "int", "guard.lockTimeout"), h.settings.lock_timeout);
    bool failed = false;
    for (const auto& [key, value] : entries(git_dir, "bool", "^remote\\..*\\.mirror$", failed))
        h.mirror = h.mirror || value == "true";
    h.mirror = h.mirror || failed; // a value git cannot read: keep bundles, which no fetch prunes
    for (const auto& [key, value] : entries(git_dir, "", "^(guard\\.baseref|remote\\..*\\.fetch)$", failed)) {
        if (key == "guard.baseref")
            h.settings.base_refs.push_back(value);
        else {
            size_t colon = value.find(':');
            std::string dst = colon == std::string::npos ? "" : value.substr(colon + 1);
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
