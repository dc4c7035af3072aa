#!/usr/bin/env bash
# git guard install --lock-worktrees: every worktree is locked with the reason
# "git-guard", so a removal that bypasses the shim is refused by git itself, while the
# shim saves, lifts only its own lock and removes. Users' own locks are never touched.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/install_fixtures.bash"

# lock_reason TREE: the reason git records for TREE's lock, or "unlocked".
lock_reason() {
    local file
    file=$(git_real -C "$1" rev-parse --git-dir)/locked
    if [ -f "$file" ]; then cat "$file"; else echo unlocked; fi
}

repo=$TEST_ROOT/repo
new_repo "$repo"
write_hook "$repo/.git/hooks/post-checkout" '#!/bin/sh
echo "user post-checkout $*" >>"$HOME/post-checkout.log"'
git_real -C "$repo" worktree add -q "$TEST_ROOT/old" -b old
git_real -C "$repo" worktree add -q "$TEST_ROOT/mine" -b mine
git_real -C "$repo" worktree lock --reason "my own reason" "$TEST_ROOT/mine"

section "install --lock-worktrees"
run_cmd "$GUARD" -C "$repo" install --lock-worktrees --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "install --lock-worktrees succeeds: $ERR"
assert_eq true "$(git_real -C "$repo" config guard.lockWorktrees)" "install records guard.lockWorktrees for the shim"
assert_eq git-guard "$(lock_reason "$TEST_ROOT/old")" "an existing unlocked worktree is locked"
assert_eq "my own reason" "$(lock_reason "$TEST_ROOT/mine")" "the user's own lock is untouched"

section "a new worktree is locked by the post-checkout hook"
: >"$HOME/post-checkout.log"
git_real -C "$repo" worktree add -q "$TEST_ROOT/T" -b T
assert_eq git-guard "$(lock_reason "$TEST_ROOT/T")" "git worktree add locks the new tree"
assert_contains "$(cat "$HOME/post-checkout.log")" "user post-checkout" "the user's post-checkout hook still runs"
git_real -C "$repo" worktree add -q --lock "$TEST_ROOT/own-lock" -b own-lock
assert_eq "added with --lock" "$(lock_reason "$TEST_ROOT/own-lock")" "'worktree add --lock' keeps the user's own lock"
git_real -C "$TEST_ROOT/T" checkout -q -b T2
assert_eq git-guard "$(lock_reason "$TEST_ROOT/T")" "an ordinary checkout leaves the lock alone"

section "a removal that bypasses the shim is refused by git"
echo "unsaved work" >"$TEST_ROOT/T/notes.txt"
run_cmd "$REAL_GIT" -C "$repo" worktree remove --force "$TEST_ROOT/T"
assert_ne 0 "$RC" "$REAL_GIT worktree remove --force refuses a locked tree"
assert_file_exists "$TEST_ROOT/T/notes.txt" "the untracked work in T survived the bypassing removal"
run_cmd "$REAL_GIT" -C "$repo" worktree remove --force "$TEST_ROOT/mine"
assert_ne 0 "$RC" "a user's lock refuses a bypassing removal too"

section "through the shim: save, lift our lock, remove"
shim_on "$TEST_ROOT/shim"
run_cmd git -C "$repo" worktree remove --force "$TEST_ROOT/T"
assert_eq 0 "$RC" "the shim removes the tree git-guard locked: $ERR"
assert_no_file "$TEST_ROOT/T" "the tree is gone"
ref=$(git_real -C "$repo" for-each-ref --format='%(refname)' 'refs/heads/stranded/T/')
assert_ne "" "$ref" "the removal saved T's work to a stranded/T branch"
assert_eq "unsaved work" "$(git_real -C "$repo" show "$ref:notes.txt" 2>&1)" \
    "the untracked file was saved, not destroyed"
run_cmd git -C "$repo" worktree remove --force "$TEST_ROOT/mine"
assert_ne 0 "$RC" "through the shim, a user's lock is still respected"
assert_file_exists "$TEST_ROOT/mine/README" "the user-locked tree is intact"
run_cmd git -C "$repo" worktree add -q --no-checkout "$TEST_ROOT/bare-add" -b bare-add
assert_eq git-guard "$(lock_reason "$TEST_ROOT/bare-add")" "the shim locks a 'worktree add --no-checkout' tree (no hook runs there)"
shim_off

section "uninstall lifts only git-guard's locks"
run_cmd "$GUARD" -C "$repo" uninstall
assert_eq 0 "$RC" "uninstall succeeds: $ERR"
assert_eq unlocked "$(lock_reason "$TEST_ROOT/old")" "the lock install set is lifted"
assert_eq unlocked "$(lock_reason "$TEST_ROOT/bare-add")" "a lock the shim set is lifted"
assert_eq "my own reason" "$(lock_reason "$TEST_ROOT/mine")" "the user's own lock stays"
assert_eq "added with --lock" "$(lock_reason "$TEST_ROOT/own-lock")" "the user's 'add --lock' stays"
assert_contains "$(cat "$repo/.git/hooks/post-checkout")" "user post-checkout" "the user's post-checkout hook is back"
assert_eq "" "$(git_real -C "$repo" config --get-regexp '^guard\.')" "no guard.* key is left"

finish
