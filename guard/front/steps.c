// The shim's test for git's own steps (steps.h): the mark it gives every git it starts,
// and the shapes of the steps git takes itself.
#include "steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char* const k_git_steps[][6] = {
    {"reset", "--hard", "-q", "--no-recurse-submodules", NULL}, // stash push
    {"reset", "--hard", "--no-recurse-submodules", NULL},       // worktree add
    {"clean", "--force", "--quiet", "-d", ":/", NULL},          // stash push -u/-a
    {"checkout", "--no-overlay", NULL},                         // stash push --keep-index, -p
    {"reset", "--merge", NULL},                                 // sequencer rollback
    {"checkout", "-f", "-q", NULL},                             // submodule add
    {"checkout", "-q", NULL},                                   // submodule update, bisect
    {"checkout", "--ignore-other-worktrees", NULL},             // bisect
};

static unsigned long long words_hash(const struct Call* call)
{
    unsigned long long hash = 14695981039346656037ull;
    for (int i = 0; i < call->nwords; ++i)
        for (const char* c = call->words[i];; ++c) {
            hash = (hash ^ (unsigned char)*c) * 1099511628211ull;
            if (!*c)
                break;
        }
    return hash ? hash : 1;
}

static int is_step_shape(const struct Call* call)
{
    for (size_t s = 0; s < sizeof k_git_steps / sizeof *k_git_steps; ++s) {
        int i = 0;
        while (k_git_steps[s][i] && i < call->nwords && strcmp(call->words[i], k_git_steps[s][i]) == 0)
            ++i;
        if (!k_git_steps[s][i])
            return 1;
    }
    // bisect's `checkout <commit> --`
    return call->nwords == 3 && strcmp(call->words[0], "checkout") == 0 &&
           strcmp(call->words[2], "--") == 0;
}

int is_git_step(const struct Call* call)
{
    const char* handled = getenv("GIT_GUARD_HANDLED");
    char* rest = NULL;
    if (!handled || strtol(handled, &rest, 10) != (long)getppid() || *rest != ' ')
        return 0;
    unsigned long long expected = strtoull(rest + 1, NULL, 16);
    return (expected && expected == words_hash(call)) || is_step_shape(call);
}

// A shell alias is not marked: its shell, not git, starts the `git` inside it.
void mark_handled(const struct Call* call)
{
    char mark[48];
    if (call->shell_alias) {
        unsetenv("GIT_GUARD_HANDLED");
        return;
    }
    snprintf(mark, sizeof mark, "%ld %llx", (long)getpid(), call->expanded ? words_hash(call) : 0ull);
    setenv("GIT_GUARD_HANDLED", mark, 1);
}
