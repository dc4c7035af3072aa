// git-guard-hook: the first stage of the reference-transaction hook. git starts it
// directly, with no shell (DESIGN §11): the installed hook is a link to it, run as
// `<hook path> <state>`; a configured hook (git >= 2.54) runs it as
// `git-guard-hook <state>`; the first version's stub ran `git-guard-hook <hook path>
// <state>`. It starts the full git-guard only when a prepared transaction deletes a
// branch, a save or a detached HEAD, or moves one in a way it cannot prove harmless
// (refstore.c: a new ref, a fast-forward through loose commits); every other transaction costs one
// small process. A user's earlier
// hook, moved to reference-transaction.guard-chained, runs after it with the same
// input, in every state.
#include "common.h"
#include "places.h"
#include "refstore.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { k_small_input = 65536 };

static char s_small[k_small_input];
static char* s_input = s_small;
static size_t s_size;

// Reads all of stdin (a closed stdin is empty). A transaction can name thousands of
// refs, so the buffer grows. Returns 0, or -1 with errno set when input was lost.
static int read_input(void)
{
    size_t capacity = sizeof s_small;
    for (;;) {
        if (s_size == capacity) {
            char* bigger = malloc(capacity * 2);
            if (!bigger)
                return -1;
            memcpy(bigger, s_input, s_size);
            if (s_input != s_small)
                free(s_input);
            s_input = bigger;
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

static int is_zero_id(const char* s, size_t length)
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

static int find_dirs(void)
{
    if (!s_dirs_found)
        s_dirs_found = common_dir(s_common, sizeof s_common) == 0 && git_dir(s_git_dir, sizeof s_git_dir) == 0 ? 1 : -1;
    return s_dirs_found == 1;
}

// Whether the repository stores its refs in reftable (git makes <common>/reftable).
static int is_reftable(void)
{
    char path[k_path_max + 16];
    if (!find_dirs())
        return 0;
    snprintf(path, sizeof path, "%s/reftable", s_common);
    return access(path, F_OK) == 0;
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

enum line_kind { k_other, k_deletion, k_update, k_unreadable };

struct ref_line {
    const char* old_id;
    size_t old_length;
    const char* new_id;
    size_t new_length;
    const char* ref;
    size_t ref_length;
};

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
static enum line_kind next_line(const char** at, struct ref_line* l)
{
    const char* newline = memchr(*at, '\n', (size_t)(s_input + s_size - *at));
    const char* end = newline ? newline : s_input + s_size;
    enum line_kind kind = classify(*at, (size_t)(end - *at), l);
    *at = end + 1;
    return kind;
}

// Whether an update provably leaves its old value held, proven without git: the ref is
// new (absent now), was symbolic, keeps its value, or moves to a commit whose loose objects
// reach the old value within 64 commits (a commit, a pull). Anything else (a packed
// object, a longer fast-forward, a forced move, a symref conversion, reftable)
// goes to the full binary, which asks git once for the whole transaction.
static int harmless_update(const struct ref_line* l)
{
    char old[80];
    if (!find_dirs())
        return 0;
    if (is_zero_id(l->old_id, l->old_length)) {
        // git did not check the old value (`update-ref <ref> <new>`, `branch -f`): read it.
        enum ref_state state = is_reftable() ? k_ref_unknown
                                             : ref_value(s_common, s_git_dir, l->ref, l->ref_length, old, sizeof old);
        if (state == k_ref_absent || state == k_ref_symbolic)
            return 1;
        if (state != k_ref_id || strlen(old) != l->new_length)
            return 0;
    } else {
        snprintf(old, sizeof old, "%.*s", (int)l->old_length, l->old_id);
    }
    if (has_prefix(l->new_id, l->new_length, "ref:"))
        return 0;
    return memcmp(old, l->new_id, l->new_length) == 0 || reaches(s_common, l->new_id, old, l->new_length, 64);
}

// Whether every deletion is ref packing pruning a loose ref (pack-refs, gc, auto-gc,
// maintenance, `git refs optimize`): the ref's old value is already in packed-refs,
// and nobody holds packed-refs.lock. A real deletion of a packed ref holds that lock
// in `prepared` (git rewrites packed-refs), and one of a loose-only ref is not in
// packed-refs at its old value. A deletion git did not check (old all zeros) is real.
// Observed the same on git 2.39 and 2.55; any doubt counts as a real deletion. git runs
// the hook once per pruned ref: each lookup is a binary search, never a read of the
// whole packed-refs (issue 20: gc was quadratic).
static int only_pruning(void)
{
    char path[k_path_max + 32], packed[80];
    if (!find_dirs())
        return 0;
    snprintf(path, sizeof path, "%s/packed-refs.lock", s_common);
    if (access(path, F_OK) == 0)
        return 0;
    struct ref_line l;
    for (const char* at = s_input; at < s_input + s_size;)
        if (next_line(&at, &l) == k_deletion &&
            (is_zero_id(l.old_id, l.old_length) ||
             packed_value(s_common, l.ref, l.ref_length, packed, sizeof packed) != k_ref_id ||
             strlen(packed) != l.old_length || memcmp(packed, l.old_id, l.old_length) != 0))
            return 0;
    return 1;
}

// The tip `ref` was judged at in the record `f` (after its first line), into `recorded`.
static void recorded_tip(FILE* f, const struct ref_line* l, char* recorded, size_t size)
{
    char line[k_path_max + 80], want[k_path_max + 80];
    snprintf(want, sizeof want, " %.*s\n", (int)l->ref_length, l->ref);
    recorded[0] = '\0';
    rewind(f);
    if (!fgets(line, sizeof line, f))
        return;
    while (!recorded[0] && fgets(line, sizeof line, f))
        if (strlen(line) > l->old_length && strcmp(line + l->old_length, want) == 0)
            snprintf(recorded, size, "%.*s", (int)l->old_length, line);
}

// Whether git (our parent) already had every deletion here judged, at the same tip:
// git 2.39 deletes N branches as one packed-refs transaction and then N loose ones,
// each running the hook. The full binary records what it judged in
// <common>/guard/hook-judged with git's pid and start time; a ref still holds the
// judged tip when its loose file says so, or when it is gone from both stores.
// In a reftable repository the judgement was made in `preparing`, in the same git: the
// record alone tells (the ref store is locked and has no loose files to compare).
static int already_judged(int reftable)
{
    char path[k_path_max + 64], line[k_path_max + 80];
    if (!find_dirs())
        return 0;
    snprintf(path, sizeof path, "%s/guard/hook-judged", s_common);
    FILE* f = fopen(path, "re");
    long pid = 0;
    unsigned long long started = 0;
    int all = f && fgets(line, sizeof line, f) && sscanf(line, "%ld %llu", &pid, &started) == 2 &&
              pid == (long)getppid() && started == start_time(pid) && started != 0;
    struct ref_line l;
    for (const char* at = s_input; all && at < s_input + s_size;) {
        if (next_line(&at, &l) != k_deletion)
            continue;
        char recorded[80], now[80];
        recorded_tip(f, &l, recorded, sizeof recorded);
        snprintf(path, sizeof path, "%s/%.*s", s_common, (int)l.ref_length, l.ref);
        FILE* r = fopen(path, "re");
        int has_loose = r && fgets(now, sizeof now, r);
        if (r)
            fclose(r);
        now[has_loose ? strcspn(now, "\n") : 0] = '\0';
        all = recorded[0] &&
              (is_zero_id(l.old_id, l.old_length) || memcmp(l.old_id, recorded, l.old_length) == 0) &&
              (reftable    ? !is_zero_id(l.old_id, l.old_length)
               : has_loose ? strcmp(now, recorded) == 0
                           : packed_value(s_common, l.ref, l.ref_length, now, sizeof now) == k_ref_absent);
    }
    if (f)
        fclose(f);
    return all;
}

// Counts the deletions and the updates not proven harmless. With `why`, names each as
// unchecked; without, names the first unreadable line (and how many there were).
static void scan(const char* why, int* deletions, int* updates)
{
    int unreadable = 0;
    *deletions = *updates = 0;
    struct ref_line l;
    for (const char* at = s_input; at < s_input + s_size;) {
        const char* line = at;
        enum line_kind kind = next_line(&at, &l);
        int judged = kind == k_deletion || (kind == k_update && !harmless_update(&l));
        *deletions += kind == k_deletion;
        *updates += kind == k_update && judged;
        if (!why && kind == k_unreadable && unreadable++ == 0) {
            fputs("git-guard: ignored a ref update git does not write: '", stderr);
            for (const char* c = line; c < at - 1 && c < line + 100; ++c)
                fputs(*c >= 32 && *c < 127 ? (char[]){*c, 0} : "?", stderr);
            fputs("'\n", stderr);
        }
        if (why && judged)
            fprintf(stderr, "git-guard: refusing to %s %.*s unchecked: %s\n",
                    kind == k_deletion ? "delete" : "move", (int)l.ref_length, l.ref, why);
    }
    if (unreadable > 1)
        fprintf(stderr, "git-guard: ... %d such lines in all\n", unreadable);
    if (why && (*deletions || *updates))
        fprintf(stderr, "git-guard: reinstall git-guard (git guard install), or update "
                        "with the guard off: git -c core.hooksPath=/dev/null ...\n");
}

// Whether the full binary must judge this prepared transaction.
static int needs_judging(int reftable)
{
    int deletions, updates;
    scan(NULL, &deletions, &updates);
    return updates > 0 || (deletions > 0 && !only_pruning() && !already_judged(reftable));
}

// A file holding the input, rewound before each child so that each reads all of it.
static int input_file(void)
{
    int fd = memfd_create("git-guard-input", MFD_CLOEXEC);
    if (fd < 0) {
        const char* tmp = getenv("TMPDIR");
        fd = open(tmp && *tmp ? tmp : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    }
    if (fd < 0)
        return -1;
    for (size_t done = 0; done < s_size;) {
        ssize_t n = write(fd, s_input + done, s_size - done);
        if (n < 0 && errno != EINTR) {
            close(fd);
            return -1;
        }
        done += n > 0 ? (size_t)n : 0;
    }
    return fd;
}

// Runs `argv` with the input on its stdin; it dies with us (SIGKILL on our death).
// Returns its status, or 1 after saying why it could not run or was killed.
static int run_tied(char* const argv[], int input)
{
    int signal_number = 0;
    pid_t pid = input < 0 || lseek(input, 0, SEEK_SET) != 0 ? -1 : spawn_tied(argv, input, SIGKILL);
    int status = pid < 0 ? -1 : wait_for(pid, &signal_number);
    if (status >= 0 && !signal_number)
        return status;
    if (status < 0)
        fprintf(stderr, "git-guard: cannot run %s: %s\n", argv[0],
                input < 0 ? "cannot hand it the ref updates" : strerror(errno));
    else
        fprintf(stderr, "git-guard: %s was killed by signal %d\n", argv[0], signal_number);
    return 1;
}

int main(int argc, char** argv)
{
    if (wants_guard_version(argc, argv, "git-guard-hook"))
        return 0;
    if (argc < 2 || argc > 3) {
        fputs("usage: <hook path> <state>, or git-guard-hook [<hook path>] <state>\n", stderr);
        return 2;
    }
    const char* hook_path = argc == 3 ? argv[1] : argv[0];
    const char* state = argv[argc - 1];
    // git holds a reftable store locked in `prepared`, so no save ref could be written
    // then: there, the deletion is judged in `preparing` (git >= 2.54), before any lock,
    // and `prepared` only when no `preparing` judged it (the full binary keeps a bundle).
    int reftable = is_reftable();
    int prepared = strcmp(state, "prepared") == 0 || (reftable && strcmp(state, "preparing") == 0);
    if (read_input() != 0 && prepared) {
        // What went unread may delete a branch: refuse rather than let it through.
        fprintf(stderr, "git-guard: cannot read the ref updates: %s\n", strerror(errno));
        return 1;
    }
    int guarded = prepared && needs_judging(reftable);
    char chained[k_path_max];
    int has_chained = find_chained(hook_path, chained, sizeof chained);
    if (!guarded && !has_chained)
        return 0;
    char full[k_path_max], tried[4 * k_path_max], why[5 * k_path_max];
    if (guarded && find_full(hook_path, full, sizeof full, tried, sizeof tried) != 0) {
        snprintf(why, sizeof why, "git-guard is missing (looked for %s)", tried);
        int deletions, updates;
        scan(why, &deletions, &updates);
        return 1;
    }
    int input = input_file();
    char* ours[] = {full, (char*)"hook", (char*)"reference-transaction", (char*)state, NULL};
    if (guarded && !has_chained && input >= 0 && lseek(input, 0, SEEK_SET) == 0) {
        // Nothing runs after it: become it, so that whoever kills the hook kills it.
        dup2(input, 0);
        execv(full, ours);
        fprintf(stderr, "git-guard: cannot run %s: %s\n", full, strerror(errno));
        return 1;
    }
    int status = guarded ? run_tied(ours, input) : 0;
    char* theirs[] = {chained, (char*)state, NULL};
    int chained_status = has_chained ? run_tied(theirs, input) : 0;
    return status ? status : chained_status;
}
