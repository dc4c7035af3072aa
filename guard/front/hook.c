// git-guard-hook: the first stage of the reference-transaction hook, run by the stub
// as `git-guard-hook <hook path> <state>`. It starts the full git-guard only when the
// prepared transaction deletes a branch; every other transaction costs one small
// process. A user's earlier hook, moved to reference-transaction.guard-chained, runs
// after it with the same input, in every state.
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { k_small_input = 65536, k_max_parent_args = 64 };

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
        if (!strchr("0123456789abcdef", s[i]) || !s[i])
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

// Whether `line` is `<old> <new> refs/heads/<name>` with an all-zero <new>. <old> is an
// object id of the same length, or `ref:<target>` (git >= 2.46); anything else is not
// a deletion.
static int is_branch_deletion(const char* line, size_t length, const char** ref,
                              size_t* ref_length)
{
    const char* end = line + length;
    const char* old_end = memchr(line, ' ', length);
    const char* new_end = old_end ? memchr(old_end + 1, ' ', (size_t)(end - old_end - 1)) : NULL;
    if (!new_end)
        return 0;
    size_t old_length = (size_t)(old_end - line);
    size_t new_length = (size_t)(new_end - old_end - 1);
    *ref = new_end + 1;
    *ref_length = (size_t)(end - *ref);
    int old_ok = (old_length == new_length && is_hex(line, old_length)) ||
                 (old_length > 4 && memcmp(line, "ref:", 4) == 0);
    return old_ok && is_zero_id(old_end + 1, new_length) && *ref_length > 11 &&
           memcmp(*ref, "refs/heads/", 11) == 0 && !memchr(*ref, ' ', *ref_length);
}

// Counts the branch deletions in the input; with `why`, reports each as unchecked.
static int scan_deletions(const char* why)
{
    int count = 0;
    for (const char* line = s_input; line < s_input + s_size;) {
        const char* newline = memchr(line, '\n', (size_t)(s_input + s_size - line));
        const char* end = newline ? newline : s_input + s_size;
        const char* ref;
        size_t ref_length;
        if (is_branch_deletion(line, (size_t)(end - line), &ref, &ref_length)) {
            ++count;
            if (why)
                fprintf(stderr, "git-guard: cannot check the deletion of %.*s: %s\n",
                        (int)ref_length, ref, why);
        }
        line = end + 1;
    }
    return count;
}

// Whether our parent is `git pack-refs` (run alone, or by gc and auto-gc). On git 2.39
// it reports each loose ref it prunes as a deletion, although the ref lives on in
// packed-refs.
static int parent_is_pack_refs(void)
{
    char path[64], cmdline[4096];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)getppid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, cmdline, sizeof cmdline - 1);
    close(fd);
    if (n <= 0)
        return 0;
    cmdline[n] = '\0';
    char* args[k_max_parent_args];
    int count = 0;
    for (char* arg = cmdline; arg < cmdline + n && count < k_max_parent_args;
         arg += strlen(arg) + 1)
        args[count++] = arg;
    if (strcmp(base_name(args[0]), "git-pack-refs") == 0)
        return 1;
    int at = skip_git_options(count, args, 1, NULL);
    return at >= 0 && strcmp(args[at], "pack-refs") == 0;
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

// Runs `argv` with the input on its stdin. Returns its status, or -1 with `why` set
// when it could not be started.
static int run_with_input(char* const argv[], int input, const char** why, int* signal_number)
{
    pid_t pid = -1;
    if (input < 0 || lseek(input, 0, SEEK_SET) != 0)
        *why = "cannot hand it the ref updates";
    else if ((pid = spawn(argv, input, -1, 0)) < 0)
        *why = strerror(errno);
    return pid < 0 ? -1 : wait_for(pid, signal_number);
}

// Hands the transaction to the full git-guard; its status is ours.
static int guard_deletions(const char* state, int input)
{
    char dir[k_path_max], full[k_path_max], why[k_path_max + 64];
    if (self_dir(dir, sizeof dir) != 0 || join_path(full, sizeof full, dir, "git-guard") != 0) {
        scan_deletions("cannot find git-guard next to git-guard-hook");
        return 1;
    }
    if (input < 0) {
        scan_deletions("cannot hand the ref updates to git-guard");
        return 1;
    }
    char* argv[] = {full, (char*)"hook", (char*)"reference-transaction", (char*)state, NULL};
    const char* reason = NULL;
    int signal_number = 0;
    int status = run_with_input(argv, input, &reason, &signal_number);
    if (status < 0)
        snprintf(why, sizeof why, "cannot run %s: %s", full, reason);
    else if (signal_number)
        snprintf(why, sizeof why, "%s was killed by signal %d", full, signal_number);
    else
        return status;
    scan_deletions(why);
    return 1;
}

// Writes the user's earlier hook, next to `hook_path`, into `chained`. Returns whether
// it is installed and executable.
static int find_chained(const char* hook_path, char* chained, size_t size)
{
    const char* slash = strrchr(hook_path, '/');
    int length = slash ? (int)(slash - hook_path) : 1;
    int n = snprintf(chained, size, "%.*s/reference-transaction.guard-chained", length,
                     slash ? hook_path : ".");
    struct stat st;
    return n > 0 && (size_t)n < size && stat(chained, &st) == 0 && S_ISREG(st.st_mode) &&
           access(chained, X_OK) == 0;
}

// Runs the user's earlier hook: its status, as git would have seen it.
static int run_chained(char* chained, const char* state, int input)
{
    char* argv[] = {chained, (char*)state, NULL};
    const char* why = NULL;
    int status = run_with_input(argv, input, &why, NULL);
    if (status >= 0)
        return status;
    fprintf(stderr, "git-guard: cannot run %s: %s\n", chained, why);
    return 1;
}

int main(int argc, char** argv)
{
    if (wants_guard_version(argc, argv, "git-guard-hook"))
        return 0;
    if (argc < 2) {
        fputs("usage: git-guard-hook <hook path> <state>\n", stderr);
        return 2;
    }
    const char* state = argc > 2 ? argv[2] : NULL;
    int prepared = state && strcmp(state, "prepared") == 0;
    if (read_input() != 0 && prepared) {
        // What went unread may delete a branch: refuse rather than let it through.
        fprintf(stderr, "git-guard: cannot read the ref updates: %s\n", strerror(errno));
        return 1;
    }
    int deletions = prepared && scan_deletions(NULL) > 0 && !parent_is_pack_refs();
    char chained[k_path_max];
    int has_chained = find_chained(argv[1], chained, sizeof chained);
    if (!deletions && !has_chained)
        return 0;
    int input = input_file();
    int ours = deletions ? guard_deletions(state, input) : 0;
    int theirs = has_chained ? run_chained(chained, state, input) : 0;
    return ours ? ours : theirs;
}
