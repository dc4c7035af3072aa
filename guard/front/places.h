// Where the hook front end finds things (see places.c). Plain C, libc only.
#pragma once

#include <stddef.h>

// The common git dir of the repository git runs the hook for. Returns 0 or -1.
int common_dir(char* out, size_t size);

// Whether `common`/packed-refs has a line ending in `tail` (" <ref>\n"); an unreadable
// file counts as having it.
int in_packed_refs(const char* common, const char* tail);

// When `pid` started (field 22 of /proc/<pid>/stat), or 0.
unsigned long long start_time(long pid);

// The full git-guard (C5 order). Returns 0, or -1 with every place tried in `tried`.
int find_full(const char* hook_path, char* full, size_t size, char* tried, size_t tried_size);

// The user's earlier hook beside `hook_path`: whether it is installed and executable.
int find_chained(const char* hook_path, char* chained, size_t size);
