#include "execpath.h"

#include "call.h"
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char k_marker[] = ".git-guard-real";
// A push into a local repository runs git-receive-pack from the exec path: through the
// shim, so the receiving repository's hook is put back when the pusher's config drops it.
static const char k_receive_pack[] = "git-receive-pack";
// Bumped when what a mirror holds changes: an older shim's mirror is not reused.
static const char k_layout[] = "mirror-2";

static uint64_t fnv(uint64_t hash, const void* data, size_t size)
{
    const unsigned char* p = data;
    for (size_t i = 0; i < size; ++i)
        hash = (hash ^ p[i]) * 1099511628211u;
    return hash;
}

static uint64_t hash_file(uint64_t hash, const char* path)
{
    struct stat st;
    hash = fnv(hash, path, strlen(path) + 1);
    if (stat(path, &st) == 0) {
        hash = fnv(hash, &st.st_dev, sizeof st.st_dev);
        hash = fnv(hash, &st.st_ino, sizeof st.st_ino);
        hash = fnv(hash, &st.st_size, sizeof st.st_size);
        hash = fnv(hash, &st.st_mtim, sizeof st.st_mtim);
    }
    return hash;
}

static int make_dir(const char* path)
{
    return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

// The per-user cache's exec-path directory, created when missing, into `dir`.
static const char* cache_state_dir(char* dir, size_t size)
{
    const char* cache = getenv("XDG_CACHE_HOME");
    const char* home = getenv("HOME");
    char base[k_path_max];
    if (cache && *cache)
        snprintf(base, sizeof base, "%s", cache);
    else if (home && *home)
        snprintf(base, sizeof base, "%s/.cache", home);
    else
        return dir[0] = '\0', NULL;
    if (join_path(dir, size, base, "git-guard") != 0 || make_dir(base) != 0 || make_dir(dir) != 0 ||
        join_path(dir, size, base, "git-guard/exec-path") != 0 || make_dir(dir) != 0)
        return dir[0] = '\0', NULL;
    return dir;
}

static __attribute__((noinline)) const char* slow_state_dir(char** found)
{
    char dir[k_path_max];
    return cache_state_dir(dir, sizeof dir) ? (*found = strdup(dir)) : NULL;
}

// <shim dir>/exec-path, else the per-user cache; created when missing.
static const char* state_dir(void)
{
    static char* found;
    if (found)
        return found;
    const char* self = self_exe();
    const char* slash = self ? strrchr(self, '/') : NULL;
    size_t n = slash ? (size_t)(slash - self) : 0;
    char* dir = malloc(n + sizeof "/exec-path");
    if (dir && slash) {
        memcpy(dir, self, n);
        memcpy(dir + n, "/exec-path", sizeof "/exec-path");
        if (access(dir, W_OK) == 0 || (make_dir(dir) == 0 && access(dir, W_OK) == 0))
            return found = dir;
    }
    free(dir);
    return slow_state_dir(&found);
}

// Reads the link `path` into `out`. Returns 0, or -1.
static int read_link(const char* path, char* out, size_t size)
{
    ssize_t n = readlink(path, out, size - 1);
    if (n < 0 || (size_t)n >= size - 1)
        return -1;
    out[n] = '\0';
    return 0;
}

// Creates the link `path` -> `target` atomically (a temporary link renamed over it).
static void write_link(const char* path, const char* target)
{
    char temp[k_path_max];
    if (snprintf(temp, sizeof temp, "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof temp)
        return;
    unlink(temp);
    if (symlink(target, temp) != 0 || rename(temp, path) != 0)
        unlink(temp);
}

// `real_git --exec-path`, with the caller's environment (GIT_EXEC_PATH is unset here).
static int ask_git(const char* real_git, char* out, size_t size)
{
    char* argv[] = {(char*)real_git, (char*)"--exec-path", NULL};
    size_t got = 0;
    if (run_captured(argv, out, size - 1, &got) != 0 || got == 0 || got >= size - 1)
        return -1;
    out[got] = '\0';
    if (out[got - 1] == '\n')
        out[got - 1] = '\0';
    return out[0] == '/' ? 0 : -1;
}

int real_exec_path(const char* real_git, char* real, size_t size, int* ours)
{
    char marker[k_path_max];
    const char* env = getenv("GIT_EXEC_PATH");
    *ours = 0;
    if (env && *env) {
        if (join_path(marker, sizeof marker, env, k_marker) == 0 &&
            read_link(marker, real, size) == 0)
            return *ours = 1, 0;
        return concat(real, size, env, (char*)NULL);
    }
    const char* state = state_dir();
    char hash[17];
    hex64(hash_file(14695981039346656037u, real_git), hash);
    size_t length = state ? strlen(state) + sizeof "/git-" + 16 : 0;
    char* record = state ? malloc(length) : NULL;
    if (!record || concat(record, length, state, "/git-", hash, (char*)NULL) != 0) {
        free(record);
        return ask_git(real_git, real, size);
    }
    int rc = 0;
    if (read_link(record, real, size) != 0) {
        rc = ask_git(real_git, real, size);
        if (rc == 0)
            write_link(record, real);
    }
    free(record);
    return rc;
}

// Fills the fresh directory `dir` with the mirror of `real`.
static int fill_mirror(const char* dir, const char* real, const char* self)
{
    char from[k_path_max], to[k_path_max];
    DIR* entries = opendir(real);
    if (!entries)
        return -1;
    int rc = 0;
    for (struct dirent* e; rc == 0 && (e = readdir(entries));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            strcmp(e->d_name, "git") == 0 || strcmp(e->d_name, k_receive_pack) == 0 ||
            strcmp(e->d_name, k_marker) == 0)
            continue;
        rc = join_path(from, sizeof from, real, e->d_name) || join_path(to, sizeof to, dir, e->d_name) ||
                     symlink(from, to)
                 ? -1
                 : 0;
    }
    closedir(entries);
    if (rc == 0 && (join_path(to, sizeof to, dir, "git") != 0 || symlink(self, to) != 0 ||
                    join_path(to, sizeof to, dir, k_receive_pack) != 0 || symlink(self, to) != 0 ||
                    join_path(to, sizeof to, dir, k_marker) != 0 || symlink(real, to) != 0))
        rc = -1;
    return rc;
}

static void remove_mirror(const char* dir)
{
    char path[k_path_max];
    DIR* entries = opendir(dir);
    if (entries) {
        for (struct dirent* e; (e = readdir(entries));)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                join_path(path, sizeof path, dir, e->d_name) == 0)
                unlink(path);
        closedir(entries);
    }
    rmdir(dir);
}

// Makes the mirror `mirror` of `real` (for the shim `self`), racing other shims.
static __attribute__((noinline)) int make_mirror(const char* state, const char* real, const char* self,
                                                 const char* mirror)
{
    char probe[k_path_max], temp[k_path_max];
    if (join_path(probe, sizeof probe, mirror, "git") != 0 ||
        snprintf(temp, sizeof temp, "%s/tmp-XXXXXX", state) >= (int)sizeof temp || !mkdtemp(temp) ||
        chmod(temp, 0755) != 0)
        return -1;
    if (fill_mirror(temp, real, self) != 0 || (rename(temp, mirror) != 0 && access(probe, X_OK) != 0)) {
        remove_mirror(temp);
        return -1;
    }
    remove_mirror(temp); // another shim won the race: its mirror stands, ours goes
    return 0;
}

int exec_path_mirror(const char* real, char* mirror, size_t size)
{
    const char* self = self_exe();
    const char* state = state_dir();
    if (!self || !state)
        return -1;
    uint64_t hash = fnv(fnv(14695981039346656037u, k_layout, sizeof k_layout), self, strlen(self) + 1);
    hash = hash_file(hash, real);
    // `<mirror>/git` first, to probe; then cut back to `<mirror>`.
    char name[17];
    hex64(hash, name);
    if (concat(mirror, size, state, "/", name, "/git", (char*)NULL) != 0)
        return -1;
    int found = access(mirror, X_OK) == 0;
    mirror[strlen(mirror) - 4] = '\0';
    return found ? 0 : make_mirror(state, real, self, mirror);
}

int writes_exec_path(const struct Call* call)
{
    // `git maintenance start`: registering alone (`maintenance register`) writes config only.
    return call->stop < 0 && call->nwords >= 2 && strcmp(call->words[0], "maintenance") == 0 &&
           strcmp(call->words[1], "start") == 0;
}
