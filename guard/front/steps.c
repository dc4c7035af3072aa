// The shim's test for git's own steps (steps.h): the mark it gives every git it starts,
// and the shapes of the steps git takes itself.
#include "steps.h"

#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// Each row is git's whole command line for one of its steps (git's builtin/stash.c,
// worktree.c, sequencer.c, submodule--helper.c, bisect.c; the same in 2.39 and master),
// matched word for word and to its end. Operands are placeholders: k_oid a full object id
// in hex, k_word one word that is no option, k_paths one or more words to the end. A form
// a user can type just as well and that destroys work (`reset --merge` with no commit,
// `checkout -f -q` of `submodule add --force`, `checkout -q -f <oid>` of `submodule update
// --force`) has no row: it is judged, and a save costs one ref where there was work.
#define k_oid "\x01oid"
#define k_word "\x01word"
#define k_paths "\x01paths"
static const char* const k_git_steps[][8] = {
    {"reset", "--hard", "-q", "--no-recurse-submodules", NULL},               // stash push
    {"reset", "--hard", "--no-recurse-submodules", NULL},                     // worktree add
    {"reset", "--hard", "--no-recurse-submodules", "--quiet", NULL},          // worktree add -q
    {"clean", "--force", "--quiet", "-d", ":/", NULL},                        // stash push -u
    {"clean", "--force", "--quiet", "-d", ":/", "-x", NULL},                  // stash push -a
    {"checkout", "--no-overlay", k_oid, "--", k_paths, NULL},                 // stash --keep-index
    {"reset", "--merge", k_oid, NULL},                                        // sequencer rollback
    {"checkout", "-q", k_oid, NULL},                                          // submodule update
    {"checkout", "-q", k_oid, "--", NULL},                                    // bisect
    {"checkout", k_word, "--", NULL},                                         // bisect start, reset
    {"checkout", "--ignore-other-worktrees", k_word, "--", NULL},             // bisect reset
    {"checkout", "--ignore-other-worktrees", "--quiet", k_word, "--", NULL},  // bisect reset -q
};

static int is_full_oid(const char* word)
{
    size_t n = strlen(word);
    if (n != 40 && n != 64)
        return 0;
    for (const char* c = word; *c; ++c)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
            return 0;
    return 1;
}

// Whether `word` fills the row's slot `want`.
static int fills(const char* want, const char* word)
{
    if (strcmp(want, k_oid) == 0)
        return is_full_oid(word);
    if (strcmp(want, k_word) == 0)
        return word[0] && word[0] != '-';
    return strcmp(want, word) == 0;
}

// Whether `call`'s words are exactly `row`, to the last word.
static int matches_row(const char* const* row, const struct Call* call)
{
    int i = 0;
    for (; row[i]; ++i) {
        if (strcmp(row[i], k_paths) == 0)
            return i < call->nwords; // one or more operands, whatever they are
        if (i >= call->nwords || !fills(row[i], call->words[i]))
            return 0;
    }
    return i == call->nwords;
}

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
    for (size_t s = 0; s < sizeof k_git_steps / sizeof *k_git_steps; ++s)
        if (matches_row(k_git_steps[s], call))
            return 1;
    return 0;
}

// Whether the parent process runs `real_git`'s very file. Any program can set the mark
// with its own pid; only a git the shim (or the full binary) started is that git.
static int parent_is_git(const char* real_git)
{
    char exe[48];
    struct stat parent, git;
    snprintf(exe, sizeof exe, "/proc/%ld/exe", (long)getppid());
    return stat(exe, &parent) == 0 && stat(real_git, &git) == 0 && parent.st_dev == git.st_dev &&
           parent.st_ino == git.st_ino;
}

int is_git_step(const struct Call* call, const char* real_git)
{
    const char* handled = getenv("GIT_GUARD_HANDLED");
    char* rest = NULL;
    if (!handled || strtol(handled, &rest, 10) != (long)getppid() || *rest != ' ')
        return 0;
    unsigned long long expected = strtoull(rest + 1, NULL, 16);
    return ((expected && expected == words_hash(call)) || is_step_shape(call)) && parent_is_git(real_git);
}

// A shell alias is not marked: its shell, not git, starts the `git` inside it.
void mark_handled(const struct Call* call)
{
    char mark[48], hash[17], pid[24];
    if (call->shell_alias) {
        unsetenv("GIT_GUARD_HANDLED");
        return;
    }
    // "<pid> <hash in hex>", built without printf (the fast path's cost is its pages).
    char* digit = pid + sizeof pid - 1;
    *digit = '\0';
    for (unsigned long value = (unsigned long)getpid(); digit == pid + sizeof pid - 1 || value; value /= 10)
        *--digit = (char)('0' + value % 10);
    hex64(call->expanded ? words_hash(call) : 0ull, hash);
    const char* lead = hash;
    while (*lead == '0' && lead[1])
        ++lead;
    concat(mark, sizeof mark, digit, " ", lead, (char*)NULL);
    setenv("GIT_GUARD_HANDLED", mark, 1);
}
