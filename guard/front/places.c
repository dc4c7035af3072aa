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
int git_dir(char* out, size_t size)
{
    const char* env = getenv("GIT_DIR");
    struct stat st;
    if (env && *env)
        return snprintf(out, size, "%s", env) < (int)size ? 0 : -1;
    if (stat(".git", &st) == 0 && S_ISDIR(st.st_mode))
        return snprintf(out, size, ".git") < (int)size ? 0 : -1;
    if (stat(".git", &st) != 0)
        return snprintf(out, size, ".") < (int)size ? 0 : -1;
    char line[k_path_max] = "";
    FILE* f = fopen(".git", "re");
    if (!f || !fgets(line, sizeof line, f) || strncmp(line, "gitdir: ", 8) != 0) {
        if (f)
            fclose(f);
        return -1;
    }
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    return snprintf(out, size, "%s", line + 8) < (int)size ? 0 : -1;
}

// The common git dir: $GIT_COMMON_DIR, else what the git dir's `commondir` names.
int common_dir(char* out, size_t size)
{
    const char* env = getenv("GIT_COMMON_DIR");
    if (env && *env)
        return snprintf(out, size, "%s", env) < (int)size ? 0 : -1;
    char dir[k_path_max];
    if (git_dir(dir, sizeof dir) != 0)
        return -1;
    char path[k_path_max + 16], rel[k_path_max] = "";
    snprintf(path, sizeof path, "%s/commondir", dir);
    FILE* f = fopen(path, "re");
    if (f && fgets(rel, sizeof rel, f)) {
        rel[strcspn(rel, "\n")] = '\0';
        fclose(f);
        int n = rel[0] == '/' ? snprintf(out, size, "%s", rel) : snprintf(out, size, "%s/%s", dir, rel);
        return n < (int)size ? 0 : -1;
    }
    if (f)
        fclose(f);
    return snprintf(out, size, "%s", dir) < (int)size ? 0 : -1;
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
    const char* slash = strrchr(hook_path, '/');
    int length = slash ? (int)(slash - hook_path) : 1;
    int n = snprintf(chained, size, "%.*s/reference-transaction.guard-chained", length,
                     slash ? hook_path : ".");
    struct stat st;
    return n > 0 && (size_t)n < size && stat(chained, &st) == 0 && S_ISREG(st.st_mode) &&
           access(chained, X_OK) == 0;
}

