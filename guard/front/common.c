#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int self_dir(char* dir, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", dir, size - 1);
    if (n < 0)
        return -1;
    if ((size_t)n >= size - 1) {
        errno = ENAMETOOLONG;
        return -1;
    }
    dir[n] = '\0';
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
    int n = snprintf(out, size, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

const char* base_name(const char* path)
{
    const char* slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int starts_with(const char* s, const char* prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int is_one_of(const char* s, const char* const* list)
{
    for (; *list; ++list)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

// git 2.39 git.c: these end option parsing, either as the "version"/"help" commands
// or as a query that prints and exits.
static const char* const k_ending[] = {"--help",      "-h",          "--version", "-v",
                                       "--html-path", "--man-path", "--info-path", NULL};
// Take their value from the next word.
static const char* const k_with_value[] = {"--git-dir",      "--namespace", "--work-tree",
                                           "--super-prefix", "-c",          "--config-env",
                                           "--shallow-file", "-C",          NULL};
// Complete in themselves.
static const char* const k_flags[] = {"-p",
                                      "--paginate",
                                      "-P",
                                      "--no-pager",
                                      "--no-replace-objects",
                                      "--bare",
                                      "--literal-pathspecs",
                                      "--no-literal-pathspecs",
                                      "--glob-pathspecs",
                                      "--noglob-pathspecs",
                                      "--icase-pathspecs",
                                      "--no-optional-locks",
                                      NULL};
// Their `=value` forms.
static const char* const k_with_equals[] = {"--git-dir=",      "--namespace=",  "--work-tree=",
                                            "--super-prefix=", "--config-env=", NULL};

// The options git 2.39 accepts in an alias without dying "changes environment variables".
static int keeps_env(const char* option, const char* value)
{
    return strcmp(option, "-p") == 0 || strcmp(option, "--paginate") == 0 ||
           strcmp(option, "-c") == 0 || starts_with(option, "--config-env") ||
           starts_with(option, "--exec-path=") || (strcmp(option, "-C") == 0 && !*value);
}

int skip_git_options(int argc, char* const argv[], int start, int* envchanged)
{
    int i = start;
    for (; i < argc && argv[i][0] == '-'; ++i) {
        const char* arg = argv[i];
        const char* value = "";
        if (is_one_of(arg, k_ending) || starts_with(arg, "--list-cmds="))
            return -1;
        if (starts_with(arg, "--exec-path")) {
            if (arg[11] != '=') // a query: git prints its exec path and exits
                return -1;
        } else if (is_one_of(arg, k_with_value)) {
            if (i + 1 >= argc)
                return -1;
            value = argv[++i];
        } else if (!is_one_of(arg, k_flags)) {
            int known = 0;
            for (const char* const* p = k_with_equals; *p && !known; ++p)
                known = starts_with(arg, *p);
            if (!known)
                return -1; // git: "unknown option"
        }
        if (envchanged && !keeps_env(arg, value))
            *envchanged = 1;
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

pid_t spawn(char* const argv[], int in_fd, int out_fd, int quiet)
{
    // A close-on-exec pipe tells the parent whether exec itself failed, and why.
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0)
        return -1;
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

// hook
#include <signal.h>
#include <sys/prctl.h>

pid_t spawn_tied(char* const argv[], int in_fd, int death_signal)
{
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
        if (prctl(PR_SET_PDEATHSIG, death_signal) != 0 || getppid() != parent)
            _exit(128 + death_signal);
        start_child(argv, in_fd, -1, 0);
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
