// Reading git's hook input and the hook's settings.
#include "guard/modes/transaction.hpp"

#include "guard/base/error.hpp"
#include "guard/front/lines.h"

#include <cstdlib>
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

Input read_classified(const std::string& text)
{
    Input in;
    for (size_t at = 0; at < text.size();) {
        size_t end = text.find('\n', at);
        std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
        at = end == std::string::npos ? text.size() : end + 1;
        if (line.size() < 2)
            continue;
        char kind = line[0];
        line.erase(0, 2);
        if (kind == 'X') {
            in.unreadable.push_back(line);
            continue;
        }
        // The front end wrote it only with its three fields: `<old> <new> <ref>`.
        size_t a = line.find(' '), b = a == std::string::npos ? a : line.find(' ', a + 1);
        if (b == std::string::npos)
            continue;
        std::string old_value = line.substr(0, a), new_value = line.substr(a + 1, b - a - 1);
        std::string ref = line.substr(b + 1);
        if (is_id(new_value) && !is_zero(new_value))
            in.tx.written.push_back(new_value);
        if (kind == 'D' || kind == 'U')
            add_guarded(old_value, new_value, ref, in);
        else if (kind == 'H' || is_zero(new_value) || (is_id(new_value) && !is_zero(old_value)))
            in.tx.other_deleted.push_back(ref); // its old value holds nothing after this
    }
    return in;
}

Input parse_input(const std::string& text)
{
    // The front end's own classifier (front/lines.c), run here on `text`: one parser.
    use_input(text.data(), text.size());
    size_t size = 0;
    char* classified = classified_input(&size);
    use_input(nullptr, 0);
    if (!classified)
        throw Error("cannot classify the ref updates: out of memory");
    std::string copy(classified, size);
    std::free(classified);
    return read_classified(copy);
}

HookSettings hook_settings(const fs::path& git_dir)
{
    HookSettings h;
    // One `git config` for every key (config.hpp), typed as git types them, under a bound.
    Deadline deadline = Clock::now() + std::chrono::seconds(10);
    h.settings = read_settings(git_dir, deadline);
    if (!h.settings.enabled)
        return h;
    for (const auto& [key, value] : guard_config(git_dir, deadline)) {
        if (key == "guard.hooktimeout")
            h.timeout = seconds_or(typed_value(git_dir, key, value, "int", deadline), std::chrono::seconds(30));
        else if (key.starts_with("remote.") && key.ends_with(".mirror")) // unreadable: keep bundles
            h.mirror = h.mirror || typed_value(git_dir, key, value, "bool", deadline).value_or("true") == "true";
        else if (key.starts_with("remote.") && key.ends_with(".fetch")) {
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
