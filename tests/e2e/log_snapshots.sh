#!/usr/bin/env bash
# `git guard log` shows the destructive events, not the watcher's periodic snapshots
# (issue 36): a tree snapshotted by the running watcher, then a branch deletion. Without
# --snapshots the log has the deletion's save and no snapshot, and says how many it left
# out; with --snapshots it has both; --json marks each record's class (and op).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

guarded_clone repo
git_real -C "$REPO" config guard.snapshotInterval 1
TREE=$TEST_ROOT/agent-tree

# snapshot_logged: the journal records a snapshot of the tree.
snapshot_logged() {
    "$GUARD" -C "$REPO" log --snapshots --json 2>/dev/null | grep -q '"reason":"snapshot"'
}

section "the watcher snapshots a changed tree; a branch with an unpushed commit is deleted"
git_real -C "$REPO" worktree add -q -b agent "$TREE" main
echo edited >"$TREE/a.txt"
poll 60 snapshot_logged || fail "the watcher never journaled a snapshot (the test proves nothing without one)"
git_real -C "$REPO" branch gone main
commit_file "$REPO" gone.txt "unpushed" >/dev/null
git_real -C "$REPO" branch -f gone HEAD
git_real -C "$REPO" reset -q --soft HEAD~1
run_cmd git_real -C "$REPO" branch -D gone
assert_eq 0 "$RC" "branch -D exits 0: $ERR"

section "git guard log: the deletion's save, no snapshot, and a count of those left out"
run_cmd "$GUARD" -C "$REPO" log
assert_eq 0 "$RC" "git guard log exits 0"
assert_contains "$OUT" "branch gone" "git guard log lacks the deletion's save: $OUT"
assert_not_contains "$(grep -v '^(' <<<"$OUT")" "snapshot" "git guard log lists a snapshot without --snapshots: $OUT"
assert_contains "$OUT" "snapshot(s) not shown: git guard log --snapshots" "git guard log does not say it left snapshots out"

section "git guard log --snapshots: both"
run_cmd "$GUARD" -C "$REPO" log --snapshots
assert_contains "$OUT" "branch gone" "git guard log --snapshots lacks the deletion's save"
assert_contains "$OUT" "snapshot" "git guard log --snapshots lacks the snapshot"

section "--json: each record's class and op"
run_cmd "$GUARD" -C "$REPO" log --snapshots --json
assert_eq "" "$(jq -c 'select(.reason == "snapshot" and .class != "snapshot")' <<<"$OUT")" "a snapshot is not of class snapshot"
assert_eq "destructive" "$(jq -r 'select(.branch == "gone" and .kind == "save") | .class' <<<"$OUT")" \
    "the deletion's save is not of class destructive"
assert_ne "" "$(jq -r 'select(.branch == "gone" and .kind == "save") | .op // empty' <<<"$OUT")" "the deletion's save has no op"
run_cmd "$GUARD" -C "$REPO" log --json
assert_eq "" "$(jq -c 'select(.class == "snapshot")' <<<"$OUT")" "git guard log --json without --snapshots prints a snapshot"

finish
