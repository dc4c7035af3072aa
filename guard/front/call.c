#include "call.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// Builtins of both git 2.39 and git 2.55 (`git --list-cmds=builtins`), sorted: words git
// never resolves as aliases. A builtin of only one of them is looked up as an alias too:
// an extra lookup costs a git call, a missed alias costs the work.
static const char* const k_builtins[] = {
    "add", "am", "annotate", "apply", "archive", "blame", "branch", "bugreport", "bundle",
    "cat-file", "check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout",
    "checkout--worker", "checkout-index", "cherry", "cherry-pick", "clean", "clone", "column",
    "commit", "commit-graph", "commit-tree", "config", "count-objects", "credential",
    "credential-cache", "credential-cache--daemon", "credential-store", "describe", "diagnose",
    "diff", "diff-files", "diff-index", "diff-tree", "difftool", "fast-export", "fast-import",
    "fetch", "fetch-pack", "fmt-merge-msg", "for-each-ref", "for-each-repo", "format-patch",
    "fsck", "fsck-objects", "fsmonitor--daemon", "gc", "get-tar-commit-id", "grep",
    "hash-object", "help", "hook", "index-pack", "init", "init-db", "interpret-trailers",
    "log", "ls-files", "ls-remote", "ls-tree", "mailinfo", "mailsplit", "maintenance", "merge",
    "merge-base", "merge-file", "merge-index", "merge-ours", "merge-recursive",
    "merge-recursive-ours", "merge-recursive-theirs", "merge-subtree", "merge-tree", "mktag",
    "mktree", "multi-pack-index", "mv", "name-rev", "notes", "pack-objects", "pack-redundant",
    "pack-refs", "patch-id", "pickaxe", "prune", "prune-packed", "pull", "push", "range-diff",
    "read-tree", "rebase", "receive-pack", "reflog", "remote", "remote-ext", "remote-fd",
    "repack", "replace", "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm",
    "send-pack", "shortlog", "show", "show-branch", "show-index", "show-ref",
    "sparse-checkout", "stage", "stash", "status", "stripspace", "submodule--helper", "switch",
    "symbolic-ref", "tag", "unpack-file", "unpack-objects", "update-index", "update-ref",
    "update-server-info", "upload-archive", "upload-archive--writer", "upload-pack", "var",
    "verify-commit", "verify-pack", "verify-tag", "version", "whatchanged", "worktree",
    "write-tree"
};

enum { k_max_alias_depth = 10, k_aliases_size = 256 * 1024 };

static int compare_names(const void* key, const void* entry)
{
    return strcmp((const char*)key, *(const char* const*)entry);
}

static int is_builtin(const char* word)
{
    size_t count = sizeof k_builtins / sizeof *k_builtins;
    return bsearch(word, k_builtins, count, sizeof *k_builtins, compare_names) != NULL;
}

// Whether `git-<word>` exists where git looks for external commands (its exec path,
// then PATH), which it runs in preference to an alias of the same name.
static int is_external(const char* word, const char* exec_path)
{
    char name[1024], candidate[k_path_max];
    if (snprintf(name, sizeof name, "git-%s", word) >= (int)sizeof name)
        return 0;
    if (exec_path && join_path(candidate, sizeof candidate, exec_path, name) == 0 &&
        access(candidate, X_OK) == 0)
        return 1;
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
    while (isspace((unsigned char)*line))
        ++line, ++dst;
    words[count++] = line;
    for (char* src = line; *src;) {
        char c = *src;
        if (!quoted && isspace((unsigned char)c)) {
            *dst++ = '\0';
            while (*++src && isspace((unsigned char)*src)) {
            }
            if (*src && count < capacity)
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

int run_config(const char* real_git, const struct Call* call, const char* const* rest, char* buffer,
               size_t size, size_t* got)
{
    int nrest = 0;
    while (rest[nrest])
        ++nrest;
    char** argv = malloc((size_t)(call->nglobals + nrest + 5) * sizeof *argv);
    if (!argv)
        return -1;
    int n = 0;
    argv[n++] = (char*)real_git;
    argv[n++] = (char*)"-C";
    argv[n++] = (char*)call->cwd;
    for (int i = 0; i < call->nglobals; ++i)
        argv[n++] = call->globals[i];
    argv[n++] = (char*)"config";
    for (int i = 0; i < nrest; ++i)
        argv[n++] = (char*)rest[i];
    argv[n] = NULL;
    int status = run_captured(argv, buffer, size, got);
    free(argv);
    return status;
}

// Reads every alias.* entry (`git config -z --get-regexp`, with the caller's globals in
// the caller's directory) into `buffer`. Returns the bytes read, or -1.
static ssize_t read_aliases(const char* real_git, const struct Call* call, char* buffer,
                            size_t size)
{
    static const char* const rest[] = {"-z", "--get-regexp", "^alias\\.", NULL};
    // Quiet: git reports a bad -C or --git-dir itself, once, when it runs the command.
    size_t got = 0;
    int status = run_config(real_git, call, rest, buffer, size, &got);
    if (got >= size || (status != 0 && status != 1)) // 1: no alias at all
        return -1;
    return (ssize_t)got;
}

// The value git's alias_lookup gives `word` among `entries` ("key\nvalue\0"…): the last
// match of `alias.<word>` (case-insensitive) or `alias.<word>.command` (git >= 2.53's
// subsection form, case-sensitive). NULL when none.
static char* find_alias(char* entries, size_t size, const char* word)
{
    char* found = NULL;
    for (char* at = entries; at < entries + size; at += strlen(at) + 1) {
        char* key = at + 6; // past "alias."
        char* newline = strchr(at, '\n');
        if (!newline || strncmp(at, "alias.", 6) != 0)
            continue;
        size_t length = (size_t)(newline - key);
        const char* dot = memrchr(key, '.', length);
        size_t n = strlen(word);
        // Both readings of `alias.<a>.command`: git 2.39 names it "<a>.command".
        int sub = dot && dot + 8 == newline && strncmp(dot, ".command", 8) == 0 &&
                  (size_t)(dot - key) == n && strncmp(key, word, n) == 0;
        if (sub || (length == n && strncasecmp(key, word, n) == 0))
            found = newline + 1;
    }
    return found;
}

// Applies one global option to `call`. Returns -1 when option parsing goes on, else the
// kind that ends it (git_opt_stop, git_opt_query, git_opt_exec_path, git_opt_bad).
static int take_option(struct Call* call, const struct GitOption* option, char** word)
{
    switch (option->kind) {
    case git_opt_carry:
        for (int k = 0; k < option->words && call->nglobals < call->room; ++k)
            call->globals[call->nglobals++] = word[k];
        return -1;
    case git_opt_chdir: {
        const char* dir = option->value;
        if (!*dir || (dir[0] != '/' && !call->cwd[0]))
            return -1; // relative to a directory nobody can name: still none
        size_t base = dir[0] == '/' ? 0 : strlen(call->cwd) + 1, n = strlen(dir);
        if (base + n >= sizeof call->cwd)
            return git_opt_bad;
        if (base)
            call->cwd[base - 1] = '/';
        memcpy(call->cwd + base, dir, n + 1);
        return -1;
    }
    case git_opt_pager:
        return -1;
    default:
        return option->kind;
    }
}

// Parses the options of `argv[*at..argc)` into `call`, leaving `*at` at the first word
// that is not one. Returns -1, or the kind that ended parsing. `*envchanged` as git's.
static int take_options(struct Call* call, int argc, char** argv, int* at, int* envchanged)
{
    for (; *at < argc && argv[*at][0] == '-'; ++*at) {
        struct GitOption option;
        git_option(argc, argv, *at, &option);
        int end = take_option(call, &option, argv + *at);
        if (end >= 0)
            return end;
        *envchanged |= option.env;
        *at += option.words - 1;
    }
    return -1;
}

// Makes room in `call->globals` and `call->words` for `more` words beyond what each holds.
// Returns 0, or -1 when there is no memory.
static int grow_room(struct Call* call, int more)
{
    int used = call->nglobals > call->nwords ? call->nglobals : call->nwords;
    if (used + more <= call->room)
        return 0;
    int room = used + more;
    char** globals = realloc(call->globals, (size_t)room * sizeof *globals);
    if (globals)
        call->globals = globals;
    char** words = globals ? realloc(call->words, (size_t)room * sizeof *words) : NULL;
    if (!words)
        return -1;
    call->words = words;
    call->room = room;
    return 0;
}

// Replaces the alias in `call->words[0]` by its expansion. Returns 1 when expanded,
// 0 when the word is no alias (or a shell alias, which sets `shell_alias`), -1 when
// git would die on it, -2 when there is no memory to hold its words.
static int expand_one(struct Call* call, char* aliases, size_t size)
{
    static char values[k_max_alias_depth][8192];
    static int depth;
    char* value = find_alias(aliases, size, call->words[0]);
    if (!value)
        return 0;
    if (value[0] == '!') {
        call->shell_alias = 1;
        return 0;
    }
    if (depth == k_max_alias_depth || snprintf(values[depth], sizeof values[depth], "%s", value) >=
                                          (int)sizeof values[depth])
        return -1;
    char* words[k_max_alias_words];
    int count = split_words(values[depth++], words, k_max_alias_words);
    int at = 0, envchanged = 0;
    if (count > 0 && grow_room(call, count) != 0)
        return -2;
    if (count < 0 || take_options(call, count, words, &at, &envchanged) >= 0 || envchanged ||
        at >= count || strcmp(words[at], call->words[0]) == 0)
        return -1; // git: bad alias, "changes environment variables", empty or recursive
    int rest = call->nwords - 1;
    if (count - at + rest > call->room)
        return -1; // never: grow_room made room for every word of the alias
    memmove(call->words + (count - at), call->words + 1, (size_t)rest * sizeof *call->words);
    memcpy(call->words, words + at, (size_t)(count - at) * sizeof *words);
    call->nwords = count - at + rest;
    call->expanded = 1;
    return 1;
}

static int expand_aliases(struct Call* call, const char* real_git, const char* exec_path)
{
    static char aliases[k_aliases_size];
    const char* seen[k_max_alias_depth + 1];
    ssize_t size = -2;
    for (int depth = 0; depth <= k_max_alias_depth; ++depth) {
        const char* word = call->words[0];
        if (is_builtin(word) || is_external(word, exec_path))
            return 0;
        for (int i = 0; i < depth; ++i)
            if (strcmp(seen[i], word) == 0)
                return -1; // git dies: "alias loop detected"
        seen[depth] = word;
        if (size == -2)
            size = read_aliases(real_git, call, aliases, sizeof aliases);
        if (size < 0)
            return -1;
        int expanded = expand_one(call, aliases, (size_t)size);
        if (expanded <= 0)
            return expanded;
    }
    return -1;
}

int parse_call(int argc, char* argv[], const char* real_git, const char* exec_path,
               struct Call* call)
{
    call->nglobals = call->nwords = call->shell_alias = call->expanded = 0;
    call->stop = -1;
    // Room for every word of argv and of every alias expansion: a call too long to hold
    // went to git unguarded (`git checkout -- <1,100 paths>` destroyed them all unsaved).
    call->room = argc + 8; // grown for each alias's words (grow_room)
    call->globals = malloc((size_t)call->room * sizeof *call->globals);
    call->words = malloc((size_t)call->room * sizeof *call->words);
    if (!call->globals || !call->words)
        return -2;
    // A directory that was removed under the caller has no name; git itself runs only when
    // a -C with an absolute path gives it one again (it dies "Unable to read current
    // working directory" otherwise, before touching anything).
    if (!getcwd(call->cwd, sizeof call->cwd))
        call->cwd[0] = '\0';
    int at = 1, envchanged = 0;
    call->stop = take_options(call, argc, argv, &at, &envchanged);
    if (!call->cwd[0])
        return -1; // no directory: git refuses on its own
    if (call->stop >= 0 || at >= argc) {
        call->stop = call->stop >= 0 ? call->stop : git_opt_stop; // no command: git's usage
        return 0;
    }
    for (; at < argc; ++at)
        call->words[call->nwords++] = argv[at];
    return expand_aliases(call, real_git, exec_path);
}
