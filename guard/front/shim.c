// git-guard-shim: installed as `git` ahead of the real git on PATH. It parses git's
// command line once (call.c), hands what it guards (`worktree remove|prune|add` and the
// in-place destroyers, also through aliases) to the full `git-guard` next to it, and
// execs the real git, untouched, for everything else. Either way git runs with the
// exec-path mirror (execpath.c), so that the `git` git's own children run is this shim.
#include "call.h"
#include "commands.h"
#include "common.h"
#include "execpath.h"
#include "gate.h"
#include "guarded.h"
#include "revive.h"
#include "steps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char s_real_git[k_path_max];

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

// $GIT_GUARD_REAL_GIT, else the first executable `git` on PATH that is not this
// shim, compared by file identity so that any number of shim dirs on PATH is fine.
// A shim that took a git's place (the system install's /usr/bin/git) stands for the git
// diverted beside it, also when called by that path, whatever PATH holds.
static const char* find_real_git(const char* argv0)
{
    struct stat self, st;
    int have_self = stat("/proc/self/exe", &self) == 0;
    const char* forced = getenv("GIT_GUARD_REAL_GIT");
    if (forced && *forced && !(have_self && stat(forced, &st) == 0 && same_file(&st, &self)))
        return concat(s_real_git, sizeof s_real_git, forced, (char*)NULL) == 0 ? s_real_git : NULL;
    if (strchr(argv0, '/') && strlen(argv0) < sizeof s_real_git &&
        diverted_git(strcpy(s_real_git, argv0), sizeof s_real_git) == 0)
        return s_real_git;
    const char* cursor = getenv("PATH");
    if (!cursor)
        cursor = "/bin:/usr/bin"; // execvp's default
    while (next_in_path(&cursor, "git", s_real_git, sizeof s_real_git))
        if (stat(s_real_git, &st) == 0 && S_ISREG(st.st_mode) && access(s_real_git, X_OK) == 0) {
            if (!(have_self && same_file(&st, &self)) && !is_other_shim(s_real_git))
                return s_real_git;
            if (diverted_git(s_real_git, sizeof s_real_git) == 0)
                return s_real_git;
        }
    return NULL;
}

static char* number(int n)
{
    char text[16];
    snprintf(text, sizeof text, "%d", n);
    return strdup(text);
}

// The directory of the `git` the caller ran: argv[0]'s, or the first PATH entry whose
// `git` is this very file (a copy of the shim has no link to follow).
static int invoked_dir(const char* argv0, char* dir, size_t size)
{
    struct stat self, st;
    const char* slash = strrchr(argv0, '/');
    if (slash)
        return snprintf(dir, size, "%.*s", (int)(slash - argv0), argv0) < (int)size ? 0 : -1;
    if (stat("/proc/self/exe", &self) != 0)
        return -1;
    const char* cursor = getenv("PATH");
    while (next_in_path(&cursor, argv0, dir, size))
        if (dir[0] && stat(dir, &st) == 0 && same_file(&st, &self)) {
            *strrchr(dir, '/') = '\0';
            return 0;
        }
    return -1;
}

// C5: git-guard next to the resolved shim, then ../../bin/git-guard from there (the
// installed libexec layout), then the path in `git-guard.path` beside the invoked `git`.
static int find_full(const char* argv0, char* full, size_t size)
{
    char dir[k_path_max], sidecar[k_path_max];
    if (self_dir(dir, sizeof dir) == 0) {
        if (join_path(full, size, dir, "git-guard") == 0 && access(full, X_OK) == 0)
            return 0;
        if (join_path(full, size, dir, "../../bin/git-guard") == 0 && access(full, X_OK) == 0)
            return 0;
    }
    FILE* file = invoked_dir(argv0, dir, sizeof dir) == 0 &&
                         join_path(sidecar, sizeof sidecar, dir, "git-guard.path") == 0
                     ? fopen(sidecar, "re")
                     : NULL;
    if (file) {
        int got = fgets(full, (int)size, file) != NULL;
        fclose(file);
        full[got ? strcspn(full, "\n") : 0] = '\0';
        if (got && full[0] == '/' && access(full, X_OK) == 0)
            return 0;
    }
    // Named in the refusal: where a full binary was looked for first.
    if (self_dir(dir, sizeof dir) != 0 || join_path(full, size, dir, "git-guard") != 0)
        snprintf(full, size, "git-guard");
    return -1;
}

// The handoff (docs/decisions.md, "The shim"): the full binary runs as
//   git --guard-call=N[,hooks-off] <real git> <cwd> <G> <globals…> <W> <words…>
//       [--guard-config=<C> <entries…>] -- <argv[1..]>
// argv[0] "git" selects the shim mode; the full binary takes the parse as it is. N is 2
// when git has said guard.enabled is true here, 1 when the full binary must ask itself;
// `,hooks-off`: git's configuration for this call sets core.hooksPath or a hook.* key.
// `--guard-config`: git's listing of the repository's guard.* keys (s_config), one
// "key\nvalue" (or "key") word each, when it was read whole here.
static int forward(int argc, char** argv, const struct Call* call, int enabled)
{
    char dir[k_path_max], full[k_path_max], real[k_path_max];
    if (find_full(argv[0], full, sizeof full) != 0) {
        fprintf(stderr,
                "git-guard: cannot find git-guard (looked for %s, ../../bin/git-guard and "
                "git-guard.path)\ngit-guard: the %s command was not run; reinstall git-guard "
                "to guard it\n",
                full, call->words[0]);
        return 128;
    }
    if (s_real_git[0] == '/' || !getcwd(dir, sizeof dir) ||
        join_path(real, sizeof real, dir, s_real_git) != 0)
        snprintf(real, sizeof real, "%s", s_real_git);
    setenv("GIT_GUARD_REAL_GIT", real, 1);
    ssize_t config_size = 0;
    const char* config = config_listing(&config_size);
    size_t nconfig = 0;
    for (ssize_t at = 0; at < config_size; at += (ssize_t)strlen(config + at) + 1)
        ++nconfig;
    char** out = calloc((size_t)(call->nglobals + call->nwords + argc + 10) + nconfig, sizeof *out);
    if (!out)
        return 128;
    int n = 0;
    out[n++] = (char*)"git";
    int hooks = listing_names_hooks();
    out[n++] = (char*)(enabled == 1 ? (hooks ? "--guard-call=2,hooks-off" : "--guard-call=2")
                                    : (hooks ? "--guard-call=1,hooks-off" : "--guard-call=1"));
    out[n++] = real;
    out[n++] = (char*)call->cwd;
    out[n++] = number(call->nglobals);
    for (int i = 0; i < call->nglobals; ++i)
        out[n++] = call->globals[i];
    out[n++] = number(call->nwords);
    for (int i = 0; i < call->nwords; ++i)
        out[n++] = call->words[i];
    if (config) {
        char mark[40];
        snprintf(mark, sizeof mark, "--guard-config=%zu", nconfig);
        out[n++] = strdup(mark);
        for (ssize_t at = 0; at < config_size; at += (ssize_t)strlen(config + at) + 1)
            out[n++] = (char*)config + at;
    }
    out[n++] = (char*)"--";
    for (int i = 1; i < argc; ++i)
        out[n++] = argv[i];
    execv(full, out);
    fprintf(stderr,
            "git-guard: cannot run %s: %s\n"
            "git-guard: the %s command was not run; reinstall git-guard to guard it\n",
            full, strerror(errno), call->words[0]);
    return 128;
}

// GIT_EXEC_PATH for the real git: the mirror, except for the queries that print it
// (`--exec-path`, `--list-cmds=`…), which get the real one back.
static void set_exec_path(const struct Call* call, const char* real, int ours)
{
    char mirror[k_path_max];
    int query = call->stop == git_opt_exec_path || call->stop == git_opt_query || writes_exec_path(call);
    if (query) {
        if (ours)
            setenv("GIT_EXEC_PATH", real, 1);
    } else if (exec_path_mirror(real, mirror, sizeof mirror) == 0) {
        setenv("GIT_EXEC_PATH", mirror, 1);
    }
}

// `git-guard-shim --guard-exec-path`: prints the mirror for the real git (made when
// missing), for `git guard doctor`.
static int print_mirror(void)
{
    char real[k_path_max], mirror[k_path_max];
    int ours = 0;
    if (real_exec_path(s_real_git, real, sizeof real, &ours) != 0 ||
        exec_path_mirror(real, mirror, sizeof mirror) != 0) {
        fprintf(stderr, "git-guard: cannot prepare the exec-path mirror for %s\n", s_real_git);
        return 1;
    }
    printf("%s\n%s\n", mirror, real);
    return 0;
}

static __attribute__((noinline)) void revive_watcher(const char* argv0)
{
    char full[k_path_max];
    if (find_full(argv0, full, sizeof full) == 0)
        start_watcher(full);
}

static int run_real_git(char** argv)
{
    execv(s_real_git, argv);
    int why = errno;
    fprintf(stderr, "git-guard: cannot run %s: %s\n", s_real_git, strerror(why));
    return why == ENOENT ? 127 : 126;
}

// `git-receive-pack <dir>`, as a local push runs it through the exec-path mirror (and as
// sshd runs it after a system install): the push writes refs in <dir>, under whatever
// configuration the pusher's environment carries there (GIT_CONFIG_GLOBAL, ~/.gitconfig).
// It becomes `git receive-pack … .` run in <dir>, the same command to git, so that the
// config question and the full binary see the repository the push writes into. Returns
// the new argv, or NULL to pass the call on untouched (GIT_DIR set, no directory found).
static char** receive_pack_in_place(int argc, char** argv)
{
    static char* words[66]; // receive-pack takes a handful of options
    static char dot[] = ".", git[] = "git", command[] = "receive-pack";
    const char* dir = argc >= 2 ? argv[argc - 1] : NULL;
    if (strcmp(base_name(argv[0]), "git-receive-pack") != 0 || argc > 64 || !dir || dir[0] == '-' ||
        getenv("GIT_DIR"))
        return NULL;
    char with_git[k_path_max];
    struct stat st;
    if (!(stat(dir, &st) == 0 && S_ISDIR(st.st_mode))) {
        if (snprintf(with_git, sizeof with_git, "%s.git", dir) >= (int)sizeof with_git ||
            stat(with_git, &st) != 0 || !S_ISDIR(st.st_mode))
            return NULL;
        dir = with_git;
    }
    if (chdir(dir) != 0)
        return NULL;
    int n = 0;
    words[n++] = git;
    words[n++] = command;
    for (int i = 1; i < argc - 1; ++i)
        words[n++] = argv[i];
    words[n++] = dot;
    words[n] = NULL;
    return words;
}

int main(int argc, char** argv)
{
    open_std_fds();
    if (wants_guard_version(argc, argv, "git-guard-shim"))
        return 0;
    if (!find_real_git(argv[0])) {
        fputs("git-guard: no real git found on PATH (only the git-guard shim)\n", stderr);
        return 127;
    }
    // git-upload-pack, git-receive-pack and git-upload-archive in /usr/bin are links to
    // `git`, so after a system install they reach the shim: git's own entries, passed on.
    char** in_place = receive_pack_in_place(argc, argv);
    if (in_place) {
        argv = in_place;
        for (argc = 0; argv[argc]; ++argc)
            ;
    } else if (strncmp(base_name(argv[0]), "git-", 4) == 0 && strcmp(base_name(argv[0]), "git-guard-shim") != 0)
        return run_real_git(argv);
    if (argc == 2 && strcmp(argv[1], "--guard-exec-path") == 0 &&
        strcmp(base_name(argv[0]), "git-guard-shim") == 0)
        return print_mirror();
    if (argc == 2 && strcmp(argv[1], "--guard-commands") == 0 &&
        strcmp(base_name(argv[0]), "git-guard-shim") == 0) {
        print_commands(); // the command table, for tests/e2e/command_table.sh and docs/commands.md
        return 0;
    }
    static struct Call call;
    char real[k_path_max];
    int ours = 0;
    int have_real = real_exec_path(s_real_git, real, sizeof real, &ours) == 0;
    int parsed = parse_call(argc, argv, s_real_git, have_real ? real : NULL, &call);
    if (parsed == -2) { // what nobody can judge must not run unguarded
        fputs("git-guard: no memory to read the command line; the command was not run\n", stderr);
        return 128;
    }
    int step = parsed == 0 && is_git_step(&call, s_real_git);
    if (have_real)
        set_exec_path(&call, real, ours);
    mark_handled(&call);
    unsetenv("GIT_GUARD_CONFIG"); // only the full binary hands a listing down, bound to git's pid
    if (parsed == 0 && !step) {
        // A destroyer goes to the full binary in a guarded repository; a ref-writing call
        // only when git's configuration for it may run another hooks directory than ours.
        int destroys = is_guarded_call(&call);
        if (destroys || writes_judged_refs(&call)) {
            int enabled = guard_enabled(s_real_git, &call, destroys);
            if (enabled != 0 && (destroys || listing_names_hooks()))
                return forward(argc, argv, &call, enabled); // the full binary revives it itself
        }
    }
    // As git starts its fsmonitor daemon: from any command (not from `git --version` or
    // `--exec-path`, which doctor itself runs while it reports a dead watcher).
    if (parsed == 0 && call.stop < 0 && call.nwords > 0 && watcher_is_dead())
        revive_watcher(argv[0]);
    return run_real_git(argv);
}
