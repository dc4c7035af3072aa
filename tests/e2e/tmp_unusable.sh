#!/usr/bin/env bash
# git's answers land in memory, whatever /tmp is (docs/decisions.md, "Where git's answers
# land"). git-guard's inspection runs `git status` and `git ls-files` in the background and
# keeps their output in anonymous files. These were files in /tmp: with /tmp read-only (a
# sandbox, a read-only root), git wrote its answer onto the caller's terminal, git-guard read
# an empty answer as "clean", and `worktree remove --force` destroyed the tree unsaved.
# Each check runs in a private mount namespace with a read-only, empty /tmp, and the
# repositories elsewhere (under /var/tmp), so only /tmp is unusable.
TMPDIR=/var/tmp
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if ! unshare -m sh -c 'mount -t tmpfs -o ro,size=64k tmpfs /tmp' 2>/dev/null; then
    skip "this machine cannot make a private read-only /tmp (unshare -m and mount need root" \
        "and a kernel that allows mount namespaces); nothing was checked"
fi

# The build may live under /tmp too (CI clones there): the binaries the checks run are
# copies next to the repositories, so the read-only /tmp hides nothing they need.
mkdir -p "$TEST_ROOT/bin"
cp "$GUARD_BIN_DIR/git-guard-shim" "$GUARD_BIN_DIR/git-guard" "$GUARD_BIN_DIR/git-guard-hook" "$TEST_ROOT/bin/"
GUARD_BIN_DIR=$TEST_ROOT/bin
SHIM_DIR=$(make_shim_dir)

# no_tmp COMMAND...: runs COMMAND with /tmp read-only and empty, the shim first on PATH.
no_tmp() {
    unshare -m sh -c 'mount -t tmpfs -o ro,size=64k tmpfs /tmp && exec "$@"' sh \
        env PATH="$SHIM_DIR:$GUARD_BIN_DIR:$BASE_PATH" "$@" # `git guard` finds git-guard
}

# guarded_tree NAME: $TEST_ROOT/NAME, guarded, with a linked tree NAME.wt that holds an
# edited tracked file and an untracked one.
guarded_tree() {
    local repo=$TEST_ROOT/$1
    new_repo "$repo"
    commit_file "$repo" a.txt "a"
    git_real -C "$repo" config guard.enabled true
    install_hook "$repo"
    git_real -C "$repo" worktree add -q "$repo.wt"
    printf 'edited\n' >"$repo.wt/a.txt"
    printf 'untracked\n' >"$repo.wt/new.txt"
}

section "worktree remove --force with /tmp read-only: the tree is saved first"
guarded_tree rm
run_cmd no_tmp git -C "$TEST_ROOT/rm" worktree remove --force "$TEST_ROOT/rm.wt"
assert_eq 0 "$RC" "the removal failed (stderr: $ERR)"
REF=$(git_real -C "$TEST_ROOT/rm" for-each-ref --format='%(refname)' refs/heads/stranded/)
assert_ne "" "$REF" "the tree was removed and nothing was saved: a.txt's edit and new.txt are lost"
if [ -n "$REF" ]; then
    assert_eq "untracked" "$(git_real -C "$TEST_ROOT/rm" show "$REF:new.txt" 2>&1)" \
        "the untracked new.txt was destroyed, not saved"
    assert_eq "edited" "$(git_real -C "$TEST_ROOT/rm" show "$REF:a.txt" 2>&1)" \
        "the edit to a.txt was destroyed, not saved"
fi
assert_eq "" "$OUT" "git's own answers were written on the caller's stdout"

section "git guard status with /tmp read-only: the work is seen, nothing leaks to stdout"
guarded_tree st
run_cmd no_tmp git -C "$TEST_ROOT/st.wt" guard status --json
assert_eq 0 "$RC" "git guard status failed (stderr: $ERR)"
assert_contains "$OUT" '"verdict":"has_work"' "a tree with an edit and an untracked file reads as clean"
assert_contains "$OUT" '"path":"new.txt"' "the untracked new.txt is missing from the report"
assert_not_contains "$OUT" $'1 .M N...' "git status's raw records were written on stdout"

section "git guard save with /tmp read-only"
run_cmd no_tmp git -C "$TEST_ROOT/st.wt" guard save
assert_eq 0 "$RC" "git guard save failed (stderr: $ERR)"
REF=$(git_real -C "$TEST_ROOT/st" for-each-ref --format='%(refname)' refs/heads/stranded/)
assert_ne "" "$REF" "git guard save made no save"
[ -z "$REF" ] || assert_eq "untracked" "$(git_real -C "$TEST_ROOT/st" show "$REF:new.txt" 2>&1)" \
    "the save lacks the untracked new.txt"

finish
