#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void open_std_fds(void)
{
    for (int fd = 0; fd < 3; ++fd) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int null = open("/dev/null", O_RDWR); // the lowest free fd: this one
        if (null > fd) {
            dup2(null, fd);
            close(null);
        }
    }
}

const char* self_exe(void)
{
    static char* path; // on the heap, not the stack: the callers' buffers need not nest
    if (!path) {
        char* link = malloc(k_path_max);
        ssize_t n = link ? readlink("/proc/self/exe", link, k_path_max - 1) : -1;
        if (n < 0 || n >= k_path_max - 1) {
            free(link);
            errno = n < 0 ? errno : ENAMETOOLONG;
            return NULL;
        }
        link[n] = '\0';
        char* exact = realloc(link, (size_t)n + 1);
        path = exact ? exact : link;
    }
    return path;
}

int self_dir(char* dir, size_t size)
{
    const char* self = self_exe();
    if (!self)
        return -1;
    if (strlen(self) >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(dir, self);
    char* slash = strrchr(dir, '/');
    if (!slash) {
        errno = ENOENT;
        return -1;
    }
    *(slash == dir ? slash + 1 : slash) = '\0';
    return 0;
}

int join_path(char* out, size_t size, const char* dir, const char* name)
{
    return concat(out, size, dir, "/", name, (char*)NULL);
}

int concat(char* out, size_t size, ...)
{
    va_list parts;
    va_start(parts, size);
    size_t used = 0;
    int rc = 0;
    for (const char* part; rc == 0 && (part = va_arg(parts, const char*));) {
        size_t n = strlen(part);
        if (used + n >= size)
            rc = -1;
        else
            memcpy(out + used, part, n), used += n;
    }
    va_end(parts);
    if (size)
        out[rc == 0 ? used : 0] = '\0';
    return rc;
}

int join_span(char* out, size_t size, const char* dir, const char* name, size_t n)
{
    size_t length = strlen(dir);
    if (length + 1 + n >= size) {
        if (size)
            out[0] = '\0';
        return -1;
    }
    memcpy(out, dir, length);
    out[length] = '/';
    memcpy(out + length + 1, name, n);
    out[length + 1 + n] = '\0';
    return 0;
}

void hex64(unsigned long long value, char out[17])
{
    static const char k_digits[] = "0123456789abcdef";
    for (int i = 15; i >= 0; --i, value >>= 4)
        out[i] = k_digits[value & 15];
    out[16] = '\0';
}

long read_small(const char* path, char* buffer, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return access(path, F_OK) == 0 ? -2 : -1;
    ssize_t n = read(fd, buffer, size);
    close(fd);
    return n < 0 || (size_t)n == size ? -2 : (long)n;
}

const char* base_name(const char* path)
{
    const char* slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int diverted_git(char* path, size_t size)
{
    static const char k_suffix[] = ".distrib";
    struct stat st;
    size_t n = strlen(path);
    if (n + sizeof k_suffix > size)
        return -1;
    memcpy(path + n, k_suffix, sizeof k_suffix);
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
        return 0;
    path[n] = '\0';
    return -1;
}

int next_in_path(const char** cursor, const char* name, char* out, size_t size)
{
    const char* dir = *cursor;
    if (!dir)
        return 0;
    const char* end = strchrnul(dir, ':');
    *cursor = *end ? end + 1 : NULL;
    size_t length = (size_t)(end - dir), n = strlen(name);
    if (length + 1 + n >= size) {
        out[0] = '\0';
        return 1;
    }
    memcpy(out, dir, length);
    if (length)
        out[length++] = '/';
    memcpy(out + length, name, n + 1);
    return 1;
}

static int starts_with(const char* s, const char* prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

// git.c handle_options, the union of git 2.39 through 2.55. A table, so that a new
// release is one line here. `value`: takes the next word (and `--name=value`, when
// `equals`); `env`: git sets *envchanged for it (refused inside an alias).
struct OptionSpec {
    const char* name;
    int kind;
    int value;
    int equals;
    int env;
};
static const struct OptionSpec k_options[] = {
    {"-C", git_opt_chdir, 1, 0, 1}, // env only for a non-empty directory
    {"-c", git_opt_carry, 1, 0, 0},
    {"--config-env", git_opt_carry, 1, 1, 0},
    {"--git-dir", git_opt_carry, 1, 1, 1},
    {"--work-tree", git_opt_carry, 1, 1, 1},
    {"--namespace", git_opt_carry, 1, 1, 1},
    {"--super-prefix", git_opt_carry, 1, 1, 1}, // git 2.39 only
    {"--shallow-file", git_opt_carry, 1, 0, 1},
    {"--attr-source", git_opt_carry, 1, 1, 1}, // git >= 2.42
    {"--bare", git_opt_carry, 0, 0, 1},
    {"--no-replace-objects", git_opt_carry, 0, 0, 1},
    {"--no-lazy-fetch", git_opt_carry, 0, 0, 1}, // git >= 2.44
    {"--no-advice", git_opt_carry, 0, 0, 1},     // git >= 2.46
    {"--literal-pathspecs", git_opt_carry, 0, 0, 1},
    {"--no-literal-pathspecs", git_opt_carry, 0, 0, 1},
    {"--glob-pathspecs", git_opt_carry, 0, 0, 1},
    {"--noglob-pathspecs", git_opt_carry, 0, 0, 1},
    {"--icase-pathspecs", git_opt_carry, 0, 0, 1},
    {"--no-optional-locks", git_opt_carry, 0, 0, 1},
    {"-p", git_opt_pager, 0, 0, 0},
    {"--paginate", git_opt_pager, 0, 0, 0},
    {"-P", git_opt_pager, 0, 0, 1},
    {"--no-pager", git_opt_pager, 0, 0, 1},
    {"--help", git_opt_stop, 0, 0, 0}, // the "help" and "version" commands
    {"-h", git_opt_stop, 0, 0, 0},
    {"--version", git_opt_stop, 0, 0, 0},
    {"-v", git_opt_stop, 0, 0, 0},
    {"--html-path", git_opt_query, 0, 0, 0},
    {"--man-path", git_opt_query, 0, 0, 0},
    {"--info-path", git_opt_query, 0, 0, 0},
};

int git_option(int argc, char* const argv[], int i, struct GitOption* out)
{
    const char* arg = argv[i];
    *out = (struct GitOption){.kind = git_opt_bad, .words = 1, .value = NULL, .env = 0};
    if (starts_with(arg, "--exec-path")) {
        // git: `--exec-path=<dir>` sets it; any other tail is the query.
        out->kind = arg[11] == '=' ? git_opt_carry : git_opt_exec_path;
        out->value = arg[11] == '=' ? arg + 12 : NULL;
        return out->kind;
    }
    if (starts_with(arg, "--list-cmds=")) {
        out->kind = git_opt_query;
        return out->kind;
    }
    for (size_t k = 0; k < sizeof k_options / sizeof *k_options; ++k) {
        const struct OptionSpec* spec = &k_options[k];
        size_t n = strlen(spec->name);
        if (strncmp(arg, spec->name, n) != 0)
            continue;
        if (arg[n] == '=' && spec->equals)
            out->value = arg + n + 1;
        else if (arg[n] != '\0')
            continue;
        else if (spec->value) {
            if (i + 1 >= argc)
                return git_opt_bad; // git: "-c expects a configuration string"
            out->value = argv[i + 1];
            out->words = 2;
        }
        out->kind = spec->kind;
        out->env = spec->env && !(spec->kind == git_opt_chdir && !*out->value);
        return out->kind;
    }
    return git_opt_bad; // git: "unknown option"
}

int skip_git_options(int argc, char* const argv[], int start, int* envchanged)
{
    int i = start;
    for (; i < argc && argv[i][0] == '-'; ++i) {
        struct GitOption option;
        int kind = git_option(argc, argv, i, &option);
        if (kind == git_opt_bad || kind == git_opt_stop || kind == git_opt_query ||
            kind == git_opt_exec_path)
            return -1;
        if (envchanged && option.env)
            *envchanged = 1;
        i += option.words - 1;
    }
    return i < argc ? i : -1;
}

int wants_guard_version(int argc, char* const argv[], const char* name)
{
    if (argc < 2 || strcmp(argv[1], "--guard-version") != 0 ||
        strcmp(base_name(argv[0]), name) != 0)
        return 0;
    printf("%s %s\n", name, GUARD_VERSION);
    return 1;
}

static void start_child(char* const argv[], int in_fd, int out_fd, int quiet)
{
    if (in_fd >= 0)
        dup2(in_fd, 0);
    if (out_fd >= 0)
        dup2(out_fd, 1);
    if (quiet) {
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0)
            dup2(null, 2);
    }
    execv(argv[0], argv);
}

// Starts `argv`; with `death_signal`, the child gets it when we die (0: it outlives us).
static pid_t spawn_with(char* const argv[], int in_fd, int out_fd, int quiet, int death_signal)
{
    // A close-on-exec pipe tells the parent whether exec itself failed, and why.
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0)
        return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(report[0]);
        close(report[1]);
        errno = saved;
        return -1;
    }
    if (pid == 0) {
        close(report[0]);
        // The parent may have died before prctl: then nobody would signal us.
        if (death_signal && (prctl(PR_SET_PDEATHSIG, death_signal) != 0 || getppid() != parent))
            _exit(128 + death_signal);
        start_child(argv, in_fd, out_fd, quiet);
        int why = errno;
        ssize_t ignored = write(report[1], &why, sizeof why);
        (void)ignored;
        _exit(127);
    }
    close(report[1]);
    int why = 0;
    ssize_t n;
    while ((n = read(report[0], &why, sizeof why)) < 0 && errno == EINTR) {
    }
    close(report[0]);
    if (n == (ssize_t)sizeof why) {
        wait_for(pid, NULL);
        errno = why;
        return -1;
    }
    return pid;
}

pid_t spawn(char* const argv[], int in_fd, int out_fd, int quiet)
{
    return spawn_with(argv, in_fd, out_fd, quiet, 0);
}

int run_captured(char* const argv[], char* buffer, size_t size, size_t* got)
{
    int out[2];
    *got = 0;
    if (pipe2(out, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = spawn(argv, -1, out[1], 1);
    close(out[1]);
    char drain[512];
    ssize_t n;
    // Past `size` the rest is drained, so the child never blocks on a full pipe.
    while ((n = read(out[0], *got < size ? buffer + *got : drain,
                     *got < size ? size - *got : sizeof drain)) != 0) {
        if (n > 0)
            *got = *got < size ? *got + (size_t)n : size;
        else if (errno != EINTR)
            break;
    }
    close(out[0]);
    return pid < 0 ? -1 : wait_for(pid, NULL);
}

int wait_for(pid_t pid, int* signal_number)
{
    int status = 0;
    if (signal_number)
        *signal_number = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 127;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (signal_number)
        *signal_number = WTERMSIG(status);
    return 128 + WTERMSIG(status);
}

pid_t spawn_tied(char* const argv[], int in_fd, int death_signal)
{
    return spawn_with(argv, in_fd, -1, 0, death_signal);
}
