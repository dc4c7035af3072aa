// Where the hook front end finds things: the repository's common dir and its
// packed-refs, git's start time, the full binary and the chained hook (contract C5).
#include "places.h"

#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

// The git dir of the repository git runs the hook for. git runs a hook in the root of
// the working tree (in the git dir when bare) and exports GIT_DIR only when it was given
// one, so follow what git itself would find.
// Reads the first line of the file `path` (without its newline) into `out`, which may be
// `path`. Returns its length, or -1 when the file cannot be read whole. read_small, not
// stdio: the hook touches no stdio buffer on its fast path (each page is a fault, §11).
static long first_line(const char* path, char* out, size_t size)
{
    long n = read_small(path, out, size - 1);
    if (n < 0)
        return -1;
    out[n] = '\0';
    out[strcspn(out, "\n")] = '\0';
    return (long)strlen(out);
}

int git_dir(char* out, size_t size)
{
    const char* env = getenv("GIT_DIR");
    struct stat st;
    if (env && *env)
        return concat(out, size, env, (char*)NULL);
    if (stat(".git", &st) == 0 && S_ISDIR(st.st_mode))
        return concat(out, size, ".git", (char*)NULL);
    if (stat(".git", &st) != 0)
        return concat(out, size, ".", (char*)NULL);
    if (first_line(".git", out, size) < 8 || strncmp(out, "gitdir: ", 8) != 0)
        return -1;
    memmove(out, out + 8, strlen(out + 8) + 1);
    return 0;
}

// The common git dir: $GIT_COMMON_DIR, else what the git dir's `commondir` names.
int common_dir(char* out, size_t size)
{
    const char* env = getenv("GIT_COMMON_DIR");
    if (env && *env)
        return concat(out, size, env, (char*)NULL);
    if (git_dir(out, size) != 0)
        return -1;
    size_t dir_length = strlen(out);
    // `<git dir>/commondir`, named and then read in the rest of `out` after the git dir
    // (open(2) has taken the name before read(2) writes there).
    char* rest = out + dir_length + 1;
    size_t room = size - dir_length - 1;
    if (dir_length + 1 >= size || concat(rest, room, out, "/commondir", (char*)NULL) != 0)
        return -1;
    long n = first_line(rest, rest, room);
    if (n <= 0)
        return 0; // no commondir: the git dir is the common dir
    if (rest[0] == '/')
        memmove(out, rest, (size_t)n + 1);
    else
        out[dir_length] = '/'; // `<git dir>/<relative common dir>`, already in place
    return 0;
}

// When `pid` started (field 22 of /proc/<pid>/stat), or 0.
unsigned long long start_time(long pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    char* field = strrchr(text, ')');
    for (int i = 2; field && i < 22; ++i)
        field = strchr(field + 1, ' ');
    return field ? strtoull(field + 1, NULL, 10) : 0;
}

// C5: git-guard next to our resolved executable, then ../../bin/git-guard from there
// (the installed libexec layout), then the path in `git-guard.path` beside the hook.
// Writes every place tried into `tried` when none holds it.
int find_full(const char* hook_path, char* full, size_t size, char* tried, size_t tried_size)
{
    char dir[k_path_max];
    tried[0] = '\0';
    if (self_dir(dir, sizeof dir) == 0) {
        if (join_path(full, size, dir, "git-guard") == 0 && access(full, X_OK) == 0)
            return 0;
        snprintf(tried, tried_size, "%s", full);
        if (join_path(full, size, dir, "../../bin/git-guard") == 0 && access(full, X_OK) == 0)
            return 0;
        snprintf(tried + strlen(tried), tried_size - strlen(tried), ", %s", full);
    }
    const char* slash = strrchr(hook_path, '/');
    char sidecar[k_path_max];
    snprintf(sidecar, sizeof sidecar, "%.*s/git-guard.path", slash ? (int)(slash - hook_path) : 1,
             slash ? hook_path : ".");
    FILE* f = fopen(sidecar, "re");
    full[0] = '\0';
    if (f) {
        if (fgets(full, (int)size, f))
            full[strcspn(full, "\r\n")] = '\0';
        fclose(f);
        if (full[0] && access(full, X_OK) == 0)
            return 0;
    }
    snprintf(tried + strlen(tried), tried_size - strlen(tried), ", %s%s%s%s", sidecar,
             full[0] ? " (naming " : "", full, full[0] ? ")" : " (none)");
    return -1;
}

// The user's earlier hook beside `hook_path`, when one is installed and executable.
int find_chained(const char* hook_path, char* chained, size_t size)
{
    static const char k_name[] = "reference-transaction.guard-chained";
    const char* slash = strrchr(hook_path, '/');
    size_t length = slash ? (size_t)(slash - hook_path) : 1;
    if (length + sizeof k_name + 1 > size)
        return 0;
    memcpy(chained, slash ? hook_path : ".", length);
    chained[length] = '/';
    memcpy(chained + length + 1, k_name, sizeof k_name);
    struct stat st;
    return stat(chained, &st) == 0 && S_ISREG(st.st_mode) && access(chained, X_OK) == 0;
}

static int is_shell(const char* path)
{
    static const char* const k_shells[] = {"sh", "bash", "dash", "ksh", "mksh", "zsh", "ash"};
    const char* slash = strrchr(path, '/');
    const char* name = slash ? slash + 1 : path;
    for (size_t i = 0; i < sizeof k_shells / sizeof *k_shells; ++i)
        if (strcmp(name, k_shells[i]) == 0)
            return 1;
    return 0;
}

void chained_argv(const char* chained, const char* hook_path, const char* state, char* line, size_t size,
                  char* argv[7])
{
    // Sourced, the script sees the shell's $0; the path is spelt from $0 as git's is.
    static char source[] = ". \"${0%/*}/reference-transaction.guard-chained\"";
    static char dash_c[] = "-c";
    argv[0] = (char*)chained, argv[1] = (char*)state, argv[2] = NULL;
    FILE* f = fopen(chained, "re");
    if (!f)
        return;
    int got = fgets(line, (int)size, f) != NULL;
    fclose(f);
    if (!got || strncmp(line, "#!", 2) != 0)
        return;
    line[strcspn(line, "\r\n")] = '\0';
    char* words[3] = {NULL, NULL, NULL};
    int n = 0;
    for (char* w = strtok(line + 2, " \t"); w && n < 3; w = strtok(NULL, " \t"))
        words[n++] = w;
    // The kernel passes at most one argument after the interpreter: `env bash` is the usual.
    int via_env = n == 2 && strcmp(words[0], "/usr/bin/env") == 0;
    if (n == 0 || n > 2 || !(is_shell(words[0]) || (via_env && is_shell(words[1]))))
        return;
    int k = 0;
    argv[k++] = words[0];
    if (n == 2)
        argv[k++] = words[1];
    argv[k++] = dash_c;
    argv[k++] = source;
    argv[k++] = (char*)hook_path;
    argv[k++] = (char*)state;
    argv[k] = NULL;
}
