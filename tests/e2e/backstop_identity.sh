#!/usr/bin/env bash
# A repository is its git dir's identity, not a path (DESIGN §15, LESSONS 31): one deleted
# and cloned again at the same path, then `git guard install`, is watched again, its
# trees too, and what a bypassing tool destroys there is saved.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

if ! "$PYTHON" -c 'import pygit2' 2>/dev/null; then
    skip_suite "pygit2 is not installed (Debian: python3-pygit2): skipping the identity suite"
fi

# A second guarded repository keeps the watcher running while the first is gone.
guarded_clone other
guarded_clone repo
TIP=$(unpushed "$REPO" before)
wait_known "$REPO" "$TIP"

section "rm -rf, a new clone at the same path, git guard install: watched again"
rm -rf "$REPO"
dropped() { ! grep -qx "repo=$REPO/.git" "$WATCH_STATE/status"; }
poll 30 dropped || fail "the watcher never noticed the repository was deleted"
# The watcher was holding the deleted tip when the files went: it must not make the
# repository's directories again, or the path stays taken and the clone below fails.
sleep 1
if [ -e "$REPO" ]; then
    fail "the watcher re-created the deleted repository's directories: $(find "$REPO" | tr '\n' ' ')"
    rm -rf "$REPO"
else
    pass "nothing of the deleted repository came back"
fi
git_real clone -q "$TEST_ROOT/repo.origin" "$REPO"
run_cmd "$GUARD" -C "$REPO" install --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "git guard install in the re-created repository failed ($ERR)"
run_cmd "$GUARD" watch --status
assert_contains "$OUT" "2 repositories" "the watcher does not watch the re-created repository"
TIP=$(unpushed "$REPO" after)
if poll 30 knows_tip "$REPO" "$TIP"; then
    pass "the watcher learned the re-created repository's tips"
else
    fail "the re-created repository is not watched: the watcher never learned its tip $TIP"
fi
"$PYTHON" -c 'import pygit2, sys; pygit2.Repository(sys.argv[1]).branches.delete("after")' "$REPO"
assert_saved "$REPO" after "$TIP" "a libgit2 delete in the re-created repository"

section "its linked trees are watched: env -i git worktree remove --force is saved"
tree_with_work tree
env -i "$REAL_GIT" -C "$REPO" worktree remove --force "$TEST_ROOT/tree"
assert_no_file "$TEST_ROOT/tree" "worktree remove left the tree"
if poll 30 saved_at "$REPO" tree "$HEAD_ID"; then
    pass "the re-created repository's removed tree is saved"
else
    fail "the removed tree's commit $HEAD_ID in the re-created repository was destroyed, not saved"
fi

section "doctor tells the truth: the watcher watches it"
run_cmd "$GUARD" -C "$REPO" doctor
assert_contains "$OUT" "ok    watcher: the watcher runs" "doctor does not say the watcher watches the re-created repository"

finish
