// Whether the repository a forwarded call runs in is guarded, and its guard.* settings,
// from one `git config -z --get-regexp` (gate.c). Plain C, libc only.
#pragma once

#include "call.h"

#include <sys/types.h>

// Is the repository `call` runs in guarded? git's listing of its guard.*, hook.* and
// remotes' mirror/fetch keys (what the full binary reads as its settings), asked of
// `real_git` with the caller's options and in the caller's directory, as the full binary
// would ask: 1 for "true", 0 for "false" or none here nor in an enclosing repository, -1
// when git could not answer (an option this git does not know, a bad -C) or the value is
// one only git's typing reads (`yes`, `on`, a valueless key): the full binary decides
// then, as it always has. Answered here, an unguarded repository never pays for its start.
// Without `enclosing`, a repository where guard.enabled is unset reads as unguarded without
// asking about an enclosing one (a ref writer's question: no hook of ours is installed in a
// submodule or nested repository, so there is none to be switched off).
int guard_enabled(const char* real_git, const struct Call* call, int enclosing);

// Whether git's listing, as guard_enabled read it with the caller's options, environment,
// every config file and include git reads, sets core.hooksPath or any hook.* key (or was
// not read whole): git may then run another hooks directory than the one install put our
// hook in, or none (hook.<event>.enabled=false, git >= 2.54). The full binary then asks
// git where its hooks are and puts ours back when it is not the one in effect.
int listing_names_hooks(void);

// The listing guard_enabled read ("key\nvalue\0" or "key\0" each, `*size` bytes) when it
// read it whole and took the answer from it; NULL when the full binary must read it.
const char* config_listing(ssize_t* size);
