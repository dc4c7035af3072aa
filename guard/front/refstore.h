// What the hook front end reads of the files ref store and the object store, cheaply,
// to prove an update harmless without starting git (DESIGN §11). Plain C; zlib is the
// one library, linked statically. Every answer it cannot give cheaply is "unknown":
// the full binary then asks git.
#pragma once

#include <stddef.h>

enum ref_state { k_ref_unknown, k_ref_absent, k_ref_symbolic, k_ref_id };

// The value `ref` (`length` bytes: HEAD, or a name under refs/) has now in the files
// backend: HEAD from `git_dir`, any other from its loose file under `common`, else from
// `common`/packed-refs by binary search (a sorted packed-refs; a line scan otherwise).
// A held value is written to `id` (hex, NUL-terminated; `size` >= 65). Reads only the
// lines it needs, so that a hook run per packed ref stays O(log refs).
enum ref_state ref_value(const char* common, const char* git_dir, const char* ref, size_t length,
                         char* id, size_t size);

// The same, from `common`/packed-refs only (k_ref_absent when it has no such line).
enum ref_state packed_value(const char* common, const char* ref, size_t length, char* id, size_t size);

// Whether the commit `ancestor` (hex, `length` 40 or 64) is reachable from `child` (same
// length) within `limit` (at most 64) commits read from their loose objects, in
// $GIT_OBJECT_DIRECTORY (a push's quarantine) or `common`/objects: a commit, a pull or a
// small fetch that fast-forwards. 1: proven; 0: cannot tell cheaply (a packed object, a
// longer history, not an ancestor at all).
int reaches(const char* common, const char* child, const char* ancestor, size_t length, int limit);
