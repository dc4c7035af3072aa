#!/usr/bin/env bash
# The backstop's time layer (DESIGN §15): a live tree is snapshotted when it changed, so an
# orchestrator's `rm -rf <tree>` loses at most what changed since the last snapshot; the
# snapshot restores with its staged and untracked files. Then the admin entry's prune by a
# git with hooks off saves what the entry still held.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

guarded_clone repo
git_real -C "$REPO" config guard.snapshotInterval 1
TREE=$TEST_ROOT/agent-tree

# snapshot_commits REPO NAME: the commit of each snapshot of tree NAME, oldest first (their handles end in a UTC stamp), as
# `git guard list` takes them (a snapshot is a link on its tree's chain, not a ref).
snapshot_commits() {
    "$GUARD" -C "$1" list --all --json 2>/dev/null |
        jq -rs --arg p "refs/stranded/$2/" 'map(select(.ref | startswith($p))) | sort_by(.ref) | .[].commit'
}
# newest_snapshot REPO NAME: the handle of the newest snapshot of tree NAME.
newest_snapshot() {
    "$GUARD" -C "$1" list --all --json 2>/dev/null |
        jq -rs --arg p "refs/stranded/$2/" 'map(select(.ref | startswith($p))) | sort_by(.ref) | last | .ref // ""'
}
# snapshot_with REPO NAME PATH CONTENT: some snapshot of tree NAME holds PATH with CONTENT.
snapshot_with() {
    local commit
    for commit in $(snapshot_commits "$1" "$2"); do
        [ "$(git_real -C "$1" cat-file -p "$commit:$3" 2>/dev/null)" = "$4" ] && return 0
    done
    return 1
}
snapshots() {
    snapshot_commits "$1" "$2" | wc -l | tr -d ' '
}
# save_refs REPO: how many refs hold in-place saves and snapshots (chains included).
save_refs() {
    git_real -C "$1" for-each-ref --format='%(refname)' refs/stranded/ | wc -l | tr -d ' '
}

section "a changed tree is snapshotted: edits, staged and untracked files"
git_real -C "$REPO" worktree add -q -b agent "$TREE" main
echo edited >"$TREE/a.txt"
echo staged >"$TREE/s.txt"
git_real -C "$TREE" add s.txt
echo untracked >"$TREE/u.txt"
if poll 60 snapshot_with "$REPO" agent-tree u.txt untracked; then
    pass "the snapshot holds the untracked file"
else
    fail "no snapshot of the tree was taken: its untracked file would be lost to rm -rf"
fi
LAST=$(snapshot_commits "$REPO" agent-tree | tail -n 1)
assert_eq edited "$(git_real -C "$REPO" cat-file -p "$LAST:a.txt" 2>/dev/null)" "the snapshot lost the edit of a tracked file"

section "a second change makes a second snapshot; an unchanged tree makes none"
echo more >"$TREE/u2.txt"
poll 60 snapshot_with "$REPO" agent-tree u2.txt more || fail "the second change was never snapshotted"
N=$(snapshots "$REPO" agent-tree)
REFS=$(save_refs "$REPO")
echo again >"$TREE/u3.txt"
poll 60 snapshot_with "$REPO" agent-tree u3.txt again || fail "the third change was never snapshotted"
assert_eq $((N + 1)) "$(snapshots "$REPO" agent-tree)" "an unchanged tree was snapshotted again"
assert_eq "$REFS" "$(save_refs "$REPO")" "a snapshot added a ref: the refs grow with the snapshots (one chain per tree)"

section "git guard list shows a tree's snapshots as one line with a count; restore takes any of them"
N=$(snapshots "$REPO" agent-tree)
for args in "" "--all"; do
    run_cmd "$GUARD" -C "$REPO" list $args
    assert_contains "$OUT" "snapshots of $TREE: $N, newest " "list $args does not show the tree's $N snapshots as one line with their count"
    assert_not_contains "$OUT" "refs/stranded/agent-tree/" "list $args shows the tree's snapshots one by one (one line per snapshot: hundreds a day)"
done
run_cmd "$GUARD" -C "$REPO" list --snapshots "$TREE"
assert_eq "$N" "$(grep -c '^refs/stranded/agent-tree/' <<<"$OUT")" "list --snapshots does not list every snapshot of the tree"
# An older snapshot: the first that holds u.txt and not yet u2.txt (not the newest).
OLDEST=
while read -r ref commit _; do
    if [ "$(git_real -C "$REPO" cat-file -p "$commit:u.txt" 2>/dev/null)" = untracked ] &&
        ! git_real -C "$REPO" cat-file -e "$commit:u2.txt" 2>/dev/null; then
        OLDEST=$ref
        break
    fi
done < <(grep '^refs/stranded/agent-tree/' <<<"$OUT" | sort)
run_cmd "$GUARD" -C "$REPO" restore "$OLDEST" "$TEST_ROOT/oldest"
assert_eq 0 "$RC" "restoring the older snapshot $OLDEST failed: $ERR"
assert_eq untracked "$(cat "$TEST_ROOT/oldest/u.txt" 2>/dev/null)" "the older snapshot's untracked file was destroyed, not restored"
assert_no_file "$TEST_ROOT/oldest/u2.txt" "restore of an older snapshot brought a later one's file"
rm -rf "$TEST_ROOT/oldest"
git_real -C "$REPO" worktree prune

section "rm -rf of the tree: its last snapshot restores"
rm -rf "$TREE"
REF=$(newest_snapshot "$REPO" agent-tree)
run_cmd "$GUARD" -C "$REPO" restore "$REF" "$TEST_ROOT/restored"
assert_eq 0 "$RC" "restoring the snapshot failed: $ERR"
assert_eq untracked "$(cat "$TEST_ROOT/restored/u.txt" 2>/dev/null)" "the untracked file was destroyed by rm -rf, not restored"
assert_eq edited "$(cat "$TEST_ROOT/restored/a.txt" 2>/dev/null)" "the edit was destroyed by rm -rf, not restored"
assert_eq staged "$(git_real -C "$TEST_ROOT/restored" show :s.txt 2>/dev/null)" "the staged file was not restored as staged"

section "prune by env -i git after rm -rf: the admin entry's staged state is saved"
git_real -C "$REPO" worktree add -q --detach "$TEST_ROOT/second" main
echo staged2 >"$TEST_ROOT/second/t.txt"
git_real -C "$TEST_ROOT/second" add t.txt
HEAD_ID=$(git_real -C "$REPO" rev-parse main)
poll 30 index_copy_has "$REPO" second t.txt || fail "the watcher kept no copy of the tree's index"
rm -rf "$TEST_ROOT/second"
env -i "$REAL_GIT" -C "$REPO" worktree prune
assert_no_file "$REPO/.git/worktrees/second" "git did not prune the admin entry"
if poll 30 saved_at "$REPO" second "$HEAD_ID"; then
    REF=$(save_of "$REPO" second)
    assert_eq staged2 "$(git_real -C "$REPO" cat-file -p "$REF:t.txt" 2>/dev/null)" "the staged file of a pruned tree was destroyed, not saved"
else
    fail "the pruned tree's staged file was destroyed, not saved (no stranded/second/)"
fi

section "snapshots honour guard.exclude, as every other save does"
git_real -C "$REPO" config --add guard.exclude scratch/
git_real -C "$REPO" config --add guard.exclude a.txt
git_real -C "$REPO" worktree add -q --detach "$TEST_ROOT/excl" main
mkdir "$TEST_ROOT/excl/scratch"
echo junk >"$TEST_ROOT/excl/scratch/tmp.txt"
echo "excluded edit" >"$TEST_ROOT/excl/a.txt"
echo kept >"$TEST_ROOT/excl/keep.txt"
poll 60 snapshot_with "$REPO" excl keep.txt kept || fail "the tree with excluded paths was never snapshotted: keep.txt would be lost to rm -rf"
LAST=$(snapshot_commits "$REPO" excl | tail -n 1)
assert_eq "" "$(git_real -C "$REPO" ls-tree --name-only "$LAST" scratch/ 2>/dev/null)" \
    "a snapshot saved scratch/, which guard.exclude says is never saved"
assert_eq a "$(git_real -C "$REPO" cat-file -p "$LAST:a.txt" 2>/dev/null)" \
    "a snapshot saved the edit of a.txt, which guard.exclude says is never saved (it must stay as HEAD has it)"
git_real -C "$REPO" config --unset-all guard.exclude

section "guard.snapshotInterval=0 turns snapshots off"
git_real -C "$REPO" config guard.snapshotInterval 0
git_real -C "$REPO" worktree add -q --detach "$TEST_ROOT/quiet" main
echo x >"$TEST_ROOT/quiet/x.txt"
read_past "$REPO" quiet-mark git_real -C "$REPO" -c core.hooksPath=/dev/null branch -q -D quiet-mark
assert_eq 0 "$(snapshots "$REPO" quiet)" "a tree was snapshotted with guard.snapshotInterval=0"

finish
