// What keeps git from running a repository's programs (quiet.hpp). The filter names come
// from the config listing every decision reads already (guard_config lists filter.* and
// core.fsmonitor), so quieting a git costs no git of its own.
#include "guard/git/quiet.hpp"

#include "guard/git/config.hpp"

#include <set>

namespace guard {

namespace {

bool g_unattended = false;

// One entry as git >= 2.31 writes it into GIT_CONFIG_PARAMETERS: 'key'='value', each
// single-quoted as sq_quote does (' and ! closed, escaped and reopened).
std::string sq(const std::string& text)
{
    std::string out = "'";
    for (char c : text) {
        if (c == '\'' || c == '!')
            out += std::string("'\\") + c + "'";
        else
            out += c;
    }
    return out + "'";
}

} // namespace

void act_unattended() { g_unattended = true; }
bool unattended() { return g_unattended; }

std::string quiet_parameters(const std::filesystem::path& common)
{
    std::set<std::string> filters; // `filter.<name>.<key>`: the name may hold dots
    bool builtin_fsmonitor = false;
    for (const auto& [key, value] : guard_config(common)) {
        if (key.starts_with("filter.") && key.rfind('.') > 7)
            filters.insert(key.substr(7, key.rfind('.') - 7));
        else if (key == "core.fsmonitor") // the last value wins, as in git
            builtin_fsmonitor = value == "true" || value == "yes" || value == "on" || value == "1";
    }
    std::string params;
    auto add = [&](const std::string& key, const std::string& value) {
        params += (params.empty() ? "" : " ") + sq(key) + "=" + sq(value);
    };
    if (!builtin_fsmonitor)
        add("core.fsmonitor", "false");
    add("hook.post-index-change.enabled", "false");
    for (const auto& name : filters) {
        // An empty `process` makes git take neither `clean` nor `smudge` (convert.c: a set
        // `process` wins) and run nothing; not required, so no path fails for it.
        add("filter." + name + ".process", "");
        add("filter." + name + ".clean", "");
        add("filter." + name + ".smudge", "");
        add("filter." + name + ".required", "false");
    }
    return params;
}

} // namespace guard
