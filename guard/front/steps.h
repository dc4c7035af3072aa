#pragma once
// git's own steps (DESIGN §6, docs/decisions.md "The shim"). Through the exec-path
// mirror, git's internal `git` children reach the shim too: the re-run of an expanded
// alias, and the steps steps.c lists, which destroy only what git itself has just recorded
// (`stash push` resets and cleans after writing the stash, `worktree add` fills the new
// tree, the sequencer rolls back a pick, `submodule update` and `bisect` check out).
// The shim marks every git it starts with GIT_GUARD_HANDLED="<its pid> <hash of the
// expanded words, or 0>" (git keeps the pid across the exec). A call is git's own step
// when its parent is that pid and it is the alias re-run (same words) or one of those
// exact shapes, and that parent runs the real git's file (/proc/<ppid>/exe): a program
// that sets the mark itself, its own pid and the hash of its words, is no git. A hook,
// `rebase -x` or `submodule foreach` typing other words, even one that `exec`s git in
// its shell's place, is judged.

#include "call.h"

// Whether `call` is one of git's own steps: its parent is a git this shim marked, running
// `real_git`'s file, and it is that git's alias re-run (the same expanded words) or one
// of the listed shapes.
int is_git_step(const struct Call* call, const char* real_git);

// Marks the git about to be exec'd (GIT_GUARD_HANDLED, above); unmarks a shell alias.
void mark_handled(const struct Call* call);
