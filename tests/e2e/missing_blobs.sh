#!/usr/bin/env bash
# A save never names an object the store lacks (issue 37 item 1). git's t3600 stages entries
# at a made-up id (`update-index --index-info` takes any); a guarded destroyer then saved
# trees naming them, and from then on `git gc`, `repack -a -d` and `fsck` failed for as long
# as the save lived. git's own write-tree refuses such an index: the save leaves those
# entries out, names them (Stranded-Unsaved, `git guard show`), and keeps the rest.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

make_clone repo
REPO=$TEST_ROOT/repo
git_real -C "$REPO" config guard.enabled true
install_hook "$REPO"
shim_on
GHOST=deadbeefdeadbeefdeadbeefdeadbeefdeadbeef

# store_is_whole WHAT: gc, repack -a -d and fsck all succeed.
store_is_whole() {
    run_cmd git_real -C "$REPO" gc -q
    assert_eq 0 "$RC" "$1: git gc fails after the save ($ERR)"
    run_cmd git_real -C "$REPO" repack -a -d -q
    assert_eq 0 "$RC" "$1: git repack -a -d fails after the save ($ERR)"
    run_cmd git_real -C "$REPO" fsck --no-dangling
    assert_eq 0 "$RC" "$1: git fsck fails after the save ($ERR)"
}

section "reset --hard over entries at a missing blob: the rest saved, gc and fsck whole"
cd "$REPO" || exit 1
printf '100644 %s\tghost%s.txt\n' "$GHOST" 1 "$GHOST" 2 | git_real update-index --index-info
printf 'staged\n' >kept.txt && git_real add kept.txt && printf 'edited after\n' >>kept.txt
printf '100644 %s\tondisk.txt\n' "$GHOST" | git_real update-index --index-info
printf 'bytes on disk\n' >ondisk.txt
run_cmd git reset --hard
assert_eq 0 "$RC" "reset --hard failed ($ERR)"
SAVE=$(git_real for-each-ref --format='%(refname)' refs/stranded/ | head -1)
assert_ne "" "$SAVE" "reset --hard destroyed the edits, not saved"
assert_eq "$(printf 'staged\nedited after')" "$(git_real show "$SAVE:kept.txt")" "the edit of kept.txt was lost, not in the save"
assert_eq "bytes on disk" "$(git_real show "$SAVE:ondisk.txt")" "ondisk.txt's bytes on disk were lost, not in the save"
run_cmd "$GUARD_BIN_DIR/git-guard" show "$SAVE"
assert_contains "$OUT" "staged entry ghost1.txt names a missing blob" "show does not name the entry left out"
store_is_whole "reset --hard"

section "worktree remove --force over an index naming a missing blob: the staged rest kept"
git_real -C "$REPO" worktree add -q --detach "$TEST_ROOT/wt"
cd "$TEST_ROOT/wt" || exit 1
printf '100644 %s\tghost.txt\n' "$GHOST" | git_real update-index --index-info
printf 'staged in wt\n' >staged.txt && git_real add staged.txt && printf 'and edited\n' >>staged.txt
printf 'untracked in wt\n' >untracked.txt
cd "$REPO" || exit 1
run_cmd git worktree remove --force "$TEST_ROOT/wt"
assert_eq 0 "$RC" "worktree remove --force failed ($ERR)"
SAVE=$(git_real for-each-ref --format='%(refname)' refs/heads/stranded/wt/ | head -1)
assert_ne "" "$SAVE" "worktree remove destroyed the tree's work, not saved"
assert_eq "untracked in wt" "$(git_real show "$SAVE:untracked.txt" 2>&1)" "the untracked file was lost, not in the save"
INDEX=$(git_real log -1 --format='%(trailers:key=Stranded-Index,valueonly)' "$SAVE")
assert_eq "staged in wt" "$(git_real show "$INDEX:staged.txt" 2>&1)" "the staged version of staged.txt was lost, not in the save's index commit"
run_cmd "$GUARD_BIN_DIR/git-guard" show "${SAVE#refs/heads/}"
assert_contains "$OUT" "staged entry ghost.txt names a missing blob" "show does not name the entry left out"
store_is_whole "worktree remove"

shim_off
finish
