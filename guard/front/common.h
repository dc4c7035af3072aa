// What the two static front ends share: where they live, how git's global options
// are skipped, and how a child is started. Plain C and libc only: these run on every
// git call and every ref update, and must start as fast as a process can (DESIGN.md §11).
#pragma once

#include <stddef.h>
#include <sys/types.h>

enum { k_path_max = 4096 };

// Opens /dev/null on whichever of fds 0, 1 and 2 the caller closed, as git itself does at
// its start: a pipe made later must never land on them (a child's stdout would then be
// closed under it). What git sees is unchanged: it would do the same.
void open_std_fds(void);

// The running executable's path (/proc/self/exe, links resolved), read once per process.
// NULL with errno set when it cannot be read.
const char* self_exe(void);

// Writes the directory of the running executable (self_exe) into `dir`. Returns 0, or -1
// with errno set.
int self_dir(char* dir, size_t size);

// Writes `dir`/`name` into `out`. Returns 0, or -1 when it does not fit.
int join_path(char* out, size_t size, const char* dir, const char* name);

// Writes the strings given (up to a NULL) one after another into `out`. Returns 0, or -1
// when they do not fit in `size` bytes (`out` is then ""). The fast paths build their
// paths with it: printf's machinery costs a static process pages it need not touch.
int concat(char* out, size_t size, ...);

// Writes `dir`/ and the first `n` bytes of `name` into `out`. Returns 0, or -1 when it
// does not fit (`out` is then "").
int join_span(char* out, size_t size, const char* dir, const char* name, size_t n);

// `value` as 16 lowercase hex digits and a NUL, into `out`.
void hex64(unsigned long long value, char out[17]);

// What one of git's global options is to the shim (git.c handle_options).
enum GitOptionKind {
    git_opt_carry,     // applies to every git call made on the caller's behalf (-c, --git-dir…)
    git_opt_chdir,     // -C <dir>
    git_opt_pager,     // -p, -P, --paginate, --no-pager: only the caller's own output
    git_opt_stop,      // --help, -h, --version, -v: git runs "help" or "version"
    git_opt_exec_path, // --exec-path (no value): git prints its exec path and exits
    git_opt_query,     // --html-path, --list-cmds=… and the like: git prints and exits
    git_opt_bad,       // unknown, or missing its value: git dies with its usage
};
struct GitOption {
    int kind;          // enum GitOptionKind
    int words;         // how many words of argv it takes (1 or 2)
    const char* value; // its value (-C's directory, -c's pair…), NULL when none
    int env;           // git counts it as changing the environment (refused in an alias)
};

// Classifies the global option `argv[i]` (a word starting with '-') into `*out` exactly
// as git 2.39 through 2.55 parse it. Returns `out->kind`.
int git_option(int argc, char* const argv[], int i, struct GitOption* out);

// Skips git's global options in `argv[start..argc)` with git_option. Returns the index
// of the first word that is not an option (the subcommand), or -1 when git would not
// run a subcommand from here: a query that ends parsing (`--version`, `--help`,
// `--exec-path`, `--list-cmds=`…), an unknown option, an option missing its value, or
// no word at all. Sets `*envchanged` (when not NULL) if an option would change git's
// environment, which git refuses inside an alias.
int skip_git_options(int argc, char* const argv[], int start, int* envchanged);

// When `argv[1]` is `--guard-version` and basename(`argv[0]`) is `name`, prints
// "`name` <version>" and returns 1; otherwise returns 0.
int wants_guard_version(int argc, char* const argv[], const char* name);

// Writes the next PATH candidate `<dir>/<name>` into `out` (empty when too long) and
// advances `*cursor`. Returns 0 once PATH is exhausted. An empty entry is ".".
int next_in_path(const char** cursor, const char* name, char* out, size_t size);

// A small file read whole into `buffer` (not NUL-terminated): its size; -1 when it does not
// exist, -2 when it cannot be read or fills `size` bytes. `buffer` may hold `path`: open(2)
// has taken the name before read(2) writes.
long read_small(const char* path, char* buffer, size_t size);

// The last path component of `path`.
const char* base_name(const char* path);

// The git a system install (`git guard install --system`) moved aside with dpkg-divert
// before putting the shim at `path`: `path`.distrib, when that is an executable file
// (docs/install.md, "System install"). Appends ".distrib" to `path` (a buffer of `size`
// bytes) and returns 0 when it is one; otherwise leaves `path` as it was and returns -1.
int diverted_git(char* path, size_t size);

// Starts `argv` (argv[0] is a path) with `in_fd` (when >= 0) as its stdin and
// `out_fd` (when >= 0) as its stdout; `quiet` sends its stderr to /dev/null.
// Returns the pid, or -1 with errno set to why exec failed (the child is reaped).
pid_t spawn(char* const argv[], int in_fd, int out_fd, int quiet);

// Waits for `pid`: its exit code, or 128 + the signal that killed it, which is also
// stored in `*signal_number` (when not NULL; 0 for a normal exit).
int wait_for(pid_t pid, int* signal_number);

// Runs `argv` quietly (stderr to /dev/null) and reads at most `size` bytes of its stdout
// into `buffer`, their count into `*got` (`size` when there was more). Returns its exit
// code, or -1 when it could not be started.
int run_captured(char* const argv[], char* buffer, size_t size, size_t* got);

// hook
// Like spawn (stdin from `in_fd`), and the child gets `death_signal` when this
// process dies, so that a killed hook leaves no worker behind.
pid_t spawn_tied(char* const argv[], int in_fd, int death_signal);
