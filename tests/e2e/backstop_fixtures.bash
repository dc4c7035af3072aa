# Shared by the backstop_*.sh suites, after lib.sh: a guarded clone with the watcher
# running (as `git guard install` leaves it), and bounded waits for what the watcher does.
# Every wait is a bounded poll for a fact, never a timed assertion.

GUARD=$GUARD_BIN_DIR/git-guard
WATCH_STATE=$HOME/.local/share/git-guard/watch

# Debian's python3 (where python3-pygit2 and python3-dulwich are), before a PATH python3.
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3

# skip_suite WHY: the suite cannot run here; ctest reads exit 125 as a skip.
skip_suite() {
    echo "SKIP: $*"
    _guard_finished=1
    _guard_stop_watcher
    rm -rf "$TEST_ROOT"
    trap - EXIT
    exit 125
}

# logging_git: $TEST_ROOT/logging-git, the real git that first appends its arguments to
# $CALLS (set here): give it to the watcher as $GIT_GUARD_REAL_GIT to see every git it runs.
logging_git() {
    CALLS=$TEST_ROOT/git-calls
    cat >"$TEST_ROOT/logging-git" <<EOF2
#!/bin/sh
echo "\$*" >>"$CALLS"
exec "$REAL_GIT" "\$@"
EOF2
    chmod +x "$TEST_ROOT/logging-git"
}

# guarded_clone NAME: bare NAME.origin, its clone NAME, installed with the watcher started.
# Sets $REPO.
guarded_clone() {
    make_clone "$1"
    REPO=$TEST_ROOT/$1
    run_cmd "$GUARD" -C "$REPO" install --shim-dir "$TEST_ROOT/shim"
    if [ "$RC" -ne 0 ]; then
        fail "git guard install failed: $ERR"
        finish
    fi
}

# poll SECONDS COMMAND...: runs COMMAND every 20 ms until it succeeds or SECONDS pass.
poll() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.02
    done
}

# knows_tip REPO OID: the watcher has recorded OID as a tip or HEAD it knows.
knows_tip() {
    [ -f "$1/.git/guard/watch/tips" ] && tr '\0' '\n' <"$1/.git/guard/watch/tips" | grep -qx "$2"
}

# wait_known REPO OID: waits until the watcher knows OID (a ref created and deleted
# before the watcher read it is the backstop's documented limit, not what is tested).
wait_known() {
    poll 30 knows_tip "$1" "$2" || fail "the watcher never learned the tip $2"
}

# index_copy_has REPO ID PATH: the watcher's copy of admin entry ID's index stages PATH.
index_copy_has() {
    [ -f "$1/.git/guard/watch/index-$2" ] &&
        [ -n "$(GIT_INDEX_FILE=$1/.git/guard/watch/index-$2 git_real -C "$1" ls-files -- "$3")" ]
}

# saved_at REPO NAME OID: a save refs/heads/stranded/NAME/* holds OID (as its tip or as
# a save commit's first parent).
saved_at() {
    local ref
    for ref in $(git_real -C "$1" for-each-ref --format='%(refname)' "refs/heads/stranded/$2/"); do
        [ "$(git_real -C "$1" rev-parse "$ref")" = "$3" ] && return 0
        [ "$(git_real -C "$1" rev-parse -q --verify "$ref^1" 2>/dev/null)" = "$3" ] && return 0
    done
    return 1
}

# save_of REPO NAME: the newest save ref of NAME.
save_of() {
    git_real -C "$1" for-each-ref --sort=-refname --count=1 --format='%(refname)' "refs/heads/stranded/$2/"
}

# saves REPO NAME: how many saves NAME has.
saves() {
    git_real -C "$1" for-each-ref --format='%(refname)' "refs/heads/stranded/$2/" | wc -l | tr -d ' '
}

# unpushed REPO BRANCH: BRANCH off main with one commit that exists nowhere else. Prints its id.
unpushed() {
    local blob tree commit
    blob=$(printf '%s\n' "$2" | git_real -C "$1" hash-object -w --stdin) &&
        tree=$(printf '100644 blob %s\t%s.txt\n' "$blob" "$2" | git_real -C "$1" mktree) &&
        commit=$(git_real -C "$1" commit-tree -p main -m "work on $2" "$tree") &&
        git_real -C "$1" update-ref "refs/heads/$2" "$commit" &&
        printf '%s\n' "$commit"
}

# assert_saved REPO NAME OID WHAT: the watcher saved OID under stranded/NAME within the
# bounded wait, with the watcher's reason.
assert_saved() {
    if poll 30 saved_at "$1" "$2" "$3"; then
        pass "$4: saved under stranded/$2/"
        local ref
        ref=$(save_of "$1" "$2")
        run_cmd "$GUARD" -C "$1" list
        assert_contains "$OUT" "vanished (no git hook ran)" "$4: git guard list names the watcher as the save's source"
    else
        fail "$4: the commit $3 was destroyed, not saved (no stranded/$2/ holds it)"
    fi
}

# read_past REPO NAME DELETE...: a branch NAME with an unpushed commit, deleted by the
# command DELETE..., is saved. A suite that asserts the watcher saved nothing for an
# earlier change calls it first: the marker's save proves the watcher read past that change.
read_past() {
    local repo=$1 name=$2 tip
    shift 2
    tip=$(unpushed "$repo" "$name")
    wait_known "$repo" "$tip"
    "$@"
    poll 30 saved_at "$repo" "$name" "$tip" || fail "the marker branch was not saved"
}

# tree_with_work NAME: a detached linked tree $TEST_ROOT/NAME with a commit of its own
# ($HEAD_ID) and a staged file staged.txt ($STAGED), once the watcher knows both.
tree_with_work() {
    local tree=$TEST_ROOT/$1
    git_real -C "$REPO" worktree add -q --detach "$tree" main
    echo work >"$tree/w.txt"
    git_real -C "$tree" add w.txt
    git_real -C "$tree" commit -q -m "detached work"
    HEAD_ID=$(git_real -C "$tree" rev-parse HEAD)
    echo staged >"$tree/staged.txt"
    git_real -C "$tree" add staged.txt
    STAGED=$(git_real -C "$tree" rev-parse :staged.txt)
    wait_known "$REPO" "$HEAD_ID"
    poll 30 index_copy_has "$REPO" "$1" staged.txt || fail "the watcher kept no copy of the tree's index"
}
