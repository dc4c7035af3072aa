// One table of every git command (DESIGN §0.6, docs/commands.md): what each writes, and
// how the guard covers the forms that can destroy work. tests/e2e/command_table.sh lists
// the commands of the git under test and fails on one this table does not classify.
#pragma once

#include "call.h"

enum {
    writes_nothing = 0, // reads only (objects, caches and stat data aside)
    writes_tree = 1,    // working files
    writes_index = 2,   // the index
    writes_refs = 4,    // refs (branches, HEAD, tags, notes, remote-tracking refs…)
};

enum CommandGuard {
    guard_none,  // destroys no work: it reads, or writes only new content
    guard_shim,  // the shim judges the forms that destroy (may_destroy) and saves first
    guard_hook,  // what it destroys is refs/heads/* or a detached HEAD: the hook judges
    guard_child, // only through the git children it runs, each judged by the shim or hook
    guard_limit, // can lose work the guard does not save: README §Limits says what
};

struct GitCommand {
    const char* name;
    int writes;                                // writes_* bits
    enum CommandGuard guard;
    int (*may_destroy)(const struct Call* call); // guard_shim: whether this call may destroy
    const char* note;                          // what it destroys, or why nothing
};

// The entry for `name`, or NULL: a command this table does not know.
const struct GitCommand* find_command(const char* name);

// The whole table, sorted by name; its size in `*count`.
const struct GitCommand* git_commands(int* count);

// Prints the table, one command a line: name, writes (t, i, r or -), guard, note.
void print_commands(void);
