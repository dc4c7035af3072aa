// A submodule's or nested repository's guard is its enclosing repository's (DESIGN
// §4.1). The shim asks this only for a call it would forward, after git said that the
// call's own repository has no guard.enabled: an unguarded repository's other calls,
// and every call of a guarded one, cost nothing more.
#include "enclosing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// The variables that pin git to one repository (`git rev-parse --local-env-vars`),
// which a question about the enclosing repository must not carry: git's own submodule
// code drops them the same way. The caller's -c settings stay.
static const char* const k_local_env[] = {
    "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE",
    "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX", "GIT_SHALLOW_FILE",
    "GIT_CONFIG", NULL};
enum { k_local_count = sizeof k_local_env / sizeof *k_local_env - 1 };

// Runs `argv` with none of k_local_env, its stdout in `out` (NUL-terminated). The
// front end is one thread: the variables are put back before anything else runs.
static int run_outside(char* const argv[], char* out, size_t size)
{
    char* saved[k_local_count];
    for (int i = 0; i < k_local_count; ++i) {
        const char* value = getenv(k_local_env[i]);
        saved[i] = value ? strdup(value) : NULL;
        if (value && !saved[i])
            return -1; // no memory: the variable stays, and so does the question
        unsetenv(k_local_env[i]);
    }
    size_t got = 0;
    int status = run_captured(argv, out, size - 1, &got);
    out[got < size ? got : size - 1] = '\0';
    for (int i = 0; i < k_local_count; ++i)
        if (saved[i]) {
            setenv(k_local_env[i], saved[i], 1);
            free(saved[i]);
        }
    return status;
}

// The top level git prints into `top` (its final newline dropped; a path may hold
// others). Returns 0, or -1 outside a work tree.
static int top_level(char* const argv[], char* top, int outside)
{
    size_t got = 0;
    int status = outside ? run_outside(argv, top, k_path_max) : run_captured(argv, top, k_path_max - 1, &got);
    if (!outside)
        top[got < k_path_max ? got : k_path_max - 1] = '\0';
    size_t n = strlen(top);
    if (status != 0 || n < 2 || top[0] != '/' || top[n - 1] != '\n' || n >= k_path_max - 1)
        return -1;
    top[n - 1] = '\0';
    return 0;
}

// Whether git could find a second repository on the way from `call`'s directory up to /:
// git's discovery stops only where a `.git` exists, so with fewer than two there is no
// repository around the call's own (a bare one encloses no tree). Not known when the caller
// points git elsewhere (--git-dir, --work-tree, GIT_DIR, GIT_WORK_TREE): then git is asked.
static int may_be_enclosed(const struct Call* call)
{
    if (getenv("GIT_DIR") || getenv("GIT_WORK_TREE"))
        return 1;
    for (int i = 0; i < call->nglobals; ++i)
        if (strncmp(call->globals[i], "--git-dir", 9) == 0 || strncmp(call->globals[i], "--work-tree", 11) == 0)
            return 1;
    char dir[k_path_max], dot[k_path_max + 8];
    struct stat st;
    int found = 0;
    snprintf(dir, sizeof dir, "%s", call->cwd);
    if (dir[0] != '/')
        return 1; // no directory to walk from: git is asked
    for (;;) {
        snprintf(dot, sizeof dot, "%s/.git", dir[1] ? dir : "");
        found += lstat(dot, &st) == 0;
        if (found >= 2)
            return 1;
        char* slash = strrchr(dir, '/');
        if (slash != dir)
            *slash = '\0';
        else if (dir[1])
            dir[1] = '\0';
        else
            return 0;
    }
}

int enclosing_guarded(const char* real_git, const struct Call* call)
{
    char top[k_path_max], dir[k_path_max], answer[16];
    if (!may_be_enclosed(call))
        return 0; // no git call: a repository with nothing around it pays nothing more
    char** own = malloc((size_t)(call->nglobals + 6) * sizeof *own);
    if (!own)
        return 0;
    int n = 0;
    own[n++] = (char*)real_git;
    own[n++] = (char*)"-C";
    own[n++] = (char*)call->cwd;
    for (int i = 0; i < call->nglobals; ++i)
        own[n++] = call->globals[i];
    own[n++] = (char*)"rev-parse";
    own[n++] = (char*)"--show-toplevel";
    own[n] = NULL;
    int found = top_level(own, top, 0);
    free(own);
    // Upwards, one repository at a time: a submodule of a submodule of a guarded one is
    // guarded too. Bounded, as a tree nests only so deep.
    for (int depth = 0; found == 0 && depth < 64; ++depth) {
        char* slash = strrchr(top, '/');
        if (!slash || slash == top)
            return 0; // the top is / itself: nothing encloses it
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - top), top);
        char* ask_top[] = {(char*)real_git, (char*)"-C", dir, (char*)"rev-parse", (char*)"--show-toplevel", NULL};
        if (top_level(ask_top, top, 1) != 0)
            return 0; // in no repository's tree
        char* ask[] = {(char*)real_git, (char*)"-C", top, (char*)"config", (char*)"--bool", (char*)"guard.enabled", NULL};
        if (run_outside(ask, answer, sizeof answer) == 0 && strcmp(answer, "true\n") == 0)
            return 1;
    }
    return 0;
}
