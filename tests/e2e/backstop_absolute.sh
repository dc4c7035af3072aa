#!/usr/bin/env bash
# The backstop against git called by absolute path with a bare environment (`env -i`, as
# cron, sudo and services call it): no shim runs, and with hooks off no hook either. The
# watcher saves the branch's commits and a removed tree's detached commit and index.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

guarded_clone repo

# bare GIT ARGS...: git by absolute path in an empty environment, as a service runs it.
bare() {
    env -i "$REAL_GIT" "$@"
}

section "env -i git -c core.hooksPath=/dev/null branch -D: the unpushed commit is saved"
TIP=$(unpushed "$REPO" abs-branch)
wait_known "$REPO" "$TIP"
bare -C "$REPO" -c core.hooksPath=/dev/null branch -q -D abs-branch
assert_no_ref "$REPO" refs/heads/abs-branch "git did not delete the branch"
assert_saved "$REPO" abs-branch "$TIP" "branch -D with hooks off"

section "env -i git worktree remove --force: the detached commit and the staged file are saved"
tree_with_work abs-tree
bare -C "$REPO" worktree remove --force "$TEST_ROOT/abs-tree"
assert_no_file "$TEST_ROOT/abs-tree" "git did not remove the tree"
if poll 30 saved_at "$REPO" abs-tree "$HEAD_ID"; then
    pass "worktree remove: the detached commit is saved"
    REF=$(save_of "$REPO" abs-tree)
    assert_eq "$STAGED" "$(git_real -C "$REPO" rev-parse "$REF:staged.txt" 2>/dev/null)" \
        "worktree remove: the staged file was destroyed, not saved"
    run_cmd "$GUARD" -C "$REPO" list
    assert_contains "$OUT" "vanished (no git hook ran)" "git guard list names the watcher as the source"
else
    fail "worktree remove: the detached commit $HEAD_ID was destroyed, not saved"
fi

section "what the hook saved is not saved again"
TIP=$(unpushed "$REPO" abs-hooked)
wait_known "$REPO" "$TIP"
bare -C "$REPO" branch -q -D abs-hooked 2>/dev/null
read_past "$REPO" abs-mark bare -C "$REPO" -c core.hooksPath=/dev/null branch -q -D abs-mark
assert_eq 1 "$(saves "$REPO" abs-hooked)" "the hook's save was missing or made twice"

section "git guard discard lets a branch go: the watcher does not save it"
TIP=$(unpushed "$REPO" abs-discard)
wait_known "$REPO" "$TIP"
run_cmd "$GUARD" -C "$REPO" discard abs-discard
assert_eq 0 "$RC" "discard failed: $ERR"
read_past "$REPO" abs-mark2 bare -C "$REPO" -c core.hooksPath=/dev/null branch -q -D abs-mark2
assert_eq 0 "$(saves "$REPO" abs-discard)" "a discarded branch was saved by the watcher"

finish
