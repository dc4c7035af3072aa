// The hook front end's input: git's `<old> <new> <ref>` lines, read whole, and what each
// means to the guard (see lines.h). Plain C, libc and refstore.c only.
#include "lines.h"

#include "common.h"
#include "places.h"
#include "refstore.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// One page holds a transaction of up to about 40 refs. Past it, the input goes to an
// address range reserved once (k_reserved_input, no memory until a page is filled), so
// that a fetch of thousands of tags is neither copied as it grows nor read twice into new
// pages; where no range can be reserved, a malloc'd buffer doubles as before.
enum { k_small_input = 4096 };
#define k_reserved_input ((size_t)1 << 32)

static char s_small[k_small_input];
static char* s_input = s_small;
static size_t s_size;
static int s_grown; // s_input is a buffer read_input allocated: 1 malloc'd, 2 reserved

const char* input_begin(void) { return s_input; }
const char* input_end(void) { return s_input + s_size; }

void use_input(const char* text, size_t size)
{
    if (s_grown == 1)
        free(s_input);
    else if (s_grown == 2)
        munmap(s_input, k_reserved_input);
    s_grown = 0;
    s_input = text ? (char*)text : s_small;
    s_size = text ? size : 0;
}

// Reads all of stdin (a closed stdin is empty). A transaction can name thousands of
// refs, so the buffer grows. Returns 0, or -1 with errno set when input was lost.
int read_input(void)
{
    size_t capacity = sizeof s_small;
    for (;;) {
        if (s_size == capacity && !s_grown) {
            void* range = mmap(NULL, k_reserved_input, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (range != MAP_FAILED) {
                memcpy(range, s_input, s_size);
                s_input = range;
                s_grown = 2;
                capacity = k_reserved_input;
            }
        }
        if (s_size == capacity) {
            if (s_grown == 2) {
                errno = EFBIG; // 4 GiB of ref updates: more than any transaction git makes
                return -1;
            }
            char* bigger = malloc(capacity * 2);
            if (!bigger)
                return -1;
            memcpy(bigger, s_input, s_size);
            if (s_grown)
                free(s_input);
            s_input = bigger;
            s_grown = 1;
            capacity *= 2;
        }
        ssize_t n = read(0, s_input + s_size, capacity - s_size);
        if (n > 0)
            s_size += (size_t)n;
        else if (n == 0 || errno == EBADF)
            return 0;
        else if (errno != EINTR)
            return -1;
    }
}

static int is_hex(const char* s, size_t length)
{
    for (size_t i = 0; i < length; ++i)
        if (!s[i] || !strchr("0123456789abcdef", s[i]))
            return 0;
    return 1;
}

int is_zero_id(const char* s, size_t length)
{
    if (length != 40 && length != 64)
        return 0;
    for (size_t i = 0; i < length; ++i)
        if (s[i] != '0')
            return 0;
    return 1;
}

static int has_prefix(const char* s, size_t length, const char* prefix)
{
    size_t n = strlen(prefix);
    return length > n && memcmp(s, prefix, n) == 0;
}

// The repository's dirs and ref format, found once, when a prepared transaction needs them.
static char s_common[k_path_max], s_git_dir[k_path_max];
static int s_dirs_found; // 0: not looked yet, 1: found, -1: not found

const char* repo_common(void) { return s_common; }
const char* repo_git_dir(void) { return s_git_dir; }

int find_dirs(void)
{
    if (!s_dirs_found)
        s_dirs_found = common_dir(s_common, sizeof s_common) == 0 && git_dir(s_git_dir, sizeof s_git_dir) == 0 ? 1 : -1;
    return s_dirs_found == 1;
}

// Whether the repository stores its refs in reftable (git makes <common>/reftable).
int is_reftable(void)
{
    char path[k_path_max + 16];
    if (!find_dirs())
        return 0;
    return concat(path, sizeof path, s_common, "/reftable", (char*)NULL) == 0 && access(path, F_OK) == 0;
}

// HEAD is guarded only while detached: a symbolic HEAD holds nothing of its own, and the
// branch it names has a line of its own. -1: not read yet.
static int s_head_detached = -1;

static int head_detached(void)
{
    if (s_head_detached < 0) {
        char id[80];
        s_head_detached = find_dirs() && ref_value(s_common, s_git_dir, "HEAD", 4, id, sizeof id) == k_ref_id;
    }
    return s_head_detached;
}

// Branches, saves and a detached HEAD: the refs whose old value can be left on no ref
// (DESIGN §0.6, §4.2).
static int is_guarded_ref(const char* s, size_t length)
{
    // A reftable store keeps no HEAD of its own in a file: git tells the full binary.
    if (length == 4 && memcmp(s, "HEAD", 4) == 0)
        return is_reftable() || head_detached();
    return has_prefix(s, length, "refs/heads/") || has_prefix(s, length, "refs/stranded/");
}

// `<old> <new> <ref>` for a branch, a save or a detached HEAD: a deletion (<new> all
// zeros, <old> an id of the same length, all zeros when git did not check it), or an
// update (<new> an id or a `ref:<target>` of 2.46+, <old> not symbolic: a symbolic ref
// holds no commits). A line naming a guarded ref in a form git never writes is
// unreadable: it is named on stderr and otherwise ignored (git cannot be updating a ref
// it cannot name).
static enum line_kind classify(const char* line, size_t length, struct ref_line* l)
{
    const char* end = line + length;
    const char* old_end = memchr(line, ' ', length);
    const char* new_end = old_end ? memchr(old_end + 1, ' ', (size_t)(end - old_end - 1)) : NULL;
    if (!new_end) {
        int mentions = memmem(line, length, "refs/heads/", 11) || memmem(line, length, "refs/stranded/", 14);
        return mentions ? k_unreadable : k_other;
    }
    *l = (struct ref_line){line, (size_t)(old_end - line), old_end + 1, (size_t)(new_end - old_end - 1),
                           new_end + 1, (size_t)(end - new_end - 1)};
    int named = has_prefix(l->ref, l->ref_length, "refs/heads/") || has_prefix(l->ref, l->ref_length, "refs/stranded/");
    if (named && (memchr(l->ref, ' ', l->ref_length) || memchr(l->ref, '\r', l->ref_length) ||
                  memchr(l->ref, '\0', l->ref_length)))
        return k_unreadable;
    if (!is_guarded_ref(l->ref, l->ref_length) || has_prefix(line, l->old_length, "ref:"))
        return k_other;
    if (has_prefix(l->new_id, l->new_length, "ref:"))
        return k_update;
    if ((l->new_length != 40 && l->new_length != 64) || !is_hex(l->new_id, l->new_length))
        return k_unreadable;
    if (!is_zero_id(l->new_id, l->new_length))
        return l->old_length == l->new_length && is_hex(line, l->old_length) ? k_update : k_unreadable;
    return l->old_length == l->new_length && is_hex(line, l->old_length) ? k_deletion : k_unreadable;
}

// The next line of the input at `*at` (advanced past it), classified into `*l`.
enum line_kind next_line(const char** at, struct ref_line* l)
{
    const char* newline = memchr(*at, '\n', (size_t)(s_input + s_size - *at));
    const char* end = newline ? newline : s_input + s_size;
    enum line_kind kind = classify(*at, (size_t)(end - *at), l);
    *at = end + 1;
    return kind;
}

// Whether the ref, at `old`, is made symbolic by this update, naming a branch whose tip is
// `old`: HEAD attached at a rebase's end, or by `checkout <branch>` from HEAD detached at
// that branch's tip. The branch holds it.
// Object ids compared; a line of the same transaction that moves or deletes the branch is
// classified on its own, and the full binary judges the transaction with this line's
// HEAD counted as holding nothing.
static int attaches_to_its_tip(const struct ref_line* l, const char* old)
{
    const char* target = l->new_id + 4;
    size_t length = l->new_length - 4;
    char tip[80];
    return has_prefix(target, length, "refs/heads/") && !is_reftable() &&
           ref_value(s_common, s_git_dir, target, length, tip, sizeof tip) == k_ref_id && strcmp(tip, old) == 0;
}

// Whether an update provably leaves its old value held, proven without git: the ref is
// new (absent now), was symbolic, keeps its value, moves to a commit whose loose objects
// reach the old value within 64 commits (a commit, a pull), or is HEAD attached to the
// branch at its tip. Anything else (a packed object, a longer fast-forward, a forced move,
// another symref conversion, reftable) goes to the full binary, which asks git once for
// the whole transaction.
static int harmless_update(const struct ref_line* l)
{
    char old[80];
    if (!find_dirs())
        return 0;
    int to_symref = has_prefix(l->new_id, l->new_length, "ref:");
    if (is_zero_id(l->old_id, l->old_length)) {
        // git did not check the old value (`update-ref <ref> <new>`, `branch -f`): read it.
        enum ref_state state = is_reftable() ? k_ref_unknown
                                             : ref_value(s_common, s_git_dir, l->ref, l->ref_length, old, sizeof old);
        if (state == k_ref_absent || state == k_ref_symbolic)
            return 1;
        if (state != k_ref_id || (!to_symref && strlen(old) != l->new_length))
            return 0;
    } else {
        snprintf(old, sizeof old, "%.*s", (int)l->old_length, l->old_id);
    }
    if (to_symref)
        return attaches_to_its_tip(l, old);
    return memcmp(old, l->new_id, l->new_length) == 0 || reaches(s_common, l->new_id, old, l->new_length, 64);
}


// Appends `n` bytes at `text` to the growing buffer `*buf` (`*size` used, `*room` held).
static int append(char** buf, size_t* size, size_t* room, const char* text, size_t n)
{
    if (*size + n + 1 > *room) {
        size_t bigger = (*room ? *room * 2 : 1024); // a commit's one line fits: one heap page
        while (bigger < *size + n + 1)
            bigger *= 2;
        char* grown = realloc(*buf, bigger);
        if (!grown)
            return -1;
        *buf = grown;
        *room = bigger;
    }
    memcpy(*buf + *size, text, n);
    *size += n;
    return 0;
}

char* classified_input(size_t* size)
{
    char* buf = NULL;
    size_t room = 0;
    int failed = 0;
    *size = 0;
    for (const char* at = input_begin(); at < input_end() && !failed;) {
        const char* line = at;
        struct ref_line l = {0};
        enum line_kind kind = next_line(&at, &l);
        char head[2] = {kind == k_deletion ? 'D' : kind == k_update ? (harmless_update(&l) ? 'H' : 'U') : 'O', ' '};
        if (kind == k_unreadable) {
            // Only its first 100 bytes, printable: it is named, never read as a ref.
            failed = append(&buf, size, &room, "X ", 2);
            for (const char* c = line; !failed && c < at - 1 && c < line + 100; ++c)
                failed = append(&buf, size, &room, *c >= 32 && *c < 127 ? c : "?", 1);
            failed = failed || append(&buf, size, &room, "\n", 1);
            continue;
        }
        if (!l.ref) // no `<old> <new> <ref>` at all, naming no branch: not git's
            continue;
        // The line as git wrote it: its three fields are contiguous, ending at the newline.
        size_t length = (size_t)(l.ref + l.ref_length - line);
        failed = append(&buf, size, &room, head, 2) || append(&buf, size, &room, line, length) ||
                 append(&buf, size, &room, "\n", 1);
    }
    if (failed) {
        free(buf);
        return NULL;
    }
    return buf ? buf : calloc(1, 1);
}
