// Which parsed calls the shim forwards to the full binary: the commands that may
// destroy work (DESIGN §6). Errs towards yes: a call forwarded for nothing costs the
// full binary's start; one missed costs the work.
#include "call.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int is(const char* a, const char* b)
{
    return strcmp(a, b) == 0;
}

// `word` is `--<name>` or an abbreviation of it at least `min` characters long, as
// parse-options accepts unique prefixes (`--forc` is `--force`).
static int long_option(const char* word, const char* name, size_t min)
{
    size_t n = strlen(word);
    return n >= min && strncmp(word, name, n) == 0;
}

// `word` is a cluster of short options (`-fdx`) holding `letter` before any letter in
// `with_value` (whose value takes the rest of the word).
static int short_option(const char* word, char letter, const char* with_value)
{
    if (word[0] != '-' || word[1] == '-' || !word[1])
        return 0;
    for (const char* c = word + 1; *c; ++c) {
        if (*c == letter)
            return 1;
        if (strchr(with_value, *c))
            return 0;
    }
    return 0;
}

// One non-option word that may be a pathspec rather than a branch: `.`, a glob, pathspec
// magic, or something that exists on disk. Restoring a path that does not exist
// destroys nothing.
static int may_be_path(const struct Call* call, const char* word)
{
    char path[k_path_max];
    struct stat st;
    if (is(word, ".") || word[0] == ':' || strpbrk(word, "*?["))
        return 1;
    int n = word[0] == '/' ? snprintf(path, sizeof path, "%s", word)
                           : snprintf(path, sizeof path, "%s/%s", call->cwd, word);
    return n < 0 || (size_t)n >= sizeof path || lstat(path, &st) == 0;
}

static int checkout_may_destroy(const struct Call* call)
{
    int plain = 0;
    const char* last = NULL;
    for (int i = 1; i < call->nwords; ++i) {
        const char* w = call->words[i];
        if (is(w, "--") || short_option(w, 'f', "bB") || short_option(w, 'p', "bB") ||
            short_option(w, 'B', "b") || // resets an existing branch: its own commits may go
            long_option(w, "--force", 3) || long_option(w, "--patch", 4) ||
            long_option(w, "--pathspec-from-file", 4) || long_option(w, "--ours", 4) ||
            long_option(w, "--theirs", 3))
            return 1;
        if (is(w, "-b") || is(w, "-B") || is(w, "--orphan") || is(w, "--conflict"))
            ++i; // takes the next word as its value
        else if (w[0] != '-' && ++plain)
            last = w;
    }
    return plain > 1 || (plain == 1 && may_be_path(call, last));
}

static int option_in(const struct Call* call, int (*test)(const char*))
{
    for (int i = 1; i < call->nwords && !is(call->words[i], "--"); ++i)
        if (test(call->words[i]))
            return 1;
    return 0;
}

static int resets_tree(const char* w)
{
    return long_option(w, "--hard", 3) || long_option(w, "--merge", 4) ||
           long_option(w, "--keep", 3);
}
static int switch_discards(const char* w)
{
    return short_option(w, 'f', "cC") || long_option(w, "--force", 3) ||
           long_option(w, "--discard-changes", 4) || short_option(w, 'C', "c") ||
           long_option(w, "--force-create", 8); // -C resets an existing branch
}
static int forces_submodule(const char* w) // update -f, deinit -f
{
    return is(w, "-f") || long_option(w, "--force", 4);
}
static int forces_branch(const char* w) // -f, -M, -C: a branch put onto another commit;
{                                         // -d, -D: the shim's when no hook of ours runs
    return short_option(w, 'f', "u") || short_option(w, 'M', "u") || short_option(w, 'C', "u") ||
           long_option(w, "--force", 6) || short_option(w, 'd', "u") || short_option(w, 'D', "u") ||
           long_option(w, "--delete", 5);
}
static int restores_staged(const char* w)
{
    return short_option(w, 'S', "s") || long_option(w, "--staged", 4);
}
static int restores_worktree(const char* w)
{
    return short_option(w, 'W', "s") || long_option(w, "--worktree", 3);
}
static int cleans_dry(const char* w)
{
    return short_option(w, 'n', "e") || long_option(w, "--dry-run", 3);
}
static int drops_stash(const char* w)
{
    return is(w, "drop") || is(w, "clear");
}
static int removes_forced(const char* w)
{
    return short_option(w, 'f', "") || long_option(w, "--force", 3);
}
static int ends_operation(const char* w) // --abort, --skip: the rest of the operation goes
{
    return long_option(w, "--abort", 4) || long_option(w, "--skip", 4);
}

int is_in_place(const struct Call* call)
{
    if (call->stop >= 0 || call->nwords == 0)
        return 0;
    const char* command = call->words[0];
    if (is(command, "reset"))
        return option_in(call, resets_tree);
    if (is(command, "checkout"))
        return checkout_may_destroy(call);
    if (is(command, "switch"))
        return option_in(call, switch_discards);
    if (is(command, "restore")) // `--staged` alone destroys nothing in the tree
        return !option_in(call, restores_staged) || option_in(call, restores_worktree);
    if (is(command, "clean")) // clean.requireForce=false cleans without -f
        return !option_in(call, cleans_dry);
    if (is(command, "stash"))
        return option_in(call, drops_stash);
    if (is(command, "submodule")) // update --force, deinit --force: the submodules' own work
        return call->nwords > 1 && (is(call->words[1], "update") || is(call->words[1], "deinit")) &&
               option_in(call, forces_submodule);
    if (is(command, "branch")) // deletions are the hook's, unless no hook of ours runs
        return option_in(call, forces_branch);
    if (is(command, "rm")) // without -f git refuses to remove what differs from HEAD
        return option_in(call, removes_forced);
    if (is(command, "merge") || is(command, "rebase") || is(command, "cherry-pick") ||
        is(command, "revert") || is(command, "am"))
        return option_in(call, ends_operation);
    return 0;
}

int is_guarded_call(const struct Call* call)
{
    if (call->stop >= 0 || call->nwords == 0)
        return 0;
    if (is(call->words[0], "worktree"))
        return call->nwords > 1 && (is(call->words[1], "remove") || is(call->words[1], "prune") ||
                                    is(call->words[1], "add"));
    if (is(call->words[0], "gc") || is(call->words[0], "prune")) // the backstop's sweep first
        return 1;
    if (is(call->words[0], "maintenance"))
        return call->nwords > 1 && is(call->words[1], "run");
    return is_in_place(call);
}
