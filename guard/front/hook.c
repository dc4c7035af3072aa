// git-guard-hook: the first stage of the reference-transaction hook. git starts it
// directly, with no shell (DESIGN §11): the installed hook is a link to it, run as
// `<hook path> <state>`; a configured hook (git >= 2.54) runs it as
// `git-guard-hook <state>`; the first version's stub ran `git-guard-hook <hook path>
// <state>`. It starts the full git-guard only when a prepared transaction deletes a
// branch or a save; every other transaction costs one small process. A user's earlier
// hook, moved to reference-transaction.guard-chained, runs after it with the same
// input, in every state.
#include "common.h"
#include "places.h"

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

// Branches and saves: the refs whose deletion can lose work (DESIGN §4.2, C1).
static int is_guarded_ref(const char* s, size_t length)
{
    return has_prefix(s, length, "refs/heads/") || has_prefix(s, length, "refs/stranded/");
}

enum line_kind { k_other, k_deletion, k_unreadable };

// `<old> <new> <ref>` deleting a branch or a save: <new> all zeros, <old> an id of the
// same length (all zeros when git did not check it). An old `ref:<target>` (2.46) is a
// symbolic ref's deletion, which holds no commits; a new `ref:` value is no deletion.
// A line naming a guarded ref in a form git never writes is unreadable: it is named
// on stderr and otherwise ignored (git cannot be deleting a ref it cannot name).
static enum line_kind classify(const char* line, size_t length, const char** old_id,
                               size_t* old_length)
{
    const char* end = line + length;
    const char* old_end = memchr(line, ' ', length);
    const char* new_end = old_end ? memchr(old_end + 1, ' ', (size_t)(end - old_end - 1)) : NULL;
    if (!new_end) {
        int mentions = memmem(line, length, "refs/heads/", 11) || memmem(line, length, "refs/stranded/", 14);
        return mentions ? k_unreadable : k_other;
    }
    const char* new_id = old_end + 1;
    const char* ref = new_end + 1;
    size_t ref_length = (size_t)(end - ref);
    size_t new_length = (size_t)(new_end - new_id);
    *old_id = line;
    *old_length = (size_t)(old_end - line);
    if (!is_guarded_ref(ref, ref_length))
        return k_other;
    if (memchr(ref, ' ', ref_length) || memchr(ref, '\r', ref_length) || memchr(ref, '\0', ref_length))
        return k_unreadable;
    if (has_prefix(new_id, new_length, "ref:"))
        return k_other;
    if ((new_length != 40 && new_length != 64) || !is_hex(new_id, new_length))
        return k_unreadable;
    if (!is_zero_id(new_id, new_length) || has_prefix(line, *old_length, "ref:"))
        return k_other;
    return *old_length == new_length && is_hex(line, *old_length) ? k_deletion : k_unreadable;
}

// Whether every deletion is ref packing pruning a loose ref (pack-refs, gc, auto-gc,
// maintenance, `git refs optimize`): the ref's old value is already in packed-refs,
// and nobody holds packed-refs.lock. A real deletion of a packed ref holds that lock
// in `prepared` (git rewrites packed-refs), and one of a loose-only ref is not in
// packed-refs at its old value. A deletion git did not check (old all zeros) is real.
// Observed the same on git 2.39 and 2.55; any doubt counts as a real deletion.
static int only_pruning(void)
{
    char common[k_path_max], path[k_path_max + 32];
    if (common_dir(common, sizeof common) != 0)
        return 0;
    snprintf(path, sizeof path, "%s/packed-refs.lock", common);
    if (access(path, F_OK) == 0)
        return 0;
    snprintf(path, sizeof path, "%s/packed-refs", common);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    char* packed = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (packed == MAP_FAILED)
        return 0;
    int all = 1;
    for (const char* line = s_input; all && line < s_input + s_size;) {
        const char* newline = memchr(line, '\n', (size_t)(s_input + s_size - line));
        const char* end = newline ? newline : s_input + s_size;
        const char* old_id;
        size_t old_length;
        if (classify(line, (size_t)(end - line), &old_id, &old_length) == k_deletion) {
            // packed-refs holds "<old> <ref>\n": the line without its zero new value.
            const char* ref = old_id + 2 * old_length + 2;
            char want[k_path_max];
            int n = snprintf(want, sizeof want, "%.*s %.*s\n", (int)old_length, old_id,
                             (int)(end - ref), ref);
            all = !is_zero_id(old_id, old_length) && n > 0 && (size_t)n < sizeof want &&
                  ((size_t)n <= (size_t)st.st_size && memmem(packed, (size_t)st.st_size, want, (size_t)n));
        }
        line = end + 1;
    }
    munmap(packed, (size_t)st.st_size);
    return all;
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
    char common[k_path_max], path[k_path_max + 64], line[k_path_max + 80];
    if (common_dir(common, sizeof common) != 0)
        return 0;
    snprintf(path, sizeof path, "%s/guard/hook-judged", common);
    FILE* f = fopen(path, "re");
    long pid = 0;
    unsigned long long started = 0;
    int same = f && fgets(line, sizeof line, f) && sscanf(line, "%ld %llu", &pid, &started) == 2 &&
               pid == (long)getppid() && started == start_time(pid) && started != 0;
    int all = same;
    for (const char* at = s_input; all && at < s_input + s_size;) {
        const char* newline = memchr(at, '\n', (size_t)(s_input + s_size - at));
        const char* end = newline ? newline : s_input + s_size;
        const char* old_id;
        size_t old_length;
        if (classify(at, (size_t)(end - at), &old_id, &old_length) == k_deletion) {
            const char* ref = old_id + 2 * old_length + 2;
            char want[k_path_max + 80], loose[k_path_max + 80] = "";
            snprintf(want, sizeof want, " %.*s\n", (int)(end - ref), ref);
            char recorded[80] = "";
            rewind(f);
            fgets(line, sizeof line, f);
            while (!recorded[0] && fgets(line, sizeof line, f))
                if (strlen(line) > old_length && strcmp(line + old_length, want) == 0)
                    snprintf(recorded, sizeof recorded, "%.*s", (int)old_length, line);
            snprintf(path, sizeof path, "%s/%.*s", common, (int)(end - ref), ref);
            FILE* r = fopen(path, "re");
            int has_loose = r && fgets(loose, sizeof loose, r);
            if (r)
                fclose(r);
            loose[strcspn(loose, "\n")] = '\0';
            all = recorded[0] &&
                  (is_zero_id(old_id, old_length) || memcmp(old_id, recorded, old_length) == 0) &&
                  (reftable    ? !is_zero_id(old_id, old_length)
                   : has_loose ? strcmp(loose, recorded) == 0
                               : !in_packed_refs(common, want));
        }
        at = end + 1;
    }
    if (f)
        fclose(f);
    return all;
}

// Whether the repository stores its refs in reftable (git makes <common>/reftable).
static int is_reftable(void)
{
    char common[k_path_max], path[k_path_max + 16];
    if (common_dir(common, sizeof common) != 0)
        return 0;
    snprintf(path, sizeof path, "%s/reftable", common);
    return access(path, F_OK) == 0;
}

// How many lines delete a branch or a save. With `why`, names each as unguarded.
// Names the first unreadable line (and how many there were) on stderr.
static int scan(const char* why)
{
    int count = 0, unreadable = 0;
    for (const char* line = s_input; line < s_input + s_size;) {
        const char* newline = memchr(line, '\n', (size_t)(s_input + s_size - line));
        const char* end = newline ? newline : s_input + s_size;
        const char* old_id;
        size_t old_length;
        enum line_kind kind = classify(line, (size_t)(end - line), &old_id, &old_length);
        count += kind == k_deletion;
        if (!why && kind == k_unreadable && unreadable++ == 0) {
            fputs("git-guard: ignored a ref update git does not write: '", stderr);
            for (const char* c = line; c < end && c < line + 100; ++c)
                fputs(*c >= 32 && *c < 127 ? (char[]){*c, 0} : "?", stderr);
            fputs("'\n", stderr);
        }
        if (why && kind == k_deletion) {
            const char* ref = old_id + 2 * old_length + 2;
            fprintf(stderr, "git-guard: refusing to delete %.*s unchecked: %s\n",
                    (int)(end - ref), ref, why);
        }
        line = end + 1;
    }
    if (unreadable > 1)
        fprintf(stderr, "git-guard: ... %d such lines in all\n", unreadable);
    if (why && count)
        fprintf(stderr, "git-guard: reinstall git-guard (git guard install), or delete "
                        "with the guard off: git -c core.hooksPath=/dev/null ...\n");
    return count;
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
    int guarded = prepared && scan(NULL) > 0 && !only_pruning() && !already_judged(reftable);
    char chained[k_path_max];
    int has_chained = find_chained(hook_path, chained, sizeof chained);
    if (!guarded && !has_chained)
        return 0;
    char full[k_path_max], tried[4 * k_path_max], why[5 * k_path_max];
    if (guarded && find_full(hook_path, full, sizeof full, tried, sizeof tried) != 0) {
        snprintf(why, sizeof why, "git-guard is missing (looked for %s)", tried);
        scan(why);
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
