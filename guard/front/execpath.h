// git's own children (DESIGN §6): git puts its exec path first on PATH for every hook,
// shell alias, `rebase -x` and `submodule foreach` it runs, so their `git` would be the
// real one. The shim therefore runs git with GIT_EXEC_PATH naming a directory of links
// that mirrors the real exec path, except that its `git` is this shim:
//   <shim dir>/exec-path/<hash>/git            -> the shim (/proc/self/exe)
//   <shim dir>/exec-path/<hash>/<entry>        -> <real exec path>/<entry>, for every entry
//   <shim dir>/exec-path/<hash>/.git-guard-real -> <real exec path>
// <hash> covers the real exec path, its directory's identity and mtime, and the shim's
// path, so a git upgrade (which changes the directory) gets a fresh mirror. Mirrors are
// built in a temporary directory and renamed into place: readers never see half of one.
// When <shim dir> is not writable, $XDG_CACHE_HOME (or ~/.cache)/git-guard/exec-path.
#pragma once

#include <stddef.h>

// The real exec path of `real_git` into `real`: $GIT_EXEC_PATH (mapped back when it is
// one of our mirrors), else git's compiled-in one (`git --exec-path`, asked once per git
// binary and remembered as a link in the state directory). Sets `*ours` when
// $GIT_EXEC_PATH is one of our mirrors. Returns 0, or -1 when unknown.
int real_exec_path(const char* real_git, char* real, size_t size, int* ours);

// The mirror of `real` (created when missing) into `mirror`. Returns 0, or -1 when it
// cannot be made (git then runs with the environment as it was).
int exec_path_mirror(const char* real, char* mirror, size_t size);

struct Call;

// Whether `call` writes git's exec path into something that outlives it, so that git
// must see the real one: `maintenance start` names "<exec path>/git --exec-path=<exec
// path>" in the crontab, systemd units or launchd and schtasks jobs it writes, and a
// mirror there would tie every scheduled run to this shim's internals.
int writes_exec_path(const struct Call* call);
