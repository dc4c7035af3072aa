// Where the hook front end finds things (see places.c). Plain C, libc only.
#pragma once

#include <stddef.h>

// The git dir and the common git dir of the repository git runs the hook for.
// Each returns 0 or -1.
int git_dir(char* out, size_t size);
int common_dir(char* out, size_t size);

// When `pid` started (field 22 of /proc/<pid>/stat), or 0.
unsigned long long start_time(long pid);

// The full git-guard (C5 order). Returns 0, or -1 with every place tried in `tried`.
int find_full(const char* hook_path, char* full, size_t size, char* tried, size_t tried_size);

// The user's earlier hook beside `hook_path`: whether it is installed and executable.
int find_chained(const char* hook_path, char* chained, size_t size);

// The command line that runs the chained hook as git would have run it (issue 37): a shell
// script (`#!` naming sh, bash, dash, ksh, mksh, zsh or ash, directly or through env) is
// sourced by its interpreter with `$0` set to `hook_path`, git's own path for the hook, so
// a hook that dispatches on its name or prints `$0` sees what it would without git-guard;
// anything else is run as the chained file itself. Fills `argv` (room for 7) from the
// storage `line` (the file's first line, `size` bytes).
void chained_argv(const char* chained, const char* hook_path, const char* state, char* line, size_t size,
                  char* argv[7]);
