# Shared by the end-to-end suites: `source "$(dirname "$0")/lib.sh"` first thing.
#
# Gives each suite a fresh, hermetic world: a temporary directory ($TEST_ROOT) holding
# HOME, no system or user git config but our own, fixed identities and dates, LC_ALL=C.
# $REAL_GIT is the real git, found before any shim is on PATH. Assertions count; the
# suite ends with `finish`, which prints "N passed, N failed", keeps $TEST_ROOT when
# something failed (and says where), and removes it otherwise.
#
# Environment: GUARD_BIN_DIR (the build's bin/, required), GUARD_SOURCE_DIR (defaults to
# the checkout holding this file), GUARD_TOOLS_DIR (the npm tools' cache tests/run.sh fills;
# defaults to the build's tools/).

set -u -o pipefail

GUARD_SOURCE_DIR=${GUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
if [ -z "${GUARD_BIN_DIR:-}" ]; then
    echo "GUARD_BIN_DIR is not set: point it at the build's bin/ directory" >&2
    exit 2
fi
GUARD_BIN_DIR=$(cd "$GUARD_BIN_DIR" && pwd)
GUARD_TOOLS_DIR=${GUARD_TOOLS_DIR:-$GUARD_BIN_DIR/../tools}
export GUARD_BIN_DIR GUARD_SOURCE_DIR GUARD_TOOLS_DIR

# --- hermetic environment ----------------------------------------------------------

# Nothing from the caller's git set-up leaks in: GIT_DIR, GIT_INDEX_FILE, GIT_GUARD_*…
while read -r name; do
    unset "$name"
done < <(compgen -e | grep -E '^(GIT_|XDG_CONFIG_HOME$)')
# GUARD_TEST_REF_FORMAT=reftable: every repository a suite makes stores its refs so (git
# >= 2.45 reads GIT_DEFAULT_REF_FORMAT), to run the destroyer suites on that format.
if [ -n "${GUARD_TEST_REF_FORMAT:-}" ]; then
    export GIT_DEFAULT_REF_FORMAT=$GUARD_TEST_REF_FORMAT
fi

# The first git on PATH that is not a git-guard shim; shim directories leave PATH, so a
# developer's own installed shim never takes part unasked.
_guard_clean_path=
_guard_real_git=
IFS=: read -r -a _guard_path_dirs <<<"$PATH"
for _dir in "${_guard_path_dirs[@]}"; do
    if [ -x "${_dir:-.}/git" ] && [ "$(basename "$(readlink -f "${_dir:-.}/git")")" = git-guard-shim ]; then
        continue
    fi
    _guard_clean_path=${_guard_clean_path:+$_guard_clean_path:}$_dir
    if [ -z "$_guard_real_git" ] && [ -f "${_dir:-.}/git" ] && [ -x "${_dir:-.}/git" ]; then
        _guard_real_git=${_dir:-.}/git
    fi
done
if [ -z "$_guard_real_git" ]; then
    echo "no git found on PATH" >&2
    exit 2
fi
PATH=$_guard_clean_path
REAL_GIT=$_guard_real_git
BASE_PATH=$PATH # PATH without any shim: `shim_off` returns to it
export PATH REAL_GIT BASE_PATH
unset _dir _guard_clean_path _guard_real_git _guard_path_dirs

TEST_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/git-guard-e2e.XXXXXX")
export TEST_ROOT
export HOME=$TEST_ROOT/home
mkdir -p "$HOME"
export LC_ALL=C LANG=C TZ=UTC
export GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="Test Author" GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME="Test Committer" GIT_COMMITTER_EMAIL=committer@example.com
export GIT_AUTHOR_DATE="2024-01-01 12:00:00 +0000" GIT_COMMITTER_DATE="2024-01-01 12:00:00 +0000"
export GIT_EDITOR=true GIT_PAGER=cat GIT_TERMINAL_PROMPT=0
cat >"$HOME/.gitconfig" <<'EOF'
[init]
	defaultBranch = main
[user]
	name = Test User
	email = user@example.com
[protocol "file"]
	allow = always
[gc]
	auto = 0
[maintenance]
	auto = false
EOF

# --- assertions ----------------------------------------------------------------------

TESTS_PASSED=0
TESTS_FAILED=0
_guard_finished=0

# Prints a heading for the checks that follow.
section() {
    printf '\n== %s\n' "$*"
}

pass() {
    TESTS_PASSED=$((TESTS_PASSED + 1))
    printf '  ok   %s\n' "$*"
}

# Records a failure. Name the loss: "the untracked change was destroyed, not saved".
fail() {
    TESTS_FAILED=$((TESTS_FAILED + 1))
    printf '  FAIL %s\n' "$*"
}

# assert_eq EXPECTED ACTUAL MESSAGE
assert_eq() {
    if [ "$1" = "$2" ]; then
        pass "$3"
    else
        fail "$3"
        printf '       expected: %q\n       actual:   %q\n' "$1" "$2"
    fi
}

# assert_within LOW HIGH ACTUAL MESSAGE: LOW <= ACTUAL <= HIGH (integers)
assert_within() {
    if [[ $3 =~ ^[0-9]+$ ]] && [ "$3" -ge "$1" ] && [ "$3" -le "$2" ]; then
        pass "$4"
    else
        fail "$4"
        printf '       expected: %s..%s\n       actual:   %q\n' "$1" "$2" "$3"
    fi
}

# assert_ne UNEXPECTED ACTUAL MESSAGE
assert_ne() {
    if [ "$1" != "$2" ]; then
        pass "$3"
    else
        fail "$3"
        printf '       both:     %q\n' "$1"
    fi
}

# assert_contains HAYSTACK NEEDLE MESSAGE
assert_contains() {
    case "$1" in
    *"$2"*) pass "$3" ;;
    *)
        fail "$3"
        printf '       missing:  %q\n       in:       %q\n' "$2" "$1"
        ;;
    esac
}

# assert_not_contains HAYSTACK NEEDLE MESSAGE
assert_not_contains() {
    case "$1" in
    *"$2"*)
        fail "$3"
        printf '       unwanted: %q\n       in:       %q\n' "$2" "$1"
        ;;
    *) pass "$3" ;;
    esac
}

# assert_same_file EXPECTED_FILE ACTUAL_FILE MESSAGE: byte for byte.
assert_same_file() {
    if cmp -s "$1" "$2"; then
        pass "$3"
    else
        fail "$3"
        diff -u "$1" "$2" 2>&1 | head -20 | sed 's/^/       /'
    fi
}

# assert_file_exists PATH MESSAGE / assert_no_file PATH MESSAGE
assert_file_exists() {
    if [ -e "$1" ] || [ -L "$1" ]; then pass "$2"; else fail "$2 ($1 does not exist)"; fi
}
assert_no_file() {
    if [ -e "$1" ] || [ -L "$1" ]; then fail "$2 ($1 exists)"; else pass "$2"; fi
}

# assert_ref_exists REPO REF MESSAGE / assert_no_ref REPO REF MESSAGE
assert_ref_exists() {
    if "$REAL_GIT" -C "$1" rev-parse -q --verify "$2" >/dev/null; then
        pass "$3"
    else
        fail "$3 ($2 is gone)"
    fi
}
assert_no_ref() {
    if "$REAL_GIT" -C "$1" rev-parse -q --verify "$2" >/dev/null; then
        fail "$3 ($2 still exists)"
    else
        pass "$3"
    fi
}

# run_cmd COMMAND...: runs it, keeping its stdout in $OUT, stderr in $ERR and exit code
# in $RC (trailing newlines dropped; use `record` for byte-exact output).
run_cmd() {
    local out=$TEST_ROOT/.run.out err=$TEST_ROOT/.run.err
    "$@" >"$out" 2>"$err" && RC=0 || RC=$? # no exit under `set -e`
    OUT=$(<"$out")
    ERR=$(<"$err")
}

# record PREFIX COMMAND...: runs it, keeping stdout, stderr and the exit code byte for
# byte in PREFIX.out, PREFIX.err and PREFIX.rc.
record() {
    local prefix=$1 rc
    shift
    mkdir -p "$(dirname "$prefix")"
    "$@" >"$prefix.out" 2>"$prefix.err" && rc=0 || rc=$?
    echo "$rc" >"$prefix.rc"
}

# --- repositories and shims ----------------------------------------------------------

# git_real ARGS...: the real git, whatever PATH holds.
git_real() {
    "$REAL_GIT" "$@"
}

# new_repo PATH: a repository with one commit (README) on main.
new_repo() {
    "$REAL_GIT" init -q "$1" &&
        echo "readme" >"$1/README" &&
        "$REAL_GIT" -C "$1" add README &&
        "$REAL_GIT" -C "$1" commit -q -m "initial"
}

# commit_file REPO FILE CONTENT [MESSAGE]: writes FILE and commits it.
commit_file() {
    printf '%s\n' "$3" >"$1/$2" &&
        "$REAL_GIT" -C "$1" add -- "$2" &&
        "$REAL_GIT" -C "$1" commit -q -m "${4:-add $2}"
}

# make_shim_dir [DIR]: a directory holding `git` -> $GUARD_BIN_DIR/git-guard-shim (a
# fresh one under $TEST_ROOT by default). Prints the directory.
make_shim_dir() {
    local dir=${1:-$(mktemp -d "$TEST_ROOT/shim.XXXX")}
    mkdir -p "$dir"
    ln -sf "$GUARD_BIN_DIR/git-guard-shim" "$dir/git"
    printf '%s\n' "$dir"
}

# shim_on [DIR]: puts DIR (default: a new shim dir) first on PATH; sets $SHIM_DIR.
shim_on() {
    SHIM_DIR=${1:-$(make_shim_dir)}
    PATH=$SHIM_DIR:$BASE_PATH
    hash -r
}

# shim_off: PATH without any shim again.
shim_off() {
    PATH=$BASE_PATH
    hash -r
}

# --- guarded repositories --------------------------------------------------------------

STUB=$GUARD_SOURCE_DIR/hooks/reference-transaction

# install_hook REPO: the reference-transaction stub, pointing at this build's front end.
install_hook() {
    sed "s|@GUARD_HOOK_FRONT@|$GUARD_BIN_DIR/git-guard-hook|" "$STUB" >"$1/.git/hooks/reference-transaction"
    chmod +x "$1/.git/hooks/reference-transaction"
}

# make_clone NAME: bare $TEST_ROOT/NAME.origin and its clone $TEST_ROOT/NAME.
make_clone() {
    local seed=$TEST_ROOT/$1.seed
    new_repo "$seed"
    commit_file "$seed" a.txt "a"
    git_real init -q --bare "$TEST_ROOT/$1.origin"
    git_real -C "$seed" push -q "$TEST_ROOT/$1.origin" main
    git_real clone -q "$TEST_ROOT/$1.origin" "$TEST_ROOT/$1"
    rm -rf "$seed"
}

# hooked_clone NAME: make_clone NAME, guarded, with the hook's front end itself linked in as
# the reference-transaction hook (what install copies); sets REPO to the clone.
hooked_clone() {
    make_clone "$1"
    REPO=$TEST_ROOT/$1
    ln -sf "$GUARD_BIN_DIR/git-guard-hook" "$REPO/.git/hooks/reference-transaction"
    git_real -C "$REPO" config guard.enabled true
}

# --- the end -------------------------------------------------------------------------

# A watcher that `git guard install` started for this suite's HOME ends with the suite,
# also when the suite failed and its directory (with the registry) is kept.
_guard_stop_watcher() {
    [ -e "$HOME/.local/share/git-guard/watch/lock" ] || return 0
    "$GUARD_BIN_DIR/git-guard" watch --stop >/dev/null 2>&1 || true
}

# Prints the totals; keeps $TEST_ROOT on failure, removes it on success. Exits.
finish() {
    _guard_finished=1
    _guard_stop_watcher
    cd / || true
    printf '\n%d passed, %d failed\n' "$TESTS_PASSED" "$TESTS_FAILED"
    if [ "$TESTS_FAILED" -ne 0 ]; then
        printf 'kept the test directory for inspection: %s\n' "$TEST_ROOT"
        exit 1
    fi
    rm -rf "$TEST_ROOT"
    exit 0
}

# skip WHY: the suite cannot run here (a tool missing, no namespace). Says why and exits
# 125, which ctest reads as a skip (SKIP_RETURN_CODE), never as a pass.
skip() {
    _guard_finished=1
    cd / || true
    printf 'SKIP: %s\n' "$*"
    rm -rf "$TEST_ROOT"
    exit 125
}

# A suite that dies before `finish` (a bug in the suite, set -e) keeps its directory too.
_guard_on_exit() {
    local rc=$?
    if [ "$_guard_finished" -eq 0 ]; then
        _guard_stop_watcher
        printf '\nsuite ended before finish (exit %d) after %d passed, %d failed\n' \
            "$rc" "$TESTS_PASSED" "$TESTS_FAILED"
        printf 'kept the test directory for inspection: %s\n' "$TEST_ROOT"
        [ "$rc" -ne 0 ] || exit 1
    fi
}
trap _guard_on_exit EXIT

# --- another git (hook) ------------------------------------------------------------------
# GUARD_TEST_GIT=/path/to/git: the suites run against that git. It becomes $REAL_GIT and
# its directory leads PATH and BASE_PATH, so every plain `git` and git-guard's own git
# calls run it too. Unset: the system git, exactly as before.
if [ -n "${GUARD_TEST_GIT:-}" ]; then
    if [ ! -x "$GUARD_TEST_GIT" ] || [ -d "$GUARD_TEST_GIT" ]; then
        echo "GUARD_TEST_GIT=$GUARD_TEST_GIT is not an executable git" >&2
        exit 2
    fi
    REAL_GIT=$(cd "$(dirname "$GUARD_TEST_GIT")" && pwd)/$(basename "$GUARD_TEST_GIT")
    BASE_PATH=$(dirname "$REAL_GIT"):$BASE_PATH
    PATH=$(dirname "$REAL_GIT"):$PATH
    export REAL_GIT BASE_PATH PATH GUARD_TEST_GIT
    hash -r
fi
