// git-guard-shim: installed as `git` ahead of the real git on PATH. It hands
// `git worktree remove|prune|add` (also when reached through an alias) to the full
// `git-guard` next to it, and execs the real git, untouched, for everything else.
#include "common.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// `git --list-cmds=builtins` of git 2.39, sorted: words git never resolves as aliases.
static const char* const k_builtins[] = {
    "add", "am", "annotate", "apply", "archive", "bisect--helper", "blame", "branch",
    "bugreport", "bundle", "cat-file", "check-attr", "check-ignore", "check-mailmap",
    "check-ref-format", "checkout", "checkout--worker", "checkout-index", "cherry",
    "cherry-pick", "clean", "clone", "column", "commit", "commit-graph", "commit-tree",
    "config", "count-objects", "credential", "credential-cache", "credential-cache--daemon",
    "credential-store", "describe", "diagnose", "diff", "diff-files", "diff-index",
    "diff-tree", "difftool", "env--helper", "fast-export", "fast-import", "fetch",
    "fetch-pack", "fmt-merge-msg", "for-each-ref", "for-each-repo", "format-patch", "fsck",
    "fsck-objects", "fsmonitor--daemon", "gc", "get-tar-commit-id", "grep", "hash-object",
    "help", "hook", "index-pack", "init", "init-db", "interpret-trailers", "log", "ls-files",
    "ls-remote", "ls-tree", "mailinfo", "mailsplit", "maintenance", "merge", "merge-base",
    "merge-file", "merge-index", "merge-ours", "merge-recursive", "merge-recursive-ours",
    "merge-recursive-theirs", "merge-subtree", "merge-tree", "mktag", "mktree",
    "multi-pack-index", "mv", "name-rev", "notes", "pack-objects", "pack-redundant",
    "pack-refs", "patch-id", "pickaxe", "prune", "prune-packed", "pull", "push", "range-diff",
    "read-tree", "rebase", "receive-pack", "reflog", "remote", "remote-ext", "remote-fd",
    "repack", "replace", "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm",
    "send-pack", "shortlog", "show", "show-branch", "show-index", "show-ref",
    "sparse-checkout", "stage", "stash", "status", "stripspace", "submodule--helper",
    "switch", "symbolic-ref", "tag", "unpack-file", "unpack-objects", "update-index",
    "update-ref", "update-server-info", "upload-archive", "upload-archive--writer",
    "upload-pack", "var", "verify-commit", "verify-pack", "verify-tag", "version",
    "whatchanged", "worktree", "write-tree"};

enum { k_max_alias_depth = 10, k_alias_size = 8192, k_max_lookup_args = 512 };

static char s_real_git[k_path_max];

static int compare_names(const void* key, const void* entry)
{
    return strcmp((const char*)key, *(const char* const*)entry);
}

static int is_builtin(const char* word)
{
    size_t count = sizeof k_builtins / sizeof *k_builtins;
    return bsearch(word, k_builtins, count, sizeof *k_builtins, compare_names) != NULL;
}

static int same_file(const struct stat* a, const struct stat* b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

// A `git` that is another install of this shim: a link to a file named git-guard-shim.
static int is_other_shim(const char* candidate)
{
    struct stat st;
    if (lstat(candidate, &st) != 0 || !S_ISLNK(st.st_mode))
        return 0;
    char target[k_path_max];
    ssize_t n = readlink(candidate, target, sizeof target - 1);
    if (n < 0)
        return 0;
    target[n] = '\0';
    return strcmp(base_name(target), "git-guard-shim") == 0;
}

// Writes the next PATH candidate `<dir>/<name>` into `out` (empty when too long) and
// advances `*cursor`. Returns 0 once PATH is exhausted. An empty entry is ".".
static int next_in_path(const char** cursor, const char* name, char* out, size_t size)
{
    const char* dir = *cursor;
    if (!dir)
        return 0;
    const char* end = strchrnul(dir, ':');
    *cursor = *end ? end + 1 : NULL;
    int length = (int)(end - dir);
    int n = snprintf(out, size, "%.*s%s%s", length, dir, length ? "/" : "", name);
    if (n < 0 || (size_t)n >= size)
        out[0] = '\0';
    return 1;
}

// $GIT_GUARD_REAL_GIT, else the first executable `git` on PATH that is not this
// shim, compared by file identity so that any number of shim dirs on PATH is fine.
static const char* find_real_git(void)
{
    struct stat self, st;
    int have_self = stat("/proc/self/exe", &self) == 0;
    const char* forced = getenv("GIT_GUARD_REAL_GIT");
    if (forced && *forced && !(have_self && stat(forced, &st) == 0 && same_file(&st, &self)))
        return snprintf(s_real_git, sizeof s_real_git, "%s", forced) < (int)sizeof s_real_git
                   ? s_real_git
                   : NULL;
    const char* cursor = getenv("PATH");
    if (!cursor)
        cursor = "/bin:/usr/bin"; // execvp's default
    while (next_in_path(&cursor, "git", s_real_git, sizeof s_real_git))
        if (stat(s_real_git, &st) == 0 && S_ISREG(st.st_mode) && access(s_real_git, X_OK) == 0 &&
            !(have_self && same_file(&st, &self)) && !is_other_shim(s_real_git))
            return s_real_git;
    return NULL;
}

// Whether `git-<word>` exists where git 2.39 looks for external commands (its exec
// path, then PATH), which it runs in preference to an alias of the same name.
static int is_external(const char* word, const char* exec_path)
{
    char name[1024], candidate[k_path_max];
    if (snprintf(name, sizeof name, "git-%s", word) >= (int)sizeof name)
        return 0;
    if (exec_path && *exec_path) {
        if (join_path(candidate, sizeof candidate, exec_path, name) == 0 &&
            access(candidate, X_OK) == 0)
            return 1;
    } else {
        // git's compiled-in exec path, as laid out next to its binary by a usual install.
        static const char* const k_layouts[] = {"../lib/git-core", "../libexec/git-core"};
        int length = (int)(base_name(s_real_git) - s_real_git);
        for (size_t i = 0; i < sizeof k_layouts / sizeof *k_layouts; ++i)
            if (snprintf(candidate, sizeof candidate, "%.*s%s/%s", length, s_real_git,
                         k_layouts[i], name) < (int)sizeof candidate &&
                access(candidate, X_OK) == 0)
                return 1;
    }
    const char* cursor = getenv("PATH");
    while (next_in_path(&cursor, name, candidate, sizeof candidate))
        if (candidate[0] && access(candidate, X_OK) == 0)
            return 1;
    return 0;
}

// Splits an alias value in place into `words` exactly as git's split_cmdline does
// (isspace separates, '' and "" quote, backslash escapes outside ''). Returns the
// count, or -1 when git would reject the value.
static int split_words(char* line, char* words[], int capacity)
{
    int count = 0;
    char quoted = 0;
    char* dst = line;
    words[count++] = line;
    for (char* src = line; *src;) {
        char c = *src;
        if (!quoted && isspace((unsigned char)c)) {
            *dst++ = '\0';
            while (*++src && isspace((unsigned char)*src)) {
            }
            if (count < capacity)
                words[count++] = dst;
        } else if (!quoted && (c == '\'' || c == '"')) {
            quoted = c;
            ++src;
        } else if (c == quoted) {
            quoted = 0;
            ++src;
        } else {
            if (c == '\\' && quoted != '\'' && !(c = *++src))
                return -1;
            *dst++ = c;
            ++src;
        }
    }
    *dst = '\0';
    return quoted ? -1 : count;
}

// Reads alias.`word` into `value` by asking the real git, with the caller's global
// options (`globals`, `count` words) so that -C, -c and --git-dir apply. Returns
// `value`, or NULL when there is no such alias (or it cannot be read whole).
static char* lookup_alias(char* const globals[], int count, const char* word, char* value)
{
    char key[1024];
    char* argv[k_max_lookup_args];
    if (snprintf(key, sizeof key, "alias.%s", word) >= (int)sizeof key ||
        count + 5 > k_max_lookup_args)
        return NULL;
    int n = 0;
    argv[n++] = s_real_git;
    for (int i = 0; i < count; ++i)
        argv[n++] = globals[i];
    argv[n++] = (char*)"config";
    argv[n++] = (char*)"--get";
    argv[n++] = key;
    argv[n] = NULL;
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        return NULL;
    // Quiet: git reports a bad -C or --git-dir itself, once, when it runs the command.
    pid_t pid = spawn(argv, -1, out[1], 1);
    close(out[1]);
    size_t size = 0;
    ssize_t got = 0;
    char drain[512];
    while ((got = read(out[0], size < k_alias_size ? value + size : drain,
                       size < k_alias_size ? k_alias_size - size : sizeof drain)) != 0) {
        if (got > 0)
            size += (size_t)got;
        else if (errno != EINTR)
            break;
    }
    close(out[0]);
    if (pid < 0 || wait_for(pid, NULL) != 0 || size >= k_alias_size)
        return NULL;
    if (size > 0 && value[size - 1] == '\n')
        --size;
    value[size] = '\0';
    return value;
}

// The value of the last --exec-path=<dir> among the global options, else $GIT_EXEC_PATH.
static const char* exec_path(char* const argv[], int first)
{
    const char* path = getenv("GIT_EXEC_PATH");
    for (int i = 1; i < first; ++i)
        if (strncmp(argv[i], "--exec-path=", 12) == 0)
            path = argv[i] + 12;
    return path;
}

// in-place routing (H6): the subcommands guard_in_place (guard/inplace.hpp) judges.
static int is_in_place_destroyer(const char* word)
{
    static const char* const k_words[] = {"checkout", "clean", "reset", "restore", "stash", "switch"};
    for (size_t i = 0; i < sizeof k_words / sizeof *k_words; ++i)
        if (strcmp(word, k_words[i]) == 0)
            return 1;
    return 0;
}

// Whether git would run `worktree remove|prune|add` for `argv`, directly or through
// (chains of) aliases. Shell aliases (`!…`) are out of reach: the `git` they call is
// not this shim, as git puts its exec path (which holds a `git`) first on PATH.
static int is_guarded(int argc, char* const argv[])
{
    static char values[k_max_alias_depth][k_alias_size + 1];
    const char* seen[k_max_alias_depth];
    int first = skip_git_options(argc, argv, 1, NULL);
    if (first < 0)
        return 0;
    const char* word = argv[first];
    const char* next = first + 1 < argc ? argv[first + 1] : NULL;
    for (int depth = 0;; ++depth) {
        if (is_in_place_destroyer(word)) // in-place routing (H6)
            return 1;
        if (strcmp(word, "worktree") == 0)
            return next && (strcmp(next, "remove") == 0 || strcmp(next, "prune") == 0 ||
                            strcmp(next, "add") == 0);
        if (depth == k_max_alias_depth || is_builtin(word) ||
            is_external(word, exec_path(argv, first)))
            return 0;
        for (int i = 0; i < depth; ++i)
            if (strcmp(seen[i], word) == 0)
                return 0; // git dies: "alias loop detected"
        seen[depth] = word;
        char* value = lookup_alias(argv + 1, first - 1, word, values[depth]);
        char* words[64];
        int count = value && value[0] != '!' ? split_words(value, words, 64) : -1;
        int envchanged = 0;
        int at = count > 0 ? skip_git_options(count, words, 0, &envchanged) : -1;
        if (at < 0 || envchanged || strcmp(words[at], word) == 0)
            return 0; // not an alias, a shell alias, or one git refuses to expand
        next = at + 1 < count ? words[at + 1] : next;
        word = words[at];
    }
}

// Hands the command to the full git-guard as `git <the caller's arguments>`.
static int forward(char** argv)
{
    char dir[k_path_max], full[k_path_max], real[k_path_max];
    if (self_dir(dir, sizeof dir) != 0 || join_path(full, sizeof full, dir, "git-guard") != 0) {
        fprintf(stderr, "git-guard: cannot find the shim's own directory: %s\n", strerror(errno));
        return 128;
    }
    if (s_real_git[0] == '/' || !getcwd(dir, sizeof dir) ||
        join_path(real, sizeof real, dir, s_real_git) != 0)
        snprintf(real, sizeof real, "%s", s_real_git);
    setenv("GIT_GUARD_REAL_GIT", real, 1);
    argv[0] = (char*)"git";
    execv(full, argv);
    fprintf(stderr,
            "git-guard: cannot run %s: %s\n"
            "git-guard: the worktree command was not run; reinstall git-guard to guard it\n",
            full, strerror(errno));
    return 128;
}

int main(int argc, char** argv)
{
    if (wants_guard_version(argc, argv, "git-guard-shim"))
        return 0;
    if (!find_real_git()) {
        fputs("git-guard: no real git found on PATH (only the git-guard shim)\n", stderr);
        return 127;
    }
    if (is_guarded(argc, argv))
        return forward(argv);
    execv(s_real_git, argv);
    int why = errno;
    fprintf(stderr, "git-guard: cannot run %s: %s\n", s_real_git, strerror(why));
    return why == ENOENT ? 127 : 126;
}
