#!/usr/bin/env bash
# Worktree removals at the edges (issue 16, items 4, 6, 7, 9), with the shim first on PATH
# and the real git: a tree named with a newline (pruned when gone, removed with --force),
# the staged work of a tree deleted with rm -rf before a prune, `worktree add -f` over a
# registered tree whose directory is gone, and `worktree remove -f` of a tree whose index
# names a blob that is missing (git's t1450). Each is saved first; git then does what it
# does without the guard, with its own exit code.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# stranded REPO: the stranded branches, one a line.
stranded() {
    git_real -C "$1" for-each-ref --format='%(refname)' refs/heads/stranded/
}

# held_by_save REPO OBJECT: the stranded branches from which OBJECT (commit or blob) is
# reachable, one a line.
held_by_save() {
    local ref
    for ref in $(stranded "$1"); do
        if git_real -C "$1" rev-list --objects "$ref" | grep "^$2" >/dev/null; then
            echo "$ref"
        fi
    done
}

# guarded_repo PATH: a guarded repository (guard.enabled and the hook) with one commit.
guarded_repo() {
    new_repo "$1"
    git_real -C "$1" config guard.enabled true
    install_hook "$1"
}

# detached_tree REPO TREE: a guarded REPO whose linked TREE, on a detached HEAD, holds a
# commit no ref holds; sets $commit to it.
detached_tree() {
    guarded_repo "$1"
    git_real -C "$1" worktree add -q --detach "$2"
    commit_file "$2" lost.txt "only in $(basename "$2")" "work of the tree"
    commit=$(git_real -C "$2" rev-parse HEAD)
}

shim_on
nl='
'

section "worktree prune of a gone tree named with a newline saves that tree"
repo=$TEST_ROOT/nlprune
tree="$TEST_ROOT/wt${nl}name"
detached_tree "$repo" "$tree"
rm -rf "$tree"
run_cmd git -C "$repo" worktree prune
assert_eq 0 "$RC" "prune exits 0 as git does: $ERR"
assert_ne "" "$(held_by_save "$repo" "$commit")" \
    "the detached commit of the pruned tree named with a newline was lost, not saved"
for ref in $(stranded "$repo"); do
    assert_ne "$repo" "$(git_real -C "$repo" log -1 --format=%B "$ref" | sed -n 's/^Stranded-From: //p')" \
        "the save names the main tree, not the pruned one ($ref)"
done
assert_eq "" "$(ls "$repo/.git/worktrees" 2>/dev/null)" "git pruned the newline tree's admin entry"

section "worktree remove --force of a tree named with a newline exits 0, its work saved"
repo=$TEST_ROOT/nlremove
guarded_repo "$repo"
tree="$TEST_ROOT/rm${nl}tree"
git_real -C "$repo" worktree add -q --detach "$tree"
printf 'untracked in the newline tree\n' >"$tree/u.txt"
run_cmd git -C "$repo" worktree remove --force "$tree"
assert_eq 0 "$RC" "remove --force of the newline tree exits 0 as git does: $ERR"
assert_no_file "$tree" "git removed the newline tree"
blob=$(printf 'untracked in the newline tree\n' | git_real hash-object --stdin)
assert_ne "" "$(held_by_save "$repo" "$blob")" \
    "the untracked file of the newline tree was destroyed, not saved"

section "rm -rf of a tree, then worktree prune, saves what its index had staged"
repo=$TEST_ROOT/staged
detached_tree "$repo" "$repo.wt"
printf 'staged only, never committed\n' >"$repo.wt/staged.txt"
git_real -C "$repo.wt" add staged.txt
blob=$(git_real -C "$repo.wt" rev-parse :staged.txt)
rm -rf "$repo.wt"
run_cmd git -C "$repo" worktree prune
assert_eq 0 "$RC" "prune exits 0: $ERR"
assert_ne "" "$(held_by_save "$repo" "$commit")" "the deleted tree's detached commit was lost, not saved"
assert_ne "" "$(held_by_save "$repo" "$blob")" \
    "the file staged in the deleted tree (its admin index) was lost, not saved"
ref=$(held_by_save "$repo" "$blob" | head -n1)
assert_eq "staged only, never committed" "$(git_real -C "$repo" show "${ref:-none}:staged.txt" 2>&1)" \
    "the save holds the staged file at its path"

section "worktree add -f over a registered tree whose directory is gone saves it first"
repo=$TEST_ROOT/addforce
detached_tree "$repo" "$repo.wt"
rm -rf "$repo.wt"
run_cmd git -C "$repo" worktree add -f --detach "$repo.wt" main
assert_eq 0 "$RC" "worktree add -f exits 0 as git does: $ERR"
assert_file_exists "$repo.wt/README" "git made the new tree"
assert_ne "" "$(held_by_save "$repo" "$commit")" \
    "the detached commit of the registered tree that add -f replaced was lost, not saved"

section "worktree add without -f over a gone registered tree: git refuses, nothing saved"
repo=$TEST_ROOT/addplain
guarded_repo "$repo"
git_real -C "$repo" worktree add -q --detach "$repo.wt"
rm -rf "$repo.wt"
run_cmd git -C "$repo" worktree add --detach "$repo.wt" main
assert_eq 128 "$RC" "git refuses the registered path without -f"
assert_eq "" "$(stranded "$repo")" "no save when git refuses and destroys nothing"

section "worktree prune of an entry the main tree now stands at (t2401 duplicate entry)"
repo=$TEST_ROOT/dup
guarded_repo "$repo"
git_real -C "$repo" worktree add -q --detach "$TEST_ROOT/dupwt"
rm -rf "$TEST_ROOT/dupwt"
mv "$repo" "$TEST_ROOT/dupwt"
run_cmd git -C "$TEST_ROOT/dupwt" worktree prune --verbose
assert_eq 0 "$RC" "prune of a duplicate entry exits 0 as git does: $ERR"
assert_contains "$ERR" "duplicate entry" "git says why it prunes the entry"
assert_no_file "$TEST_ROOT/dupwt/.git/worktrees/dupwt" "git pruned the duplicate entry"

section "worktree remove -f of a tree whose index names a missing blob (t1450)"
repo=$TEST_ROOT/missing
guarded_repo "$repo"
git_real -C "$repo" worktree add -q "$repo.wt"
echo "this will be removed to break the worktree index" >"$repo.wt/file"
git_real -C "$repo.wt" add file
blob=$(git_real -C "$repo.wt" rev-parse :file)
rm -f "$repo/.git/objects/$(printf %s "$blob" | cut -c1-2)/$(printf %s "$blob" | cut -c3-)"
printf 'untracked beside it\n' >"$repo.wt/u.txt"
run_cmd git -C "$repo" worktree remove -f "$repo.wt"
assert_eq 0 "$RC" "remove -f exits 0 as git does, not refused: $ERR"
assert_no_file "$repo.wt" "git removed the tree"
assert_ne "" "$(held_by_save "$repo" "$(printf 'untracked beside it\n' | git_real hash-object --stdin)")" \
    "the untracked file of the tree with a broken index was destroyed, not saved"
assert_ne "" "$(held_by_save "$repo" "$blob")" \
    "the file on disk whose blob the index lost was destroyed, not saved"

finish
