#!/usr/bin/env bash
# The shim front end (git-guard-shim, installed as `git`): everything it does not guard
# reaches the real git untouched, byte for byte; what it guards (`worktree remove`,
# `worktree prune`, `worktree add`, also through aliases and from a shell alias's inner
# git) reaches the full git-guard through the handoff `git --guard-call=1 … -- <the
# caller's arguments>`, with GIT_GUARD_REAL_GIT naming the real git; the full binary is
# found in every layout of contract C5.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SHIM=$GUARD_BIN_DIR/git-guard-shim
# The front end hands a call to the full binary only where git says guard.enabled is true
# (the last section checks the other side): every repository of this suite is guarded.
git_real config --global guard.enabled true

# A copy of the shim next to a fake full binary that records the caller's argv (what
# follows "--" in the handoff, docs/decisions.md "The shim") and environment into
# DIR/calls, the front end's parse into DIR/parse, then does what git-guard does when
# nothing needs saving: runs the real git with the caller's arguments.
make_fake_install() {
    local dir=$1
    mkdir -p "$dir"
    cp "$SHIM" "$dir/git-guard-shim"
    ln -s git-guard-shim "$dir/git"
    cat >"$dir/git-guard" <<EOF
#!/bin/sh
# \$0 = git --guard-call=1 <real git> <cwd> <G> <globals...> <W> <words...> [--guard-config=<C> <entries...>] -- <argv...>
printf 'argv1=%s\n' "\$1" >>'$dir/parse'
shift 3
n=\$1; shift; printf 'globals=%s\n' "\$n" >>'$dir/parse'
while [ "\$n" -gt 0 ]; do printf '  %s\n' "\$1" >>'$dir/parse'; shift; n=\$((n - 1)); done
n=\$1; shift; printf 'words=%s\n' "\$n" >>'$dir/parse'
while [ "\$n" -gt 0 ]; do printf '  %s\n' "\$1" >>'$dir/parse'; shift; n=\$((n - 1)); done
case \$1 in --guard-config=*) # the front end's config listing: not the parse
    n=\${1#--guard-config=}; shift
    while [ "\$n" -gt 0 ]; do shift; n=\$((n - 1)); done ;;
esac
shift # --
{ printf '%s\n' "\$@"; printf 'REAL=%s\n--\n' "\$GIT_GUARD_REAL_GIT"; } >>'$dir/calls'
exec "\$GIT_GUARD_REAL_GIT" "\$@"
EOF
    chmod +x "$dir/git-guard"
}

# calls_of DIR: what the fake full binary recorded ("" when never run).
calls_of() {
    cat "$1/calls" 2>/dev/null
    rm -f "$1/calls"
}

# The scripted session, run in $TEST_ROOT/session; each step's output lands in $1/<n>.
session() {
    local out=$1 n=0
    rm -rf "$TEST_ROOT/session"
    mkdir -p "$TEST_ROOT/session" "$out"
    cd "$TEST_ROOT/session" || return
    step() { n=$((n + 1)); printf '%s\n' "$*" >"$out/$n.cmd"; record "$out/$n" "$@"; }
    step git init repo
    cd repo || return
    printf 'one\n' >a.txt
    printf 'dash\n' >-dash.txt
    step git add a.txt
    step git commit -m first
    step git status
    step git log
    step git branch feature
    step git branch
    step git worktree add ../wt feature
    step git worktree list
    step git frobnicate
    step git config alias.st status
    step git st --short
    step git -C ../wt log --oneline
    step git -c core.abbrev=12 log --oneline
    step git checkout no-such-branch
    step git --version
    step git add -- -dash.txt
    step git status --short -- -dash.txt
    printf 'from stdin\n' >msg
    step sh -c 'git commit -F - <msg'
    step git log --format=%s
    step git -C "$TEST_ROOT/session" status
    cd "$TEST_ROOT" || return
}

section "an unguarded session is byte-identical with and without the shim"
shim_off
session "$TEST_ROOT/without"
make_fake_install "$TEST_ROOT/fake-session"
shim_on "$TEST_ROOT/fake-session"
session "$TEST_ROOT/with"
shim_off
for ((n = 1; n <= $(ls "$TEST_ROOT"/without/*.cmd | wc -l); n++)); do
    what=$(<"$TEST_ROOT/without/$n.cmd")
    for part in out err rc; do
        assert_same_file "$TEST_ROOT/without/$n.$part" "$TEST_ROOT/with/$n.$part" \
            "the shim kept the $part of '$what'"
    done
done
assert_contains "$(calls_of "$TEST_ROOT/fake-session")" "worktree
add
../wt
feature" "'worktree add' went through the full binary, unchanged"

section "finding the real git"
shim_on
run_cmd git --version
assert_eq "$("$REAL_GIT" --version)" "$OUT" "the shim runs the real git"
SECOND=$(make_shim_dir)
PATH=$SHIM_DIR:$SECOND:$BASE_PATH run_cmd timeout 10 git --version
assert_eq "0 $("$REAL_GIT" --version)" "$RC $OUT" "two shim dirs on PATH: no loop"
make_fake_install "$TEST_ROOT/other-copy"
PATH=$TEST_ROOT/other-copy:$SHIM_DIR:$BASE_PATH run_cmd timeout 10 git --version
assert_eq "0 $("$REAL_GIT" --version)" "$RC $OUT" "two copies of the shim on PATH: no loop"
PATH=$SHIM_DIR run_cmd git --version
assert_eq 127 "$RC" "no real git on PATH: exit 127"
assert_eq "git-guard: no real git found on PATH (only the git-guard shim)" "$ERR" \
    "no real git on PATH: the message says so"
mkdir -p "$TEST_ROOT/fake-git"
printf '#!/bin/sh\necho "fake git: $*"\n' >"$TEST_ROOT/fake-git/git"
chmod +x "$TEST_ROOT/fake-git/git"
GIT_GUARD_REAL_GIT=$TEST_ROOT/fake-git/git run_cmd git status
assert_eq "fake git: status" "$OUT" "GIT_GUARD_REAL_GIT is honoured"
GIT_GUARD_REAL_GIT= run_cmd git --version
assert_eq "$("$REAL_GIT" --version)" "$OUT" "an empty GIT_GUARD_REAL_GIT is ignored"
GIT_GUARD_REAL_GIT=$SHIM_DIR/git run_cmd timeout 10 git --version
assert_eq "0 $("$REAL_GIT" --version)" "$RC $OUT" "GIT_GUARD_REAL_GIT naming the shim: no loop"
run_cmd "$SHIM" --guard-version
assert_eq 0 "$RC" "git-guard-shim --guard-version succeeds"
[[ $OUT =~ ^git-guard-shim\ [0-9]+\.[0-9]+\.[0-9]+$ ]] &&
    pass "git-guard-shim --guard-version prints its version" ||
    fail "git-guard-shim --guard-version printed '$OUT'"
run_cmd git --guard-version
expected_rc=0
"$REAL_GIT" --guard-version >/dev/null 2>&1 || expected_rc=$?
assert_eq "$expected_rc $("$REAL_GIT" --guard-version 2>&1)" "$RC $ERR" \
    "'git --guard-version' is the real git's business"
shim_off

section "worktree remove, prune and add reach the full binary"
new_repo "$TEST_ROOT/repo"
git_real -C "$TEST_ROOT/repo" worktree add -q "$TEST_ROOT/wt1" -b wt1
git_real -C "$TEST_ROOT/repo" worktree add -q "$TEST_ROOT/wt2" -b wt2
git_real -C "$TEST_ROOT/repo" config alias.rmwt "worktree remove"
git_real -C "$TEST_ROOT/repo" config alias.wt worktree
git_real -C "$TEST_ROOT/repo" config alias.wt2 "-p wt"
git_real -C "$TEST_ROOT/repo" config alias.wl "worktree list"
git_real -C "$TEST_ROOT/repo" config alias.shrm '!git worktree remove'
FAKE=$TEST_ROOT/fake
make_fake_install "$FAKE"
shim_on "$FAKE"
cd "$TEST_ROOT/repo" || exit 1

expect_forwarded() {
    local what=$1
    shift
    run_cmd git "$@"
    assert_eq "$(printf '%s\n' "$@")
REAL=$REAL_GIT
--" "$(calls_of "$FAKE")" "'git $what' reached git-guard with the caller's arguments"
}
expect_forwarded "worktree remove" worktree remove "$TEST_ROOT/wt1"
assert_no_file "$TEST_ROOT/wt1" "the forwarded 'worktree remove' ran"
expect_forwarded "worktree prune" worktree prune -n
expect_forwarded "worktree add" worktree add -q "$TEST_ROOT/wt3"
expect_forwarded "-C <repo> -c x.y=z worktree prune" -C "$TEST_ROOT/repo" -c x.y=z worktree prune
expect_forwarded "rmwt (alias for worktree remove)" rmwt "$TEST_ROOT/wt3"
expect_forwarded "wt prune (alias for worktree)" wt prune
expect_forwarded "wt2 prune (alias for an alias, with -p)" wt2 prune
expect_forwarded "-c alias.x='worktree remove' x" -c "alias.x=worktree remove" x --force "$TEST_ROOT/nowhere"
cd "$TEST_ROOT" || exit 1
expect_forwarded "alias from -C's repository" -C "$TEST_ROOT/repo" rmwt --force "$TEST_ROOT/nowhere"
cd "$TEST_ROOT/repo" || exit 1
# A shell alias's inner `git` runs with git's exec path first on PATH; the shim's
# exec-path mirror makes that `git` the shim too (DESIGN §6), so both calls are seen.
run_cmd git shrm "$TEST_ROOT/wt2"
assert_eq "0:" "$RC:$ERR" "a shell alias runs as git runs it"
assert_eq "worktree
remove
$TEST_ROOT/wt2
REAL=$REAL_GIT
--" "$(calls_of "$FAKE")" "the shell alias's inner 'git worktree remove' reached git-guard"
assert_no_file "$TEST_ROOT/wt2" "the shell alias's 'worktree remove' ran"

expect_passed() {
    local what=$1
    shift
    run_cmd git "$@"
    assert_eq "" "$(calls_of "$FAKE")" "'git $what' went straight to the real git"
}
expect_passed "worktree list" worktree list
expect_passed "worktree" worktree
expect_passed "wl (alias for worktree list)" wl
expect_passed "worktree lock" worktree lock "$TEST_ROOT/nowhere"
expect_passed "status remove" status remove
expect_passed "an unknown command" frobnicate remove
expect_passed "--version worktree remove" --version worktree remove
expect_passed "an unknown option" --frobnicate worktree remove
expect_passed "an alias that changes the environment" -c "alias.y=--bare worktree" y prune
expect_passed "an alias loop" -c alias.a=b -c alias.b=a a prune
expect_passed "a recursive alias" -c "alias.wt=wt remove" wt
expect_passed "an alias with an unclosed quote" -c "alias.q=worktree 'remove" q

section "the argv[0] the full binary gets is \"git\", then the handoff"
rm -f "$FAKE/parse"
run_cmd git worktree prune -v
assert_eq "argv1=--guard-call=2" "$(head -1 "$FAKE/parse")" \
    "the full binary is started with the handoff 'git --guard-call=2 ...' (guard.enabled asked)"
calls_of "$FAKE" >/dev/null

section "the installed layouts (C5): libexec/git-guard/ and a copy with git-guard.path"
PREFIX=$TEST_ROOT/prefix
make_fake_install "$PREFIX/bin"
mkdir -p "$PREFIX/libexec/git-guard" "$TEST_ROOT/path-dir"
cp "$SHIM" "$PREFIX/libexec/git-guard/git-guard-shim"
ln -s "$PREFIX/libexec/git-guard/git-guard-shim" "$TEST_ROOT/path-dir/git"
cd "$TEST_ROOT/repo" || exit 1
PATH=$TEST_ROOT/path-dir:$BASE_PATH run_cmd git worktree prune
assert_eq "0 worktree
prune" "$RC $(calls_of "$PREFIX/bin" | head -2)" "libexec layout: ../../bin/git-guard gets the call"
mkdir -p "$TEST_ROOT/copy-dir"
cp "$SHIM" "$TEST_ROOT/copy-dir/git"
printf '%s\n' "$PREFIX/bin/git-guard" >"$TEST_ROOT/copy-dir/git-guard.path"
PATH=$TEST_ROOT/copy-dir:$BASE_PATH run_cmd git worktree prune
assert_eq "0 worktree
prune" "$RC $(calls_of "$PREFIX/bin" | head -2)" "a copy of the shim: git-guard.path names the full binary"

section "a missing full binary blocks only what it guards"
LONE=$TEST_ROOT/lone
mkdir -p "$LONE"
cp "$SHIM" "$LONE/git-guard-shim"
ln -s git-guard-shim "$LONE/git"
PATH=$LONE:$BASE_PATH run_cmd git worktree prune
assert_eq 128 "$RC" "'worktree prune' without git-guard is refused with 128"
assert_contains "$ERR" "$LONE/git-guard" "the refusal names the missing git-guard"
PATH=$LONE:$BASE_PATH run_cmd git status --short
assert_eq "0:" "$RC:$ERR" "'git status' runs without git-guard"

section "unguarded: the front end asks git, and the full binary is never started"
shim_on "$FAKE"
cd "$TEST_ROOT/repo" || exit 1
calls_of "$FAKE" >/dev/null
git_real config --global --unset guard.enabled
run_cmd git worktree prune -v
assert_eq "0:" "$RC:$(calls_of "$FAKE")" "an unguarded 'worktree prune' ran git without the full binary"
run_cmd git -c guard.enabled=false reset --hard
assert_eq "0:" "$RC:$(calls_of "$FAKE")" "'-c guard.enabled=false reset --hard' ran git without the full binary"
run_cmd git -c guard.enabled=true worktree prune -v
assert_eq "0 -c guard.enabled=true worktree prune -v" "$RC $(calls_of "$FAKE" | head -5 | tr '\n' ' ' | sed 's/ $//')" \
    "'-c guard.enabled=true' on the command line guards the call"
run_cmd git -C "$TEST_ROOT/no-such-dir" worktree prune
assert_eq "1 128" "$(calls_of "$FAKE" | grep -c REAL=) $RC" \
    "a call git cannot even start (a bad -C) goes to the full binary, which lets git say why"
cd "$TEST_ROOT" || exit 1
shim_off

finish
