// The shim's one question before it forwards a call (DESIGN §0.4, §0.5): git's listing of
// the repository's guard.* keys, read as the caller's git reads them, which says whether
// the repository is guarded and is handed to the full binary as its settings.
#include "gate.h"

#include "enclosing.h"

#include <string.h>

// The repository's guard.*, hook.* and remotes' mirror/fetch entries as git listed them
// for the caller ("key\nvalue\0"…, `s_config_size` bytes): the full binary's settings,
// handed over so that it never reads them again (one config read per run). -1: not read
// whole (the full binary reads them itself).
static char s_config[64 * 1024];
static ssize_t s_config_size = -1;

// The last guard.enabled entry of the listing ("" when none), and whether it has a value.
static const char* last_enabled(size_t size, int* valued)
{
    static const char key[] = "guard.enabled";
    const char* found = "";
    for (size_t at = 0; at < size; at += strlen(s_config + at) + 1) {
        const char* entry = s_config + at;
        if (strncmp(entry, key, sizeof key - 1) == 0 && (entry[sizeof key - 1] == '\n' || !entry[sizeof key - 1])) {
            found = entry;
            *valued = entry[sizeof key - 1] == '\n';
        }
    }
    return found;
}

int guard_enabled(const char* real_git, const struct Call* call, int enclosing)
{
    static const char* const rest[] = {"-z", "--get-regexp",
                                       "^(guard|hook|filter)\\.|^remote\\..*\\.(mirror|fetch)$|^core\\.(fsmonitor|hookspath|filemode|autocrlf)$",
                                       NULL};
    size_t got = 0;
    int status = run_config(real_git, call, rest, s_config, sizeof s_config - 1, &got);
    if (status != 0 && status != 1)
        return -1;
    if (got >= sizeof s_config - 1)
        return -1; // not held whole: a later entry may be the last guard.enabled
    s_config[got] = '\0';
    s_config_size = (ssize_t)got;
    int valued = 0;
    const char* entry = last_enabled(got, &valued);
    if (!*entry) // unset here: a submodule or nested repository inherits (enclosing.c)
        return enclosing ? enclosing_guarded(real_git, call) : 0;
    const char* value = entry + strlen("guard.enabled") + 1;
    if (valued && strcmp(value, "true") == 0)
        return 1;
    if (valued && strcmp(value, "false") == 0)
        return 0;
    s_config_size = -1;
    return -1;
}


int listing_names_hooks(void)
{
    if (s_config_size < 0)
        return 1; // not read whole: the full binary asks git
    for (ssize_t at = 0; at < s_config_size; at += (ssize_t)strlen(s_config + at) + 1) {
        const char* key = s_config + at;
        if (strncmp(key, "hook.git-guard.event\n", 21) == 0 || strncmp(key, "hook.git-guard.command\n", 23) == 0)
            continue; // ours, as install registers it in a hub (install.cpp)
        if (strncmp(key, "hook.", 5) == 0 ||
            (strncmp(key, "core.hookspath", 14) == 0 && (key[14] == '\n' || !key[14])))
            return 1;
    }
    return 0;
}

const char* config_listing(ssize_t* size)
{
    *size = s_config_size;
    return s_config_size >= 0 ? s_config : NULL;
}
