// The option tables of the commands the shim judges, as git's parse-options tables
// declare them (git 2.39 through 2.55), read by the front end (guarded.c) and by the
// full binary (destroyed.cpp) through the one parser in options.c.
#pragma once

#include "call.h"
#include "options.h"

#define GUARD_OPTIONS(name)                                                                          \
    extern const struct ArgOption name##_options[];                                                  \
    extern const int name##_noptions

GUARD_OPTIONS(reset);
GUARD_OPTIONS(checkout);
GUARD_OPTIONS(switch);
GUARD_OPTIONS(restore);
GUARD_OPTIONS(clean);
GUARD_OPTIONS(rm);
GUARD_OPTIONS(read_tree);
GUARD_OPTIONS(checkout_index);
GUARD_OPTIONS(stash_push);
GUARD_OPTIONS(worktree_prune);
GUARD_OPTIONS(mv);


// The per-command judges of the table in commands.c: whether `call` may destroy work.
int reset_may_destroy(const struct Call* call);
int checkout_may_destroy(const struct Call* call);
int switch_may_destroy(const struct Call* call);
int restore_may_destroy(const struct Call* call);
int clean_may_destroy(const struct Call* call);
int stash_may_destroy(const struct Call* call);
int submodule_may_destroy(const struct Call* call);
int branch_may_destroy(const struct Call* call);
int rm_may_destroy(const struct Call* call);
int operation_may_end(const struct Call* call);
int read_tree_may_destroy(const struct Call* call);
int checkout_index_may_destroy(const struct Call* call);
int mv_may_destroy(const struct Call* call);
int sweeps_first(const struct Call* call);
int packs_refs(const struct Call* call);
int worktree_may_destroy(const struct Call* call);
