#!/usr/bin/env bash
# Bounded growth per tree name (issue 38 item 11): what the watcher keeps of a tree in
# <common>/guard/watch/ (its index copy, its snapshot index and state) goes with the tree,
# whether the guard removed it or rm -rf and a prune by a git with hooks off did; and its
# memory of the tree goes too, so a tree made again with the same name is watched anew.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

git_real config --global guard.snapshotInterval 1
guarded_clone repo
KEPT=$REPO/.git/guard/watch

# snapshotted NAME CONTENT: some snapshot of tree NAME holds w.txt with CONTENT.
snapshotted() {
    local commit
    for commit in $("$GUARD" -C "$REPO" list --all --json |
        jq -r --arg p "refs/stranded/$1/" 'select(.ref | startswith($p)) | .commit'); do
        [ "$(git_real -C "$REPO" cat-file -p "$commit:w.txt" 2>/dev/null)" = "$2" ] && return 0
    done
    return 1
}
# leftovers: the files guard/watch/ still keeps of the trees gone-1 to gone-5.
leftovers() {
    ls "$KEPT" | grep -E '^(snapshot-index|snapshot-state|index)-gone-[0-9]+$' | tr '\n' ' '
}

section "five uniquely named trees, each snapshotted"
for i in 1 2 3 4 5; do
    git_real -C "$REPO" worktree add -q -b "gone$i" "$TEST_ROOT/gone-$i" main
    echo "work $i" >"$TEST_ROOT/gone-$i/w.txt"
done
for i in 1 2 3 4 5; do
    poll 60 snapshotted "gone-$i" "work $i" || fail "tree gone-$i was never snapshotted (nothing below is tested)"
done
assert_eq "5 5 5" "$(ls "$KEPT" | grep -cE '^snapshot-index-gone-') $(ls "$KEPT" | grep -cE '^snapshot-state-gone-') $(ls "$KEPT" | grep -cE '^index-gone-')" \
    "the watcher does not keep a snapshot index, a snapshot state and an index copy per tree (the names below are wrong)"

section "four removed through the guard, one by rm -rf and a prune with hooks off: nothing of them stays"
shim_on "$TEST_ROOT/shim"
for i in 1 2 3 4; do
    run_cmd git -C "$REPO" worktree remove --force "$TEST_ROOT/gone-$i"
    assert_eq 0 "$RC" "the guarded worktree remove --force of gone-$i failed: $ERR"
done
shim_off
rm -rf "$TEST_ROOT/gone-5"
git_real -c core.hooksPath=/dev/null -C "$REPO" worktree prune
assert_no_file "$REPO/.git/worktrees/gone-5" "git did not prune gone-5's admin entry"
none_left() { [ -z "$(leftovers)" ]; }
poll 30 none_left && pass "guard/watch/ keeps nothing of the five removed trees" ||
    fail "guard/watch/ still keeps $(leftovers)of removed trees: it grows with every tree name ever seen"

section "a tree made again with a removed one's name and path is watched anew"
git_real -C "$REPO" worktree add -q --detach "$TEST_ROOT/gone-1" main
echo "first" >"$TEST_ROOT/gone-1/w.txt"
poll 60 snapshotted gone-1 first || fail "the tree made again as gone-1 was never snapshotted (nothing below is tested)"
echo "again" >"$TEST_ROOT/gone-1/w.txt" # seen only through a watch of its directory
poll 60 snapshotted gone-1 again && pass "an edit in the new gone-1 is snapshotted" ||
    fail "the edit in the tree made again as gone-1 was never snapshotted: the watcher kept the old tree's walk, so rm -rf would lose w.txt"

finish
