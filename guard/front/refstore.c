// The front end's cheap reads of the ref and object stores (see refstore.h). Each read
// is a few pages: a loose ref file, a binary search in packed-refs, one loose object's
// first bytes. Whatever it cannot read that way it reports as unknown.
#include "refstore.h"

#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
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
    if (join_span(path, sizeof path, head ? git_dir : common, ref, length) != 0)
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

// The parents listed in a commit's text at [text, end) ("tree <id>\n", then one
// "parent <id>\n" each, then the author), into `parents` (at most `max`, each `length`
// bytes, not terminated). Returns their count, or -1 when it cannot tell (cut short, odd).
static int parse_parents(const char* text, const char* end, size_t length, char* parents, int max)
{
    const char* line = text;
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

// The packs of one object directory: each `pack/*.idx` (version 2) mapped once per
// process. More packs than fit, or an index of another version: nothing is read from
// that directory's packs (the full binary asks git).
enum { k_most_packs = 64 };
struct pack_dir {
    char dir[k_path_max];
    int count; // -1: too many, or unreadable
    struct {
        const unsigned char* idx;
        size_t size;
        char name[96]; // pack-<id>.pack: git's names; a longer one is not read
    } packs[k_most_packs];
};

static uint32_t be32(const unsigned char* p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void map_packs(struct pack_dir* d, size_t hash)
{
    char path[k_path_max + 300]; // the directory (below k_path_max) and a pack's name
    int dir_length = (int)strnlen(d->dir, k_path_max - 1);
    snprintf(path, sizeof path, "%.*s/pack", dir_length, d->dir);
    DIR* dir = opendir(path);
    d->count = 0;
    for (struct dirent* e; dir && (e = readdir(dir));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || n > 90 || strcmp(e->d_name + n - 4, ".idx") != 0)
            continue;
        if (d->count == k_most_packs) {
            d->count = -1;
            break;
        }
        snprintf(path, sizeof path, "%.*s/pack/%.255s", dir_length, d->dir, e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        void* map = fd >= 0 && fstat(fd, &st) == 0 && st.st_size >= 8 + 1024
                        ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
                        : MAP_FAILED;
        if (fd >= 0)
            close(fd);
        const unsigned char* idx = map == MAP_FAILED ? NULL : map;
        // Version 2: "\377tOc", 2, the fan-out, then per object its id, CRC and offset.
        if (!idx || memcmp(idx, "\377tOc", 4) != 0 || be32(idx + 4) != 2 ||
            (size_t)st.st_size < 8 + 1024 + (size_t)be32(idx + 8 + 255 * 4) * (hash + 8)) {
            d->count = -1;
            break;
        }
        d->packs[d->count].idx = idx;
        d->packs[d->count].size = (size_t)st.st_size;
        snprintf(d->packs[d->count].name, sizeof d->packs[d->count].name, "%.*s.pack", (int)(n - 4), e->d_name);
        ++d->count;
    }
    if (dir)
        closedir(dir);
}

static int hex_value(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }

// Where the object `want` (`hash` bytes) is in `d`'s packs: 0 and `*pack`, `*offset`, or -1.
static int find_packed(const struct pack_dir* d, const unsigned char* want, size_t hash, int* pack, uint64_t* offset)
{
    for (int p = 0; p < d->count; ++p) {
        const unsigned char* idx = d->packs[p].idx;
        uint32_t total = be32(idx + 8 + 255 * 4);
        uint32_t lo = want[0] ? be32(idx + 8 + (want[0] - 1) * 4) : 0, hi = be32(idx + 8 + want[0] * 4);
        const unsigned char* ids = idx + 8 + 1024;
        if (hi > total || lo > hi)
            return -1; // a fan-out no index of git's has
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            int cmp = memcmp(ids + (size_t)mid * hash, want, hash);
            if (cmp == 0) {
                lo = hi = mid;
                break;
            }
            cmp < 0 ? (lo = mid + 1) : (hi = mid);
        }
        if (lo >= total || memcmp(ids + (size_t)lo * hash, want, hash) != 0)
            continue;
        const unsigned char* offsets = ids + (size_t)total * (hash + 4);
        uint64_t at = be32(offsets + (size_t)lo * 4);
        if (at & 0x80000000u) {
            const unsigned char* large = offsets + (size_t)total * 4 + (at & 0x7fffffffu) * 8;
            if (large + 8 > idx + d->packs[p].size)
                return -1;
            at = (uint64_t)be32(large) << 32 | be32(large + 4);
        }
        *pack = p;
        *offset = at;
        return 0;
    }
    return -1;
}

enum { k_most_object = 65536, k_most_depth = 50 };

// Inflates `size` bytes stored at `at` (`avail` bytes read) into `out`: 0 when whole.
static int inflate_all(const unsigned char* at, size_t avail, unsigned char* out, size_t size)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK)
        return -1;
    z.next_in = (unsigned char*)at;
    z.avail_in = (uInt)avail;
    z.next_out = out;
    z.avail_out = (uInt)size;
    int rc = Z_OK;
    while (rc == Z_OK && z.avail_in)
        rc = inflate(&z, Z_FINISH);
    size_t got = size - z.avail_out;
    inflateEnd(&z);
    return rc == Z_STREAM_END && got == size ? 0 : -1;
}

// A delta's size field (7 bits a byte, least significant first) at `*at`, below `end`.
static size_t delta_size(const unsigned char** at, const unsigned char* end)
{
    size_t n = 0;
    int shift = 0;
    for (unsigned char c = 0x80; (c & 0x80) && *at < end && shift < 32; shift += 7) {
        c = *(*at)++;
        n |= (size_t)(c & 0x7f) << shift;
    }
    return n;
}

// `delta` (`size` bytes) applied to `base` (`base_size`), into `out` (at most `cap`).
static long apply_delta(const unsigned char* base, size_t base_size, const unsigned char* delta, size_t size,
                        unsigned char* out, size_t cap)
{
    const unsigned char* at = delta;
    const unsigned char* end = delta + size;
    if (delta_size(&at, end) != base_size)
        return -1;
    size_t result = delta_size(&at, end), made = 0;
    if (result > cap)
        return -1;
    while (at < end) {
        unsigned char op = *at++;
        if (op & 0x80) { // copy from the base: offset and size, each byte present when its bit is set
            size_t from = 0, n = 0;
            for (int i = 0; i < 4; ++i)
                if (op & (1 << i))
                    from |= (size_t)(at < end ? *at++ : 0) << (8 * i);
            for (int i = 0; i < 3; ++i)
                if (op & (0x10 << i))
                    n |= (size_t)(at < end ? *at++ : 0) << (8 * i);
            n = n ? n : 0x10000;
            if (from + n > base_size || made + n > result)
                return -1;
            memcpy(out + made, base + from, n);
            made += n;
        } else if (op) { // insert the next `op` bytes
            if ((size_t)(end - at) < op || made + op > result)
                return -1;
            memcpy(out + made, at, op);
            at += op;
            made += op;
        } else {
            return -1;
        }
    }
    return made == result ? (long)made : -1;
}

// The object at `offset` of pack `p` of `d`, whole (deltas applied, at most `k_most_depth`
// deep and `k_most_object` bytes), into `out`; its type (1: commit) into `*type`. Returns
// its size, or -1.
static long unpack_at(const struct pack_dir* d, int p, uint64_t offset, size_t hash, unsigned char* out, int* type,
                      int depth)
{
    unsigned char* stored = malloc(k_most_object + 1024);
    long result = -1;
    char path[k_path_max + 128];
    snprintf(path, sizeof path, "%.*s/pack/%s", (int)strnlen(d->dir, k_path_max - 1), d->dir, d->packs[p].name);
    int fd = stored ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    ssize_t n = fd >= 0 ? pread(fd, stored, k_most_object + 1024, (off_t)offset) : -1;
    if (fd >= 0)
        close(fd);
    const unsigned char* end = stored + (n > 0 ? n : 0);
    const unsigned char* at = stored;
    // The entry's header: its type in bits 4-6 of the first byte, its size in the rest.
    int kind = n > 0 ? (*at >> 4) & 7 : 0;
    size_t size = n > 0 ? (size_t)(*at & 15) : 0;
    for (int shift = 4; n > 0 && at < end && (*at & 0x80) && shift < 32; shift += 7) {
        ++at;
        size |= (size_t)(at < end ? *at & 0x7f : 0) << shift;
    }
    ++at;
    if (n <= 0 || at >= end || size > k_most_object || kind == 0 || kind == 5) {
        free(stored);
        return -1;
    }
    if (kind <= 4) {
        *type = kind;
        result = inflate_all(at, (size_t)(end - at), out, size) == 0 ? (long)size : -1;
        free(stored);
        return result;
    }
    // A delta: its base at a distance before it (6), or named by id (7).
    int base_pack = p;
    uint64_t base_offset = 0;
    if (kind == 6) {
        uint64_t back = *at & 0x7f;
        while ((*at & 0x80) && at + 1 < end)
            back = ((back + 1) << 7) | (*++at & 0x7f);
        ++at;
        base_offset = back <= offset ? offset - back : 0;
        if (back == 0 || back > offset)
            kind = 0;
    } else if ((size_t)(end - at) < hash || find_packed(d, at, hash, &base_pack, &base_offset) != 0) {
        kind = 0; // a base in no pack of this directory (a thin pack's): not read here
    } else {
        at += hash;
    }
    unsigned char* delta = kind && depth > 0 ? malloc(size ? size : 1) : NULL;
    int inflated = delta && inflate_all(at, (size_t)(end - at), delta, size) == 0;
    free(stored); // before the base is read: a chain holds one delta per step, not its pack bytes
    unsigned char* base = inflated ? malloc(k_most_object) : NULL;
    long base_size = base ? unpack_at(d, base_pack, base_offset, hash, base, type, depth - 1) : -1;
    if (base_size >= 0)
        result = apply_delta(base, (size_t)base_size, delta, size, out, k_most_object);
    free(base);
    free(delta);
    return result;
}

// The commit `id` (hex, `length`) as one of `d`'s packs stores it, inflated into `out`
// (at least `k_most_object` bytes; `*got` of them): 0 when read, -1 when not in a pack, not
// a commit, or unreadable.
static int packed_head(const struct pack_dir* d, const char* id, size_t length, unsigned char* out, size_t* got)
{
    size_t hash = length / 2;
    unsigned char want[32];
    for (size_t i = 0; i < hash; ++i)
        want[i] = (unsigned char)(hex_value(id[2 * i]) << 4 | hex_value(id[2 * i + 1]));
    int pack = 0, type = 0;
    uint64_t offset = 0;
    if (find_packed(d, want, hash, &pack, &offset) != 0)
        return -1;
    long n = unpack_at(d, pack, offset, hash, out, &type, k_most_depth);
    if (n < 0 || type != 1)
        return -1;
    *got = (size_t)n;
    return 0;
}

// The parents of the commit `id` (hex, `length`), read from its loose object, else from a
// pack that stores it whole, in $GIT_OBJECT_DIRECTORY (a push's quarantine) or
// `common`/objects, into `parents` (at most `max`). Returns their count, or -1 when it
// cannot tell cheaply (not found, a delta, not a commit, more parents than fit).
static int commit_parents(const char* common, const char* id, size_t length, char* parents, int max)
{
    static struct pack_dir dirs[2];
    char path[k_path_max + 96];
    unsigned char head[8192];
    size_t got = 0;
    const char* env = getenv("GIT_OBJECT_DIRECTORY");
    for (int i = 0; i < 2; ++i) {
        char dir[k_path_max];
        if (i == 0 && (!env || !*env))
            continue;
        if ((i == 0 ? concat(dir, sizeof dir, env, (char*)NULL)
                    : concat(dir, sizeof dir, common, "/objects", (char*)NULL)) != 0 ||
            join_span(path, sizeof path, dir, id, 2) != 0 ||
            join_span(path + strlen(path), sizeof path - strlen(path), "", id + 2, length - 2) != 0)
            continue; // a name too long for any object directory git could use

        if (inflate_head(path, head, sizeof head, &got) == 0) {
            const char* text = (const char*)head;
            const char* nul = memchr(text, '\0', got);
            return nul && got >= 7 && memcmp(text, "commit ", 7) == 0
                       ? parse_parents(nul + 1, text + got, length, parents, max)
                       : -1;
        }
        if (strcmp(dirs[i].dir, dir) != 0) {
            snprintf(dirs[i].dir, sizeof dirs[i].dir, "%s", dir);
            map_packs(&dirs[i], length / 2);
        }
        static unsigned char whole[k_most_object];
        if (packed_head(&dirs[i], id, length, whole, &got) == 0)
            return parse_parents((const char*)whole, (const char*)whole + got, length, parents, max);
    }
    return -1;
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
        int n = commit_parents(common, id, length, parents, 16);
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
