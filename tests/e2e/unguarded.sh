#!/usr/bin/env bash
# "Unguarded means untouched" (DESIGN §0.4), with the real git-guard and the real git:
# in repositories that are not guarded, every command the shim forwards (worktree
# add/remove/prune, and every in-place destroyer: reset --hard, checkout -- ., restore,
# clean -fdx, switch -f, stash drop/clear) behaves byte for byte as git alone: stdout,
# stderr, exit codes and the resulting state, compared against the same session run
# without the shim on an identical copy. The repositories are the ones libgit2 1.5
# cannot open: SHA-256, foreign-owned (with and without safe.directory=*), and, with
# git >= 2.48 at /opt/git-2.55, extensions.relativeWorktrees (worktree add
# --relative-paths) and reftable refs.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GIT55=/opt/git-2.55/bin/git

# build_repo KIND DIR: a fresh repository of KIND (sha256, foreign, relative, plain).
build_repo() {
    local kind=$1 dir=$2
    rm -rf "$dir"
    mkdir -p "$dir"
    case $kind in
    sha256) git init -q --object-format=sha256 "$dir/repo" ;;
    reftable) git init -q --ref-format=reftable "$dir/repo" ;;
    *) git init -q "$dir/repo" ;;
    esac
    printf 'a\n' >"$dir/repo/a.txt"
    printf 'build/\n.env\n' >"$dir/repo/.gitignore"
    git -C "$dir/repo" add a.txt .gitignore
    git -C "$dir/repo" commit -q -m first
    git -C "$dir/repo" config alias.rmwt "-c core.quotePath=false worktree remove --force"
}

# session KIND DIR TRANSCRIPT [ADD-OPTION]: the scripted session with `git` from PATH;
# stdout+exit codes into TRANSCRIPT.out, stderr into TRANSCRIPT.err, the end state
# into TRANSCRIPT.state.
session() {
    local kind=$1 root=$2 t=$3 add=${4:-}
    build_repo "$kind" "$root"
    if [ "$kind" = foreign ]; then
        chown -R 65534:65534 "$root/repo"
    fi
    : >"$t.out"
    : >"$t.err"
    step() {
        printf '$ %s\n' "$*" | tee -a "$t.err" >>"$t.out"
        "$@" >>"$t.out" 2>>"$t.err"
        printf '[exit %d]\n' "$?" >>"$t.out"
    }
    cd "$root/repo" || return 1
    step git worktree add $add ../w1 -b w1
    step git worktree add $add --detach ../w2
    step git worktree add $add ../w3 -b w3
    echo dirty >../w1/dirty.txt
    step git worktree remove ../w1
    step git -C ../w2 commit -q --allow-empty -m "detached work"
    step git worktree remove --forc ../w1
    step git worktree remove ../w2
    step git rmwt ../w3
    step git worktree add $add ../w4 -b w4
    rm -rf ../w4
    step git worktree prune -v
    printf 'edit\n' >a.txt
    step git reset --hard
    printf 'edit\n' >a.txt
    step git checkout -- .
    printf 'edit\n' >a.txt
    step git restore a.txt
    step git checkout -- no-such-path
    mkdir -p build && printf 'out\n' >build/o && printf 'secret\n' >.env && printf 'u\n' >u.txt
    step git clean -fdx
    printf 'stash 1\n' >a.txt
    step git stash
    printf 'stash 2\n' >a.txt
    step git stash
    step git stash drop
    step git stash clear
    printf 'edit\n' >a.txt
    step git switch -f -c other
    step git checkout -f main
    step git worktree list --porcelain
    step git for-each-ref --format='%(refname) %(objectname)'
    step git status --porcelain=v2 --branch --untracked-files=all
    { find . ../w* -path ./.git -prune -o -print 2>/dev/null | sort; cat a.txt; } >"$t.state"
    [ -e .git/guard ] && echo "git-guard left .git/guard" >>"$t.state"
    cd "$TEST_ROOT" || return 1
}

# compare KIND [ADD-OPTION]: the session without, then with the shim.
compare() {
    local kind=$1 add=${2:-} label=$1${2:+ ($2)}
    section "unguarded $label: byte-identical with and without the shim"
    shim_off
    session "$kind" "$TEST_ROOT/s" "$TEST_ROOT/$kind.plain" "$add"
    shim_on "$SHIM"
    session "$kind" "$TEST_ROOT/s" "$TEST_ROOT/$kind.shim" "$add"
    shim_off
    for part in out err state; do
        assert_same_file "$TEST_ROOT/$kind.plain.$part" "$TEST_ROOT/$kind.shim.$part" \
            "unguarded $label: the $part is git's own"
    done
    grep -q 'stash drop' "$TEST_ROOT/$kind.shim.out" && grep -q 'Dropped' "$TEST_ROOT/$kind.shim.out" &&
        pass "unguarded $label: the session really ran" || fail "unguarded $label: the session did not run"
}

SHIM=$(make_shim_dir)
compare plain
compare sha256
section "foreign-owned without safe.directory: git's own refusal, byte for byte"
build_repo plain "$TEST_ROOT/f"
chown -R 65534:65534 "$TEST_ROOT/f/repo"
for args in "worktree add ../x" "worktree remove --force ../x" "worktree prune" "reset --hard" "status"; do
    # shellcheck disable=SC2086
    (cd "$TEST_ROOT/f/repo" && "$REAL_GIT" $args) >"$TEST_ROOT/f.plain" 2>&1
    plain_rc=$?
    shim_on "$SHIM"
    # shellcheck disable=SC2086
    (cd "$TEST_ROOT/f/repo" && git $args) >"$TEST_ROOT/f.shim" 2>&1
    shim_rc=$?
    shim_off
    assert_eq "$plain_rc $(cat "$TEST_ROOT/f.plain")" "$shim_rc $(cat "$TEST_ROOT/f.shim")" \
        "foreign-owned, no safe.directory: 'git $args' is git's own"
done
cat >>"$HOME/.gitconfig" <<'CONFIG_EOF'
[safe]
	directory = *
CONFIG_EOF
compare foreign
if [ -x "$GIT55" ]; then
    BASE_PATH=$(dirname "$GIT55"):$BASE_PATH
    compare relative --relative-paths
    grep -qi 'relativeworktrees = true' "$TEST_ROOT/s/repo/.git/config" &&
        pass "relative: extensions.relativeWorktrees is on" ||
        fail "relative: the session did not set extensions.relativeWorktrees"
    compare reftable
else
    section "no git >= 2.48 at $GIT55: relative worktrees not tried"
fi

section "outside any repository, guard.enabled set by -c or globally: git's own words (issue 37 item 4)"
mkdir -p "$TEST_ROOT/norepo"
for cmd in "gc" "prune" "maintenance run" "worktree prune" "worktree remove x" "reset --hard"; do
    # shellcheck disable=SC2086
    want=$(cd "$TEST_ROOT/norepo" && GIT_CEILING_DIRECTORIES=$TEST_ROOT git_real -c guard.enabled=true $cmd 2>&1; echo "exit $?")
    # shellcheck disable=SC2086
    got=$(cd "$TEST_ROOT/norepo" && GIT_CEILING_DIRECTORIES=$TEST_ROOT PATH="$SHIM:$PATH" git -c guard.enabled=true $cmd 2>&1; echo "exit $?")
    assert_eq "$want" "$got" "git $cmd outside a repository: the shim's words differ from git's"
done

finish
