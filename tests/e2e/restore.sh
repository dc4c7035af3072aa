#!/usr/bin/env bash
# git guard restore (issue 9 item 1, DESIGN §13) on layout-2 saves built with plain git
# plumbing exactly per contract C1, layout-1 saves, commit-only saves of deleted branches,
# and the refusals that change nothing.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/restore_fixture.bash"
PATH=$GUARD_BIN_DIR:$PATH

R=$TEST_ROOT/repo
base_repo "$R"

section "round trip: every kind of change, back at the same path"
WT=$TEST_ROOT/wt
git_real -C "$R" worktree add -q -b feature "$WT"
work_tree_with_everything "$WT"
OWN=$(git_real -C "$WT" commit-tree -p HEAD -m "kept by refs/worktree/keep" "HEAD^{tree}")
git_real -C "$WT" update-ref refs/worktree/keep "$OWN"
snapshot_tree "$WT" "$TEST_ROOT/before"
REF=$(layout2_save "$WT" wt "worktree remove")
git_real -C "$R" worktree remove --force "$WT"
assert_no_file "$WT" "the tree is gone before the restore"
run_cmd git guard -C "$R" restore "$REF"
assert_eq 0 "$RC" "restore exits 0 ($ERR)"
snapshot_tree "$WT" "$TEST_ROOT/after"
assert_same_file "$TEST_ROOT/before" "$TEST_ROOT/after" \
    "the restored tree differs from the one removed (staged, unstaged, modes, links or untracked files lost)"
assert_eq "b staged" "$(git_real -C "$WT" show :b.txt)" "the staged half of b.txt was lost"
assert_eq "$(printf 'b staged\nthen edited')" "$(cat "$WT/b.txt")" "the unstaged half of b.txt was lost"
assert_contains "$(git_real -C "$WT" status --porcelain -uall)" "?? newdir/deeper/u.txt" "the untracked file is no longer untracked"
assert_eq "refs/heads/feature" "$(git_real -C "$WT" symbolic-ref HEAD)" "the branch is not checked out again"
assert_contains "$(git_real -C "$R" worktree list --porcelain)" "worktree $WT" "the tree is not a registered worktree"
assert_ref_exists "$R" "$REF" "the save went away with the restore"
assert_eq "$OWN" "$(git_real -C "$WT" rev-parse -q --verify refs/worktree/keep)" "the tree's own ref refs/worktree/keep was lost"

section "restore refuses an existing path, changing nothing"
LIST_BEFORE=$(git_real -C "$R" worktree list --porcelain)
run_cmd git guard -C "$R" restore "$REF"
assert_eq 1 "$RC" "restore onto an existing tree exits 1"
assert_contains "$ERR" "exists" "the refusal does not say the path exists"
snapshot_tree "$WT" "$TEST_ROOT/after2"
assert_same_file "$TEST_ROOT/before" "$TEST_ROOT/after2" "the refused restore changed the existing tree"
assert_eq "$LIST_BEFORE" "$(git_real -C "$R" worktree list --porcelain)" "the refused restore changed the worktree list"

section "restore at another path: the branch is checked out there already, so HEAD is detached"
run_cmd git guard -C "$R" restore "$REF" "$TEST_ROOT/elsewhere"
assert_eq 0 "$RC" "restore to a new path exits 0 ($ERR)"
assert_contains "$ERR" "checked out in another worktree" "it does not say why HEAD is detached"
assert_eq "$(git_real -C "$WT" rev-parse HEAD)" "$(git_real -C "$TEST_ROOT/elsewhere" rev-parse HEAD)" "HEAD differs"
assert_eq "$(git_real -C "$WT" diff --cached)" "$(git_real -C "$TEST_ROOT/elsewhere" diff --cached)" "the staged changes differ"
assert_eq "$(git_real -C "$WT" diff)" "$(git_real -C "$TEST_ROOT/elsewhere" diff)" "the unstaged changes differ"

section "--json says what was restored"
git_real -C "$R" worktree remove --force "$TEST_ROOT/elsewhere"
run_cmd git guard -C "$R" restore --json "$REF" "$TEST_ROOT/elsewhere"
assert_jq() { printf '%s' "$1" | jq -e "$2" >/dev/null 2>&1 && pass "$3" || fail "$3 (got $1)"; }
assert_jq "$OUT" ".ref == \"$REF\" and .kind == \"worktree\" and .path == \"$TEST_ROOT/elsewhere\" and .branch == null and .detached == true" \
    "restore --json lacks ref, kind, path, branch null or detached"

section "a save that no longer verifies is refused, changing nothing"
V=$TEST_ROOT/verify
git_real -C "$R" worktree add -q --detach "$V"
printf 'unique content 8c1f\n' >"$V/only-here.txt"
VREF=$(layout2_save "$V" verify "worktree remove")
git_real -C "$R" worktree remove --force "$V"
BLOB=$(git_real -C "$R" rev-parse "$VREF:only-here.txt")
rm -f "$R/.git/objects/${BLOB:0:2}/${BLOB:2}"
run_cmd git guard -C "$R" restore "$VREF"
assert_eq 1 "$RC" "restoring a damaged save exits 1"
assert_contains "$ERR" "no longer verifies" "the refusal does not say the save no longer verifies"
assert_no_file "$V" "a refused restore created the tree"
assert_not_contains "$(git_real -C "$R" worktree list --porcelain)" "$V" "a refused restore registered a worktree"

section "a nested repository in the tree comes back with its own index and files"
N=$TEST_ROOT/nest
git_real -C "$R" worktree add -q -b nestbranch "$N"
new_repo "$N/inner"
commit_file "$N/inner" x.txt "x1"
printf 'x2\n' >"$N/inner/x.txt"
printf 'staged in inner\n' >"$N/inner/s.txt" && git_real -C "$N/inner" add s.txt
printf 'untracked in inner\n' >"$N/inner/u.txt"
printf 'outer edit\n' >"$N/a.txt"
snapshot_tree "$N" "$TEST_ROOT/nest.before"
snapshot_tree "$N/inner" "$TEST_ROOT/inner.before"
NREF=$(NESTED_PATHS=inner layout2_save "$N" nest "worktree remove")
rm -rf "$N/inner" && git_real -C "$R" worktree remove --force "$N"
run_cmd git guard -C "$R" restore "$NREF"
assert_eq 0 "$RC" "restore with a nested repository exits 0 ($ERR)"
snapshot_tree "$N/inner" "$TEST_ROOT/inner.after"
assert_same_file "$TEST_ROOT/inner.before" "$TEST_ROOT/inner.after" "the nested repository's work was lost"
snapshot_tree "$N" "$TEST_ROOT/nest.after"
assert_same_file "$TEST_ROOT/nest.before" "$TEST_ROOT/nest.after" "the outer tree around the nested repository differs"

section "a layout-1 save: restored, saying what differs"
L=$TEST_ROOT/old
git_real -C "$R" worktree add -q -b oldbranch "$L"
printf 'old staged\n' >"$L/staged.txt" && git_real -C "$L" add staged.txt
printf 'old edit\n' >"$L/a.txt"
LHEAD=$(git_real -C "$L" rev-parse HEAD)
PRIV=$TEST_ROOT/l1.index
cp "$R/.git/worktrees/old/index" "$PRIV"
LTREE=$(cd "$L" && GIT_INDEX_FILE=$PRIV git_real add -A && GIT_INDEX_FILE=$PRIV git_real write-tree)
LCOMMIT=$(git_real -C "$R" commit-tree "$LTREE" -p "$LHEAD" -m "stranded: uncommitted work from $L (oldbranch)

Held 1 staged, 1 modified.

Stranded-From: $L
Stranded-Branch: oldbranch
Stranded-Head: $LHEAD
Stranded-Reason: remove")
git_real -C "$R" update-ref refs/heads/stranded/old/20240101T000000.000Z "$LCOMMIT"
journal_save "$R" refs/heads/stranded/old/20240101T000000.000Z
git_real -C "$R" worktree remove --force "$L"
run_cmd git guard -C "$R" restore stranded/old/20240101T000000.000Z
assert_eq 0 "$RC" "a layout-1 save restores ($ERR)"
assert_contains "$ERR" "records no index" "it does not say the index could not be restored exactly"
assert_eq "old edit" "$(cat "$L/a.txt")" "the layout-1 save's edit was lost"
assert_eq "old staged" "$(cat "$L/staged.txt")" "the layout-1 save's new file was lost"
assert_eq "refs/heads/oldbranch" "$(git_real -C "$L" symbolic-ref HEAD)" "the layout-1 branch is not checked out"

section "a deleted branch comes back at its tip; an existing branch of that name is refused"
git_real -C "$R" switch -q -c topic
commit_file "$R" topic.txt "topic work"
TIP=$(git_real -C "$R" rev-parse HEAD)
git_real -C "$R" switch -q main
git_real -C "$R" update-ref refs/heads/stranded/topic/20240101T000001.000Z "$TIP" ""
git_real -C "$R" branch -q -D topic
run_cmd git guard -C "$R" restore stranded/topic/20240101T000001.000Z
assert_eq 0 "$RC" "restoring a deleted branch exits 0 ($ERR)"
assert_eq "$TIP" "$(git_real -C "$R" rev-parse -q --verify refs/heads/topic)" "the deleted branch's commits were not restored"
git_real -C "$R" branch -f topic main
run_cmd git guard -C "$R" restore stranded/topic/20240101T000001.000Z
assert_eq 1 "$RC" "restoring over an existing branch exits 1"
assert_contains "$ERR" "exists" "the refusal does not say the branch exists"
assert_eq "$(git_real -C "$R" rev-parse main)" "$(git_real -C "$R" rev-parse topic)" "the refused restore moved the existing branch"

section "a tree saved on an unborn branch comes back unborn, with its index and files"
U=$TEST_ROOT/unborn
git_real -C "$R" worktree add -q --detach "$U"
git_real -C "$U" symbolic-ref HEAD refs/heads/fresh
git_real -C "$U" rm -q -r --cached . >/dev/null
printf 'first file\n' >"$U/first.txt" && git_real -C "$U" add first.txt
UITREE=$(git_real -C "$U" write-tree)
UI=$(git_real -C "$U" commit-tree "$UITREE" -m "index")
UPRIV=$TEST_ROOT/unborn.index
cp "$R/.git/worktrees/unborn/index" "$UPRIV"
USTREE=$(cd "$U" && GIT_INDEX_FILE=$UPRIV git_real add -A && GIT_INDEX_FILE=$UPRIV git_real write-tree)
snapshot_unborn() { { git_real -C "$U" symbolic-ref HEAD; git_real -C "$U" status --porcelain=v2 -uall; git_real -C "$U" ls-files -s; }; }
UBEFORE=$(snapshot_unborn)
USAVE=$(git_real -C "$R" commit-tree "$USTREE" -p "$UI" -m "stranded: uncommitted work from $U (fresh)

Stranded-Layout: 2
Stranded-Index: $UI
Stranded-From: $U
Stranded-Branch: fresh
Stranded-Head: unborn
Stranded-Reason: worktree remove")
git_real -C "$R" update-ref refs/heads/stranded/unborn/20240101T000002.000Z "$USAVE"
journal_save "$R" refs/heads/stranded/unborn/20240101T000002.000Z
git_real -C "$R" worktree remove --force "$U"
run_cmd git guard -C "$R" restore stranded/unborn/20240101T000002.000Z
assert_eq 0 "$RC" "a save on an unborn branch restores ($ERR)"
assert_eq "$UBEFORE" "$(snapshot_unborn)" "the unborn tree's branch, index or files differ after the restore"

section "under install --lock-worktrees, a restored tree is locked like every new one"
git_real -C "$R" config guard.lockWorktrees true
run_cmd git guard -C "$R" restore "$REF" "$TEST_ROOT/locked"
assert_eq 0 "$RC" "restore with guard.lockWorktrees exits 0 ($ERR)"
assert_contains "$(git_real -C "$R" worktree list --porcelain)" "locked git-guard" "the restored tree is not locked"
git_real -C "$R" config --unset guard.lockWorktrees

section "the journal records each restore"
run_cmd git guard -C "$R" log --json
assert_eq 8 "$(printf '%s\n' "$OUT" | jq -r 'select(.kind == "restore") | .ref' | wc -l)" "a restore is missing from the journal"

finish
