// Whether a repository around the one a call runs in is guarded (DESIGN §4.1): a
// submodule or a nested repository inherits the guard of the superproject or the tree
// it sits in. Plain C, libc only; asked only for calls the shim forwards anyway.
#pragma once

#include "call.h"

// 1 when the tree `call` runs in lies inside a guarded repository's tree (a submodule,
// a nested repository, at any depth), else 0. Asks `real_git`: the call's own top level
// first (with the caller's options and environment), then, for each directory above,
// the repository git finds there and its `config --bool guard.enabled`.
int enclosing_guarded(const char* real_git, const struct Call* call);
