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
