#include "revive.h"

#include "common.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

// `$HOME/.local/share/git-guard/<name>`, as manifest.cpp's registry_file() places it.
static int state_path(char* out, size_t size, const char* name)
{
    const char* home = getenv("HOME");
    return concat(out, size, home && *home ? home : "", "/.local/share/git-guard/", name, (char*)NULL);
}

// Whether a repository the registry at `registry` names (one common dir per line) exists:
// its objects/ directory is there. A registry too large to read here counts as naming one.
static int registered_repository_exists(const char* registry)
{
    static char text[1 << 16];
    char objects[k_path_max + 16];
    int fd = open(registry, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got < 0 || (size_t)got == sizeof text - 1)
        return 1;
    text[got] = '\0';
    struct stat st;
    for (char *line = text, *end; *line; line = end + (*end != '\0')) {
        end = strchr(line, '\n');
        end = end ? end : line + strlen(line);
        if (end > line && snprintf(objects, sizeof objects, "%.*s/objects", (int)(end - line), line) < (int)sizeof objects &&
            stat(objects, &st) == 0 && S_ISDIR(st.st_mode))
            return 1;
    }
    return 0;
}

int watcher_is_dead(void)
{
    char path[k_path_max];
    struct stat st;
    if (state_path(path, sizeof path, "watch/lock") != 0)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0; // no watcher ever ran for this user: install starts the first
    // Taken for an instant only; the watcher retries its own lock for longer than that.
    int free_lock = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    if (!free_lock)
        return 0;
    if (state_path(path, sizeof path, "watch/stopped") == 0 && access(path, F_OK) == 0)
        return 0;
    if (state_path(path, sizeof path, "repos") != 0 || stat(path, &st) != 0 || st.st_size <= 0)
        return 0;
    // A watcher that ended finding none of the registry's repositories left the registry's
    // stamp (watch_loop.cpp, mark_idle): while the registry is as it was, none is started
    // again (install and guarded calls still start one).
    char stamp[96], idle[96];
    snprintf(stamp, sizeof stamp, "%lld %lld %ld\n", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
             (long)st.st_mtim.tv_nsec);
    if (state_path(path, sizeof path, "watch/idle") != 0)
        return 1;
    int idle_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (idle_fd < 0)
        return 1;
    ssize_t got = read(idle_fd, idle, sizeof idle - 1);
    close(idle_fd);
    idle[got > 0 ? got : 0] = '\0';
    if (strcmp(idle, stamp) != 0)
        return 1;
    // The stamp says the registry is unchanged, not that its repositories are still gone:
    // one made again at a path it names (a workspace re-cloned) is watched at once.
    return state_path(path, sizeof path, "repos") != 0 || registered_repository_exists(path);
}

// Whether `entry` (NAME=VALUE) is one of git's per-call variables (GIT_DIR, GIT_INDEX_FILE…),
// which would bind the watcher to the caller's repository: every GIT_* but the identities,
// GIT_CONFIG_NOSYSTEM and our own, as git/detached.cpp clears them for the full binary.
static int per_call(const char* entry)
{
    static const char* const k_kept[] = {"GIT_CONFIG_NOSYSTEM", "GIT_AUTHOR_", "GIT_COMMITTER_", "GIT_GUARD_"};
    if (strncmp(entry, "GIT_", 4) != 0)
        return 0;
    for (size_t i = 0; i < sizeof k_kept / sizeof *k_kept; ++i)
        if (strncmp(entry, k_kept[i], strlen(k_kept[i])) == 0)
            return 0;
    return 1;
}

static void clear_git_environment(void)
{
    char name[256];
    for (;;) {
        char** e = environ;
        while (*e && !per_call(*e))
            ++e;
        if (!*e)
            return;
        size_t len = strcspn(*e, "=");
        if (len >= sizeof name) {
            (*e)[0] = '_'; // a name too long to copy: made harmless in place
            continue;
        }
        memcpy(name, *e, len);
        name[len] = '\0';
        unsetenv(name);
    }
}

void start_watcher(const char* full)
{
    pid_t child = fork();
    if (child < 0)
        return;
    if (child == 0) {
        setsid();
        if (fork() != 0)
            _exit(0);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        for (int fd = 3; fd < 1024; ++fd)
            close(fd);
        if (chdir("/") != 0)
            _exit(127);
        clear_git_environment();
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execl(full, "git-guard", "watch", "--foreground", (char*)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
}
