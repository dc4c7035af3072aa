// The hook front end's input (lines.c): git's ref updates, read whole from stdin, and
// each line classified as the guard sees it. Plain C.
#pragma once

#include "common.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Reads all of stdin (a closed stdin is empty). Returns 0, or -1 with errno set when
// input was lost. The input then lies in [input_begin(), input_end()).
int read_input(void);
// The input is `text` (`size` bytes, kept alive by the caller), not stdin: the full
// binary run alone classifies git's lines with this same code.
void use_input(const char* text, size_t size);
const char* input_begin(void);
const char* input_end(void);

// Finds the repository's common dir and git dir once: 1 when found. repo_common() is
// the common dir then, repo_git_dir() the git dir (either may be relative to the cwd).
int find_dirs(void);
const char* repo_common(void);
const char* repo_git_dir(void);
// Whether the repository stores its refs in reftable.
int is_reftable(void);
int is_zero_id(const char* s, size_t length);

enum line_kind { k_other, k_deletion, k_update, k_unreadable };

struct ref_line {
    const char* old_id;
    size_t old_length;
    const char* new_id;
    size_t new_length;
    const char* ref;
    size_t ref_length;
};

// The next line at `*at` (advanced past it), classified into `*l`: a deletion or an update
// of a branch, a save or a detached HEAD, another ref's line, or one git never writes.
enum line_kind next_line(const char** at, struct ref_line* l);

// The input as the guard reads it, handed to the full binary (issue 17: one parser of
// the hook input) and read by the hook front end itself: one line per line git could have
// written, "<kind> <old> <new> <ref>" as git wrote it, kind D (a deletion), U (an update
// not proven harmless), H (an update proven harmless without starting git; each update
// is judged here only) or O (another ref's line); an unreadable line as "X <its first
// 100 bytes, printable>". Lines naming no ref at all are left out. Returns a malloc'd
// buffer of `*size` bytes, or NULL when out of memory.
char* classified_input(size_t* size);

#ifdef __cplusplus
}
#endif
