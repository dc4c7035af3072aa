// Which parsed calls the shim forwards to the full binary: the forms of the commands
// that may destroy work (DESIGN §6), each read with git's own option rules (options.c)
// and the command's option table below. Errs towards yes: a call forwarded for nothing
// costs the full binary's start; one missed costs the work.
#include "commands.h"
#include "guarded.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OPTIONS(name, ...)                                                                           \
    const struct ArgOption name##_options[] = {__VA_ARGS__};                                         \
    const int name##_noptions = (int)(sizeof name##_options / sizeof *name##_options)

// Shared by checkout, switch and restore (builtin/checkout.c).
#define CHECKOUT_COMMON                                                                              \
    {"quiet", 'q', 0, 0}, {"progress", 0, 0, 0}, {"recurse-submodules", 0, arg_optional, 0},         \
        {"merge", 'm', 0, 0}, {"conflict", 0, arg_value, 0}, {"overwrite-ignore", 0, 0, 0},          \
        {"ignore-other-worktrees", 0, 0, 0}, {"auto-advance", 0, 0, 0}, {"unified", 'U', arg_value, 0}, \
        {"inter-hunk-context", 0, arg_value, 0}

OPTIONS(reset, {"quiet", 'q', 0, 0}, {"no-refresh", 0, 0, 0}, {"refresh", 0, 0, 0}, {"mixed", 0, 0, 1},
        {"soft", 0, 0, 1}, {"hard", 0, 0, 1}, {"merge", 0, 0, 1}, {"keep", 0, 0, 1},
        {"recurse-submodules", 0, arg_optional, 0}, {"patch", 'p', 0, 0}, {"auto-advance", 0, 0, 0},
        {"unified", 'U', arg_value, 0}, {"inter-hunk-context", 0, arg_value, 0},
        {"intent-to-add", 'N', 0, 0}, {"pathspec-from-file", 0, arg_value, 0},
        {"pathspec-file-nul", 0, 0, 0});
OPTIONS(checkout, CHECKOUT_COMMON, {"force", 'f', 0, 0}, {"ours", '2', 0, 2}, {"theirs", '3', 0, 2},
        {"detach", 0, 0, 0}, {"track", 't', arg_optional, 0}, {"guess", 0, 0, 0},
        {"orphan", 0, arg_value, 0}, {"b", 'b', arg_value, 0}, {"B", 'B', arg_value, 0}, {"l", 'l', 0, 0},
        {"overlay", 0, 0, 0}, {"patch", 'p', 0, 0}, {"pathspec-from-file", 0, arg_value, 0},
        {"pathspec-file-nul", 0, 0, 0}, {"ignore-skip-worktree-bits", 0, 0, 0});
OPTIONS(switch, CHECKOUT_COMMON, {"create", 'c', arg_value, 0}, {"force-create", 'C', arg_value, 0},
        {"orphan", 0, arg_value, 0}, {"guess", 0, 0, 0}, {"discard-changes", 0, 0, 0},
        {"force", 'f', 0, 0}, {"detach", 'd', 0, 0}, {"track", 't', arg_optional, 0});
OPTIONS(restore, CHECKOUT_COMMON, {"source", 's', arg_value, 0}, {"staged", 'S', 0, 0},
        {"worktree", 'W', 0, 0}, {"ignore-unmerged", 0, 0, 0}, {"overlay", 0, 0, 0}, {"ours", '2', 0, 2},
        {"theirs", '3', 0, 2}, {"patch", 'p', 0, 0}, {"pathspec-from-file", 0, arg_value, 0},
        {"pathspec-file-nul", 0, 0, 0}, {"ignore-skip-worktree-bits", 0, 0, 0});
OPTIONS(clean, {"quiet", 'q', 0, 0}, {"dry-run", 'n', 0, 0}, {"force", 'f', 0, 0},
        {"interactive", 'i', 0, 0}, {"d", 'd', 0, 0}, {"exclude", 'e', arg_value, 0}, {"x", 'x', 0, 0},
        {"X", 'X', 0, 0});
OPTIONS(rm, {"dry-run", 'n', 0, 0}, {"quiet", 'q', 0, 0}, {"cached", 0, 0, 0}, {"force", 'f', 0, 0},
        {"r", 'r', 0, 0}, {"ignore-unmatch", 0, 0, 0}, {"sparse", 0, 0, 0},
        {"pathspec-from-file", 0, arg_value, 0}, {"pathspec-file-nul", 0, 0, 0});
OPTIONS(read_tree, {"index-output", 0, arg_value, 0}, {"empty", 0, 0, 0}, {"verbose", 'v', 0, 0},
        {"m", 'm', 0, 0}, {"trivial", 0, 0, 0}, {"aggressive", 0, 0, 0}, {"reset", 0, 0, 0},
        {"prefix", 0, arg_value, 0}, {"u", 'u', 0, 0}, {"exclude-per-directory", 0, arg_value, 0},
        {"i", 'i', 0, 0}, {"dry-run", 'n', 0, 0}, {"no-sparse-checkout", 0, 0, 0},
        {"sparse-checkout", 0, 0, 0}, {"debug-unpack", 0, 0, 0}, {"recurse-submodules", 0, arg_optional, 0},
        {"quiet", 'q', 0, 0}, {"super-prefix", 0, arg_value, 0});
OPTIONS(checkout_index, {"all", 'a', 0, 0}, {"ignore-skip-worktree-bits", 0, 0, 0}, {"force", 'f', 0, 0},
        {"quiet", 'q', 0, 0}, {"no-create", 'n', 0, 0}, {"index", 'u', 0, 0}, {"z", 'z', 0, 0},
        {"stdin", 0, 0, 0}, {"temp", 0, 0, 0}, {"prefix", 0, arg_value, 0}, {"stage", 0, arg_value, 0});
OPTIONS(stash_push, {"keep-index", 'k', 0, 0}, {"staged", 'S', 0, 0}, {"patch", 'p', 0, 0},
        {"auto-advance", 0, 0, 0}, {"unified", 'U', arg_value, 0}, {"inter-hunk-context", 0, arg_value, 0},
        {"quiet", 'q', 0, 0}, {"include-untracked", 'u', 0, 3}, {"all", 'a', 0, 3},
        {"message", 'm', arg_value, 0}, {"pathspec-from-file", 0, arg_value, 0},
        {"pathspec-file-nul", 0, 0, 0});
OPTIONS(symbolic_ref, {"quiet", 'q', 0, 0}, {"delete", 'd', 0, 0}, {"short", 0, 0, 0},
        {"recurse", 0, 0, 0}, {"m", 'm', arg_value, 0});
// git branch, as far as telling a listing from a write goes.
OPTIONS(branch_writes, {"force", 'f', 0, 0}, {"M", 'M', 0, 0}, {"C", 'C', 0, 0}, {"move", 'm', 0, 0},
        {"copy", 'c', 0, 0}, {"delete", 'd', 0, 0}, {"D", 'D', 0, 0}, {"set-upstream-to", 'u', arg_value, 0},
        {"unset-upstream", 0, 0, 0}, {"edit-description", 0, 0, 0}, {"track", 't', arg_optional, 0},
        {"no-track", 0, 0, 0}, {"create-reflog", 0, 0, 0}, {"list", 'l', 0, 0}, {"all", 'a', 0, 0},
        {"remotes", 'r', 0, 0}, {"verbose", 'v', 0, 0}, {"contains", 0, arg_value, 0},
        {"no-contains", 0, arg_value, 0}, {"merged", 0, arg_value, 0}, {"no-merged", 0, arg_value, 0},
        {"points-at", 0, arg_value, 0}, {"sort", 0, arg_value, 0}, {"format", 0, arg_value, 0},
        {"show-current", 0, 0, 0}, {"ignore-case", 'i', 0, 0}, {"abbrev", 0, arg_optional, 0},
        {"column", 0, arg_optional, 0}, {"color", 0, arg_optional, 0}, {"omit-empty", 0, 0, 0});
OPTIONS(mv, {"verbose", 'v', 0, 0}, {"dry-run", 'n', 0, 0}, {"force", 'f', 0, 0}, {"k", 'k', 0, 0},
        {"sparse", 0, 0, 0});
OPTIONS(worktree_prune, {"dry-run", 'n', 0, 0}, {"verbose", 'v', 0, 0}, {"expire", 0, arg_value, 0});

static int is(const char* a, const char* b)
{
    return strcmp(a, b) == 0;
}

// Parses `call->words[first..]` against a table and tests the named options (NULL-ended):
// 1 when any is in force. In doubt (no memory), 1.
static int any_of(const struct Call* call, int first, const struct ArgOption* table, int n,
                  const char* const* names, struct ArgParse* keep)
{
    struct ArgParse parsed;
    if (parse_args(call->nwords, call->words, first, table, n, &parsed) != 0)
        return 1;
    int found = 0;
    for (const char* const* name = names; *name && !found; ++name)
        found = arg_has(&parsed, table, n, *name);
    if (keep)
        *keep = parsed;
    else
        free_args(&parsed);
    return found;
}
#define ANY(call, first, table, keep, ...)                                                           \
    any_of(call, first, table##_options, table##_noptions, (const char* const[]){__VA_ARGS__, NULL}, keep)

// One operand that may be a pathspec rather than a branch: `.`, a glob, pathspec magic,
// or something that exists on disk. Restoring a path that does not exist destroys nothing.
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

int reset_may_destroy(const struct Call* call)
{
    return ANY(call, 1, reset, NULL, "hard", "merge", "keep"); // the last mode given is git's
}

int checkout_may_destroy(const struct Call* call)
{
    struct ArgParse a;
    if (ANY(call, 1, checkout, &a, "force", "patch", "pathspec-from-file", "ours", "theirs", "B"))
        return free_args(&a), 1; // -B resets an existing branch: its own commits may go
    int destroys = a.dashdash || a.noperands > 1 || (a.noperands == 1 && may_be_path(call, a.operands[0]));
    free_args(&a);
    return destroys;
}

int switch_may_destroy(const struct Call* call) // -C resets an existing branch
{
    return ANY(call, 1, switch, NULL, "force", "discard-changes", "force-create");
}

int restore_may_destroy(const struct Call* call) // `--staged` alone destroys nothing in the tree
{
    return !ANY(call, 1, restore, NULL, "staged") || ANY(call, 1, restore, NULL, "worktree");
}

int clean_may_destroy(const struct Call* call) // clean.requireForce=false cleans without -f
{
    return !ANY(call, 1, clean, NULL, "dry-run");
}

// Without -f git refuses to remove what differs from HEAD; --cached leaves the files.
int rm_may_destroy(const struct Call* call)
{
    return ANY(call, 1, rm, NULL, "force") && !ANY(call, 1, rm, NULL, "cached", "dry-run");
}

// drop and clear let stash commits go; push (also `git stash` alone, or with options)
// runs `reset --hard`, which deletes an untracked file standing where a tracked path was
// unless -u or -a stashes it first.
int stash_may_destroy(const struct Call* call)
{
    const char* sub = call->nwords > 1 ? call->words[1] : "push";
    if (is(sub, "drop") || is(sub, "clear"))
        return 1;
    int first = sub[0] == '-' ? 1 : 2;
    if (sub[0] != '-' && !is(sub, "push") && !is(sub, "save"))
        return 0;
    return !ANY(call, first, stash_push, NULL, "include-untracked", "all");
}

int submodule_may_destroy(const struct Call* call) // update --force, deinit --force
{
    if (call->nwords < 2 || !(is(call->words[1], "update") || is(call->words[1], "deinit")))
        return 0;
    static const struct ArgOption force[] = {{"force", 'f', 0, 0}};
    struct ArgParse a;
    if (parse_args(call->nwords, call->words, 2, force, 1, &a) != 0)
        return 1;
    int forced = a.count[0] > 0;
    free_args(&a);
    return forced;
}

// -f, -M, -C put a branch onto another commit; -d, -D are the shim's when no hook of ours
// runs (unhooked.cpp).
int branch_may_destroy(const struct Call* call)
{
    return ANY(call, 1, branch_writes, NULL, "force", "M", "C", "delete", "D");
}

// --abort, --skip: the rest of the operation goes (any unique prefix: none of these
// commands has another long option that starts `--ab` or `--sk`).
int operation_may_end(const struct Call* call)
{
    static const struct ArgOption table[] = {{"abort", 0, 0, 0}, {"skip", 0, 0, 0}};
    struct ArgParse a;
    if (parse_args(call->nwords, call->words, 1, table, 2, &a) != 0)
        return 1;
    int ends = a.count[0] || (a.count[1] && !is(call->words[0], "merge"));
    free_args(&a);
    return ends;
}

// read-tree -u with --reset or -m overwrites the working files with the tree's (git's own
// `reset --hard` in plumbing); without -u only the index is written.
int read_tree_may_destroy(const struct Call* call)
{
    return ANY(call, 1, read_tree, NULL, "u") && ANY(call, 1, read_tree, NULL, "reset", "m") &&
           !ANY(call, 1, read_tree, NULL, "dry-run");
}

// checkout-index -f writes the index's version over the working file; without -f it
// leaves an existing file alone.
int checkout_index_may_destroy(const struct Call* call)
{
    return ANY(call, 1, checkout_index, NULL, "force") && !ANY(call, 1, checkout_index, NULL, "temp");
}

// mv -f replaces a destination that exists; without -f git refuses.
int mv_may_destroy(const struct Call* call)
{
    return ANY(call, 1, mv, NULL, "force") && !ANY(call, 1, mv, NULL, "dry-run");
}

// gc, prune, maintenance run: unreachable commits may go, so the backstop's sweep saves the
// tips its watcher once knew first (DESIGN §15).
int sweeps_first(const struct Call* call)
{
    return !is(call->words[0], "maintenance") || (call->nwords > 1 && is(call->words[1], "run"));
}

// pack-refs, refs optimize: the full binary may run them with hooks off (modes/unhooked.cpp).
int packs_refs(const struct Call* call)
{
    return is(call->words[0], "pack-refs") || (call->nwords > 1 && is(call->words[1], "optimize"));
}

int worktree_may_destroy(const struct Call* call)
{
    return call->nwords > 1 && (is(call->words[1], "remove") || is(call->words[1], "prune") ||
                                is(call->words[1], "add"));
}

// `key` (as git compares config keys: case-insensitive) is core.hooksPath or a hook.* key.
int is_in_place(const struct Call* call)
{
    if (call->stop >= 0 || call->nwords == 0 || is(call->words[0], "worktree"))
        return 0;
    const struct GitCommand* command = find_command(call->words[0]);
    return command && command->may_destroy && command->may_destroy(call);
}

// The listing forms agents run all the time: `branch` (--list, -a, -v, --show-current,
// no name), `symbolic-ref <name>`, `stash list|show`, `worktree list`. They write no ref.
static int lists_only(const struct Call* call)
{
    const char* command = call->words[0];
    const char* sub = call->nwords > 1 ? call->words[1] : "";
    if (is(command, "stash"))
        return is(sub, "list") || is(sub, "show");
    if (is(command, "worktree"))
        return is(sub, "list");
    if (is(command, "symbolic-ref")) { // one operand and no -d: a read
        struct ArgParse a;
        if (ANY(call, 1, symbolic_ref, &a, "delete"))
            return free_args(&a), 0;
        int reads = a.noperands == 1;
        free_args(&a);
        return reads;
    }
    if (!is(command, "branch"))
        return 0;
    struct ArgParse a;
    if (ANY(call, 1, branch_writes, &a, "force", "M", "C", "move", "copy", "delete", "D", "set-upstream-to",
            "unset-upstream", "edit-description", "track", "no-track", "create-reflog"))
        return free_args(&a), 0;
    int list = a.noperands == 0 || ANY(call, 1, branch_writes, NULL, "list");
    free_args(&a);
    return list;
}

int is_guarded_call(const struct Call* call)
{
    if (call->stop >= 0 || call->nwords == 0)
        return 0;
    const struct GitCommand* command = find_command(call->words[0]);
    return command && command->may_destroy && command->may_destroy(call);
}

// A command that may move a branch or HEAD itself (the hook judges it). Tags, notes,
// remote-tracking refs and packing are no one's work; a command whose branch moves are
// its git children's (bisect, submodule, gui) or the receiving repository's (push) asks
// nothing here: those calls ask for themselves. gc and maintenance move no branch (their
// ref packing runs through packs_refs, their pruning through the sweep).
int writes_judged_refs(const struct Call* call)
{
    static const char* const k_moves_none[] = {"gc", "maintenance", "pack-refs", "refs", "push", "bisect",
                                               "bisect--helper", "gui", "submodule", "submodule--helper"};
    if (call->stop >= 0 || call->nwords == 0)
        return 0;
    for (size_t i = 0; i < sizeof k_moves_none / sizeof *k_moves_none; ++i)
        if (is(call->words[0], k_moves_none[i]))
            return 0;
    const struct GitCommand* command = find_command(call->words[0]);
    return command && (command->writes & writes_refs) && command->guard != guard_none &&
           command->guard != guard_limit && !lists_only(call);
}
