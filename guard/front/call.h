// The front end's one parse of git's command line (DESIGN §0.5): global options and
// aliases, resolved once, here. The full binary receives the result (see handoff in
// shim.c) and never parses git's options again.
#pragma once

#include "common.h"

enum { k_max_alias_words = 1024 }; // words in one alias's value

struct Call {
    char** globals;       // global options to repeat on our own git calls, as given
    int nglobals;
    char cwd[k_path_max]; // the directory git runs in, after every -C ("": none can be named)
    char** words;         // the subcommand and its arguments, aliases expanded
    int nwords;
    int room;             // entries globals and words each hold: every word of argv, grown
                          // for each alias's words (xargs hands git thousands)
    int stop;             // enum GitOptionKind that ended parsing, or -1: a subcommand
    int shell_alias;      // the subcommand is a shell alias (`!…`): git runs a shell
    int expanded;         // an alias was expanded: git re-runs `git <words>` as a child
};

// Parses `argv` as git would run it, expanding aliases by asking `real_git` (only for
// words that are not builtins or dashed externals found in `exec_path`). Returns 0; -1
// when git itself would die (bad option, bad alias): the call goes to git untouched; -2
// when the words could not be held (no memory): nobody can judge the call.
int parse_call(int argc, char* argv[], const char* real_git, const char* exec_path,
               struct Call* call);

// Runs `real_git -C <cwd> <globals…> config <rest…>` (`rest` ends with NULL), as the
// caller's git would read its configuration, with its output in `buffer` (`got` bytes,
// the rest drained). Returns git's exit status, or -1 when it could not be started.
int run_config(const char* real_git, const struct Call* call, const char* const* rest, char* buffer,
               size_t size, size_t* got);

// Whether `call` is one the full binary guards: a form that may destroy work of a command
// the table in commands.c judges in the shim (worktree remove|prune|add, reset --hard,
// clean, read-tree -u --reset, checkout-index -f, stash, …), each read by git's option
// rules (options.c). Errs towards yes: a call forwarded for nothing costs the full
// binary's start; one missed costs the work.
int is_guarded_call(const struct Call* call);

// Whether `call` may move a branch or HEAD (a ref the hook judges): the shim then asks git
// whether our hook is the one git will run (gate.h, listing_names_hooks), and forwards
// the call when it may not be (DESIGN §0.7: git's resolution, not a string in `-c`).
int writes_judged_refs(const struct Call* call);

// Whether `call` is an in-place destroyer (is_guarded_call minus worktree commands).
int is_in_place(const struct Call* call);
