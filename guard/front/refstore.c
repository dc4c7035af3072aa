// The front end's cheap reads of the ref and object stores (see refstore.h). Each read
// is a few pages: a loose ref file, a binary search in packed-refs, one loose object's
// first bytes. Whatever it cannot read that way it reports as unknown.
#include "refstore.h"

#include "common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static int is_hex_id(const char* s, size_t length)
{
    if (length != 40 && length != 64)
        return 0;
    for (size_t i = 0; i < length; ++i)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

// A ref file's content ("<id>\n" or "ref: <target>\n") as a state.
static enum ref_state parse_value(const char* text, size_t length, char* id, size_t size)
{
    while (length && (text[length - 1] == '\n' || text[length - 1] == '\r'))
        --length;
    if (length >= 4 && memcmp(text, "ref:", 4) == 0)
        return k_ref_symbolic;
    if (!is_hex_id(text, length) || length >= size)
        return k_ref_unknown;
    memcpy(id, text, length);
    id[length] = '\0';
    return k_ref_id;
}

// A small file read whole; -1 when it does not exist, -2 when it cannot be read.
static long read_small(const char* path, char* buffer, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return access(path, F_OK) == 0 ? -2 : -1;
    ssize_t n = read(fd, buffer, size);
    close(fd);
    return n < 0 || (size_t)n == size ? -2 : (long)n;
}

// The start of the record holding `p` (a "^<peeled>" line belongs to the record before).
static const char* record_start(const char* lo, const char* p)
{
    while (p > lo && (p[-1] != '\n' || p[0] == '^'))
        --p;
    return p;
}

// The start of the record after the one holding `p`.
static const char* record_end(const char* p, const char* hi)
{
    while (++p < hi && (p[-1] != '\n' || p[0] == '^'))
        ;
    return p;
}

// How the record at `rec` ("<id> <name>\n") orders against `ref`; its id in `*id`.
static int compare_record(const char* rec, const char* hi, const char* ref, size_t length,
                          const char** id, size_t* id_length)
{
    const char* space = memchr(rec, ' ', (size_t)(hi - rec));
    if (!space)
        return 1; // malformed: the caller gives up at the end anyway
    *id = rec;
    *id_length = (size_t)(space - rec);
    const char* name = space + 1;
    const char* newline = memchr(name, '\n', (size_t)(hi - name));
    size_t name_length = (size_t)((newline ? newline : hi) - name);
    int c = memcmp(name, ref, name_length < length ? name_length : length);
    if (c)
        return c;
    return name_length < length ? -1 : name_length > length;
}

// `ref`'s record in the mapped packed-refs `[buf, buf + size)`: binary search when its
// header says "sorted" (git writes it so), a line scan otherwise.
static enum ref_state search_packed(const char* buf, size_t size, const char* ref, size_t length,
                                    char* id, size_t id_size)
{
    const char* lo = buf;
    const char* hi = buf + size;
    int sorted = 0;
    if (size && buf[0] == '#') {
        const char* newline = memchr(buf, '\n', size);
        if (!newline)
            return k_ref_unknown;
        sorted = memmem(buf, (size_t)(newline - buf), " sorted", 7) != NULL;
        lo = newline + 1;
    }
    const char* found = NULL;
    size_t found_length = 0;
    while (lo < hi) {
        const char* mid = sorted ? record_start(lo, lo + (hi - lo) / 2) : lo;
        const char* rec_id;
        size_t rec_id_length;
        int c = compare_record(mid, hi, ref, length, &rec_id, &rec_id_length);
        if (c == 0) {
            found = rec_id;
            found_length = rec_id_length;
            break;
        }
        if (sorted && c > 0)
            hi = mid;
        else
            lo = record_end(mid, hi);
    }
    if (!found)
        return k_ref_absent;
    return parse_value(found, found_length, id, id_size);
}

enum ref_state packed_value(const char* common, const char* ref, size_t length, char* id, size_t size)
{
    char path[k_path_max + 32];
    snprintf(path, sizeof path, "%s/packed-refs", common);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return access(path, F_OK) == 0 ? k_ref_unknown : k_ref_absent;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return k_ref_unknown;
    }
    if (st.st_size == 0) {
        close(fd);
        return k_ref_absent;
    }
    char* packed = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (packed == MAP_FAILED)
        return k_ref_unknown;
    enum ref_state state = search_packed(packed, (size_t)st.st_size, ref, length, id, size);
    munmap(packed, (size_t)st.st_size);
    return state;
}

enum ref_state ref_value(const char* common, const char* git_dir, const char* ref, size_t length,
                         char* id, size_t size)
{
    char path[2 * k_path_max], text[k_path_max];
    int head = length == 4 && memcmp(ref, "HEAD", 4) == 0;
    if (!head && (length < 5 || memcmp(ref, "refs/", 5) != 0))
        return k_ref_unknown;
    if (snprintf(path, sizeof path, "%s/%.*s", head ? git_dir : common, (int)length, ref) >= (int)sizeof path)
        return k_ref_unknown;
    long n = read_small(path, text, sizeof text);
    if (n >= 0)
        return parse_value(text, (size_t)n, id, size);
    if (n == -2 || head)
        return n == -2 ? k_ref_unknown : k_ref_absent;
    return packed_value(common, ref, length, id, size);
}

// Inflates the first bytes of the loose object at `path` into `out` (`*got` bytes).
static int inflate_head(const char* path, unsigned char* out, size_t size, size_t* got)
{
    static unsigned char packed[65536];
    long n = read_small(path, (char*)packed, sizeof packed);
    if (n <= 0)
        return -1;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK)
        return -1;
    z.next_in = packed;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)size;
    int rc = Z_OK;
    while (rc == Z_OK && z.avail_out && z.avail_in)
        rc = inflate(&z, Z_NO_FLUSH);
    *got = size - z.avail_out;
    inflateEnd(&z);
    return rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR ? 0 : -1;
}

// The parents of the loose commit `id` (hex, `length`), into `parents` (at most `max`,
// each `length` bytes, not terminated). Returns their count, or -1 when it cannot tell
// (not loose, not a commit, more parents than fit).
static int loose_parents(const char* common, const char* id, size_t length, char* parents, int max)
{
    char path[k_path_max + 96], own[k_path_max + 16];
    unsigned char head[8192];
    size_t got = 0;
    const char* dirs[2] = {getenv("GIT_OBJECT_DIRECTORY"), own};
    snprintf(own, sizeof own, "%s/objects", common);
    int read_one = -1;
    for (int i = 0; i < 2 && read_one != 0; ++i) {
        if (!dirs[i] || !*dirs[i])
            continue;
        snprintf(path, sizeof path, "%s/%.2s/%.*s", dirs[i], id, (int)length - 2, id + 2);
        read_one = inflate_head(path, head, sizeof head, &got);
    }
    const char* text = (const char*)head;
    const char* end = text + got;
    const char* nul = read_one == 0 ? memchr(text, '\0', got) : NULL;
    if (!nul || got < 7 || memcmp(text, "commit ", 7) != 0)
        return -1;
    // "tree <id>\n", then one "parent <id>\n" per parent, then the author.
    const char* line = nul + 1;
    if ((size_t)(end - line) < 6 + length || memcmp(line, "tree ", 5) != 0)
        return -1;
    int n = 0;
    for (line += 6 + length; (size_t)(end - line) >= 8 + length && memcmp(line, "parent ", 7) == 0;
         line += 8 + length) {
        if (n == max || line[7 + length] != '\n' || !is_hex_id(line + 7, length))
            return -1;
        memcpy(parents + (size_t)n++ * length, line + 7, length);
    }
    // The author line follows the parents; anything else: the head was cut, or odd.
    return (size_t)(end - line) >= 7 && memcmp(line, "author ", 7) == 0 ? n : -1;
}

int reaches(const char* common, const char* child, const char* ancestor, size_t length, int limit)
{
    enum { k_most = 64 };
    char seen[k_most * 64], parents[16 * 64];
    int stacked = 0, visited = 0;
    if (!is_hex_id(child, length) || !is_hex_id(ancestor, length) || limit > k_most)
        return 0;
    memcpy(seen, child, length);
    stacked = 1;
    // Depth first over `seen` as a stack of ids still to read; `visited` of them read.
    while (visited < stacked && visited < limit) {
        const char* id = seen + (size_t)visited++ * length;
        int n = loose_parents(common, id, length, parents, 16);
        if (n < 0)
            return 0;
        for (int i = 0; i < n; ++i) {
            const char* p = parents + (size_t)i * length;
            if (memcmp(p, ancestor, length) == 0)
                return 1;
            if (stacked < k_most)
                memcpy(seen + (size_t)stacked++ * length, p, length);
        }
    }
    return 0;
}
