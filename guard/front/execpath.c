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

// <shim dir>/exec-path, else the per-user cache; created when missing.
static const char* state_dir(void)
{
    static char dir[k_path_max];
    if (dir[0])
        return dir;
    char self[k_path_max];
    if (self_dir(self, sizeof self) == 0 && join_path(dir, sizeof dir, self, "exec-path") == 0 &&
        (access(dir, W_OK) == 0 || (make_dir(dir) == 0 && access(dir, W_OK) == 0)))
        return dir;
    const char* cache = getenv("XDG_CACHE_HOME");
    const char* home = getenv("HOME");
    char base[k_path_max];
    if (cache && *cache)
        snprintf(base, sizeof base, "%s", cache);
    else if (home && *home)
        snprintf(base, sizeof base, "%s/.cache", home);
    else
        return dir[0] = '\0', NULL;
    if (join_path(dir, sizeof dir, base, "git-guard") != 0 || make_dir(base) != 0 ||
        make_dir(dir) != 0 || join_path(dir, sizeof dir, base, "git-guard/exec-path") != 0 ||
        make_dir(dir) != 0)
        return dir[0] = '\0', NULL;
    return dir;
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
        return snprintf(real, size, "%s", env) < (int)size ? 0 : -1;
    }
    const char* state = state_dir();
    char record[k_path_max];
    if (!state || snprintf(record, sizeof record, "%s/git-%016llx", state,
                           (unsigned long long)hash_file(14695981039346656037u, real_git)) >=
                      (int)sizeof record)
        return ask_git(real_git, real, size);
    if (read_link(record, real, size) == 0)
        return 0;
    if (ask_git(real_git, real, size) != 0)
        return -1;
    write_link(record, real);
    return 0;
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

int exec_path_mirror(const char* real, char* mirror, size_t size)
{
    char self[k_path_max], probe[k_path_max], temp[k_path_max];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    const char* state = state_dir();
    if (n < 0 || (size_t)n >= sizeof self - 1 || !state)
        return -1;
    self[n] = '\0';
    uint64_t hash = fnv(fnv(14695981039346656037u, k_layout, sizeof k_layout), self, (size_t)n + 1);
    hash = hash_file(hash, real);
    if (snprintf(mirror, size, "%s/%016llx", state, (unsigned long long)hash) >= (int)size ||
        join_path(probe, sizeof probe, mirror, "git") != 0)
        return -1;
    if (access(probe, X_OK) == 0)
        return 0;
    if (snprintf(temp, sizeof temp, "%s/tmp-XXXXXX", state) >= (int)sizeof temp || !mkdtemp(temp) ||
        chmod(temp, 0755) != 0)
        return -1;
    if (fill_mirror(temp, real, self) != 0 || (rename(temp, mirror) != 0 && access(probe, X_OK) != 0)) {
        remove_mirror(temp);
        return -1;
    }
    remove_mirror(temp); // another shim won the race: its mirror stands, ours goes
    return 0;
}

int writes_exec_path(const struct Call* call)
{
    // `git maintenance start`: registering alone (`maintenance register`) writes config only.
    return call->stop < 0 && call->nwords >= 2 && strcmp(call->words[0], "maintenance") == 0 &&
           strcmp(call->words[1], "start") == 0;
}
