#!/usr/bin/env bash
# The round trip of issue 9 with the real product end to end: a tree holding every kind of
# change (and one holding a nested repository) is removed with `git worktree remove --force`
# through the shim, then `git guard restore <ref>` puts it back at the same path; the result
# is identical in status --porcelain=v2, diff, diff --cached, HEAD, the branch, and every
# file's bytes and mode. It needs the engine's layout-2 saves (contract C1): while the save
# made by the product has no `Stranded-Layout: 2` trailer, the suite says SKIP.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/restore_fixture.bash"
export GIT_GUARD_REAL_GIT=$REAL_GIT
PATH=$GUARD_BIN_DIR:$PATH

R=$TEST_ROOT/repo
new_repo "$R"
base_files "$R"
git_real -C "$R" config guard.enabled true
install_hook "$R"
shim_on
PATH=$SHIM_DIR:$GUARD_BIN_DIR:$BASE_PATH

# save_of TREE_NAME: the save the removal of TREE_NAME made.
save_of() {
    git_real -C "$R" for-each-ref --format='%(refname)' "refs/heads/stranded/$1/"
}

section "every kind of change, removed through the shim and restored"
WT=$TEST_ROOT/wt
git_real -C "$R" worktree add -q -b feature "$WT"
work_tree_with_everything "$WT"
snapshot_tree "$WT" "$TEST_ROOT/before"
run_cmd git -C "$R" worktree remove --force "$WT"
assert_eq 0 "$RC" "worktree remove --force through the shim exits 0 ($ERR)"
REF=$(save_of wt)
if [ -z "$REF" ] || ! git_real -C "$R" log -1 --format='%(trailers:key=Stranded-Layout,valueonly)' "$REF" | grep -qx 2; then
    skip "needs layout-2 saves from the engine (the save ${REF:-<none>} has no Stranded-Layout: 2 trailer)"
fi
run_cmd git guard -C "$R" restore "$REF"
assert_eq 0 "$RC" "restore exits 0 ($ERR)"
snapshot_tree "$WT" "$TEST_ROOT/after"
assert_same_file "$TEST_ROOT/before" "$TEST_ROOT/after" \
    "the restored tree differs from the one removed (staged, unstaged, modes, links or untracked files lost)"
assert_eq "b staged" "$(git_real -C "$WT" show :b.txt 2>&1)" "the staged half of b.txt was lost"

section "a tree holding a nested repository, removed through the shim and restored"
N=$TEST_ROOT/nest
git_real -C "$R" worktree add -q -b nestbranch "$N"
new_repo "$N/inner"
commit_file "$N/inner" x.txt "x1"
printf 'x2\n' >"$N/inner/x.txt"
printf 'staged in inner\n' >"$N/inner/s.txt" && git_real -C "$N/inner" add s.txt
printf 'outer edit\n' >"$N/a.txt"
snapshot_tree "$N" "$TEST_ROOT/nest.before"
snapshot_tree "$N/inner" "$TEST_ROOT/inner.before"
run_cmd git -C "$R" worktree remove --force "$N"
assert_eq 0 "$RC" "removing the tree with a nested repository exits 0 ($ERR)"
rm -rf "$N" # git keeps a tree with a nested repository; the save holds it either way
run_cmd git guard -C "$R" restore "$(save_of nest)"
assert_eq 0 "$RC" "restore with a nested repository exits 0 ($ERR)"
snapshot_tree "$N" "$TEST_ROOT/nest.after"
snapshot_tree "$N/inner" "$TEST_ROOT/inner.after"
assert_same_file "$TEST_ROOT/nest.before" "$TEST_ROOT/nest.after" "the outer tree differs after the round trip"
assert_same_file "$TEST_ROOT/inner.before" "$TEST_ROOT/inner.after" "the nested repository's work was lost in the round trip"

finish
