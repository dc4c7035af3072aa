// git-guard-hook: the first stage of the reference-transaction hook. git starts it
// directly, with no shell (DESIGN §11): the installed hook is a link to it, run as
// `<hook path> <state>`; a configured hook (git >= 2.54) runs it as
// `git-guard-hook <state>`; the first version's stub ran `git-guard-hook <hook path>
// <state>`. It starts the full git-guard only when a prepared transaction deletes a
// branch, a save or a detached HEAD, or moves one in a way it cannot prove harmless
// (lines.c, refstore.c: a new ref, a fast-forward through loose commits); every other
// transaction costs one small process. A user's earlier hook, moved to
// reference-transaction.guard-chained, runs after it with the same input, in every state.
#include "common.h"
#include "lines.h"
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
    snprintf(path, sizeof path, "%s/packed-refs.lock", repo_common());
    if (access(path, F_OK) == 0)
        return 0;
    struct ref_line l;
    for (const char* at = input_begin(); at < input_end();)
        if (next_line(&at, &l) == k_deletion &&
            (is_zero_id(l.old_id, l.old_length) ||
             packed_value(repo_common(), l.ref, l.ref_length, packed, sizeof packed) != k_ref_id ||
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
    snprintf(path, sizeof path, "%s/guard/hook-judged", repo_common());
    FILE* f = fopen(path, "re");
    long pid = 0;
    unsigned long long started = 0;
    int all = f && fgets(line, sizeof line, f) && sscanf(line, "%ld %llu", &pid, &started) == 2 &&
              pid == (long)getppid() && started == start_time(pid) && started != 0;
    struct ref_line l;
    for (const char* at = input_begin(); all && at < input_end();) {
        if (next_line(&at, &l) != k_deletion)
            continue;
        char recorded[80], now[80];
        recorded_tip(f, &l, recorded, sizeof recorded);
        snprintf(path, sizeof path, "%s/%.*s", repo_common(), (int)l.ref_length, l.ref);
        FILE* r = fopen(path, "re");
        int has_loose = r && fgets(now, sizeof now, r);
        if (r)
            fclose(r);
        now[has_loose ? strcspn(now, "\n") : 0] = '\0';
        all = recorded[0] &&
              (is_zero_id(l.old_id, l.old_length) || memcmp(l.old_id, recorded, l.old_length) == 0) &&
              (reftable    ? !is_zero_id(l.old_id, l.old_length)
               : has_loose ? strcmp(now, recorded) == 0
                           : packed_value(repo_common(), l.ref, l.ref_length, now, sizeof now) == k_ref_absent);
    }
    if (f)
        fclose(f);
    return all;
}

// Counts the deletions (D) and the updates not proven harmless (U) in `classified`
// (`size` bytes, lines.h), where each update was judged once. With `why`, names each as
// unchecked; without, names the first unreadable line (X) (and how many there were).
static void scan(const char* classified, size_t size, const char* why, int* deletions, int* updates)
{
    int unreadable = 0;
    *deletions = *updates = 0;
    for (const char* at = classified; at < classified + size;) {
        const char* end = memchr(at, '\n', (size_t)(classified + size - at));
        const char* line = at;
        at = end + 1;
        int judged = line[0] == 'D' || line[0] == 'U';
        *deletions += line[0] == 'D';
        *updates += line[0] == 'U';
        if (!why && line[0] == 'X' && unreadable++ == 0)
            fprintf(stderr, "git-guard: ignored a ref update git does not write: '%.*s'\n",
                    (int)(end - line - 2), line + 2);
        if (why && judged) {
            // "<kind> <old> <new> <ref>": the ids hold no space.
            const char* old_end = memchr(line + 2, ' ', (size_t)(end - line - 2));
            const char* ref = (const char*)memchr(old_end + 1, ' ', (size_t)(end - old_end - 1)) + 1;
            fprintf(stderr, "git-guard: refusing to %s %.*s unchecked: %s\n",
                    line[0] == 'D' ? "delete" : "move", (int)(end - ref), ref, why);
        }
    }
    if (unreadable > 1)
        fprintf(stderr, "git-guard: ... %d such lines in all\n", unreadable);
    if (why && (*deletions || *updates))
        fprintf(stderr, "git-guard: reinstall git-guard (git guard install), or update "
                        "with the guard off: git -c core.hooksPath=/dev/null ...\n");
}

// Whether this is a reftable repository git is still making: `git init
// --ref-format=reftable` (and the clone that starts with it) writes HEAD into the new
// ref store before it makes objects/. No commit exists that an update could leave on no
// ref, and git itself does not yet take the directory for a repository, so the full
// binary could only refuse (t5510 219, 222). Anything else without objects/ is judged.
static int reftable_being_made(int reftable)
{
    char path[k_path_max + 16];
    if (!reftable || !find_dirs())
        return 0;
    return concat(path, sizeof path, repo_common(), "/objects", (char*)NULL) == 0 && access(path, F_OK) != 0 &&
           errno == ENOENT;
}

// Whether the full binary must judge this prepared transaction, classified as `classified`.
static int needs_judging(const char* classified, size_t size, int reftable)
{
    int deletions, updates;
    scan(classified, size, NULL, &deletions, &updates);
    return updates > 0 || (deletions > 0 && !only_pruning() && !already_judged(reftable));
}

// Hands the repository's git dir and common dir, found already, to the full binary
// (absolute), so that it need not ask git again (issue 17: one reader per fact).
static void hand_dirs(void)
{
    char git_dir[k_path_max], common[k_path_max];
    if (find_dirs() && realpath(repo_git_dir(), git_dir) && realpath(repo_common(), common)) {
        setenv("GIT_GUARD_HOOK_GIT_DIR", git_dir, 1);
        setenv("GIT_GUARD_HOOK_COMMON_DIR", common, 1);
    } else { // a caller's own values would name another repository: the full binary asks git
        unsetenv("GIT_GUARD_HOOK_GIT_DIR");
        unsetenv("GIT_GUARD_HOOK_COMMON_DIR");
    }
}

// The chained hook sees git's environment, without what we and the shim (its config
// listing, config.hpp hand_config_down) hand the full binary.
static void unhand_dirs(void)
{
    unsetenv("GIT_GUARD_HOOK_GIT_DIR");
    unsetenv("GIT_GUARD_HOOK_COMMON_DIR");
    unsetenv("GIT_GUARD_CONFIG");
}

// A file holding `size` bytes at `text`, rewound before each child so that each reads all of it.
static int input_file(const char* text, size_t size)
{
    int fd = memfd_create("git-guard-input", MFD_CLOEXEC);
    if (fd < 0) {
        const char* tmp = getenv("TMPDIR");
        fd = open(tmp && *tmp ? tmp : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    }
    if (fd < 0)
        return -1;
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, text + done, size - done);
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

// What a transaction that is judged or has a chained hook runs: the full binary (handed our
// classification), then the chained hook (handed git's input). Out of main, so that the
// frames of the fast path above stay small (each stack page touched is a fault).
static __attribute__((noinline)) int hand_over(const char* hook_path, const char* state, char* classified,
                                               size_t classified_size, int guarded, const char* chained)
{
    int has_chained = chained != NULL;
    char full[k_path_max], tried[4 * k_path_max], why[5 * k_path_max];
    if (guarded && find_full(hook_path, full, sizeof full, tried, sizeof tried) != 0) {
        snprintf(why, sizeof why, "git-guard is missing (looked for %s)", tried);
        int deletions, updates;
        scan(classified, classified ? classified_size : 0, why, &deletions, &updates);
        free(classified);
        return 1;
    }
    // The full binary gets our classification of git's lines, never the raw input to
    // parse again (issue 17: one parser); the chained hook gets git's input.
    int ours_input = guarded && classified ? input_file(classified, classified_size) : -1;
    free(classified);
    int input = has_chained ? input_file(input_begin(), (size_t)(input_end() - input_begin())) : -1;
    if (guarded)
        hand_dirs();
    char* ours[] = {full, (char*)"hook", (char*)"reference-transaction", (char*)state, (char*)"--classified", NULL};
    if (guarded && !has_chained && ours_input >= 0 && lseek(ours_input, 0, SEEK_SET) == 0) {
        // Nothing runs after it: become it, so that whoever kills the hook kills it.
        dup2(ours_input, 0);
        execv(full, ours);
        fprintf(stderr, "git-guard: cannot run %s: %s\n", full, strerror(errno));
        return 1;
    }
    int status = guarded ? run_tied(ours, ours_input) : 0;
    unhand_dirs();
    char line[k_path_max], *theirs[7];
    if (has_chained)
        chained_argv(chained, hook_path, state, line, sizeof line, theirs);
    int chained_status = has_chained ? run_tied(theirs, input) : 0;
    return status ? status : chained_status;
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
    // git's lines are classified once (lines.h): proving an update harmless reads refs and
    // objects, and what decides here is what the full binary is handed.
    int judging = prepared && !reftable_being_made(reftable);
    size_t classified_size = 0;
    char* classified = judging ? classified_input(&classified_size) : NULL;
    // Out of memory, the lines were not all judged: the full binary is started and told
    // nothing, so it refuses, as it did when the classification for it ran out of memory.
    int guarded = judging && (!classified || needs_judging(classified, classified_size, reftable));
    char chained[k_path_max];
    int has_chained = find_chained(hook_path, chained, sizeof chained);
    if (!guarded && !has_chained) {
        free(classified);
        return 0;
    }
    return hand_over(hook_path, state, classified, classified_size, guarded, has_chained ? chained : NULL);
}
