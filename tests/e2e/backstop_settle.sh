#!/usr/bin/env bash
# Settle by object id (DESIGN §15): a vanished tree or tip is settled only by a save or a
# discard that holds what the watcher last knew, never by a save of the same path within
# a time window, and a drop of a save does not pre-approve a later deletion of its commit.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

if ! "$PYTHON" -c 'import pygit2' 2>/dev/null; then
    skip_suite "pygit2 is not installed (Debian: python3-pygit2): skipping the settle suite"
fi

guarded_clone repo
SHIM=$TEST_ROOT/shim/git

section "an in-place save, a new detached commit, then env -i worktree remove: the commit is saved"
TREE=$TEST_ROOT/tree
git_real -C "$REPO" worktree add -q --detach "$TREE" main
echo edit >>"$TREE/a.txt"
run_cmd env PATH="$TEST_ROOT/shim:$PATH" git -C "$TREE" checkout -- a.txt
assert_eq 0 "$RC" "git checkout -- a.txt through the shim failed ($ERR)"
run_cmd "$GUARD" -C "$REPO" log
assert_contains "$OUT" "$TREE" "the shim made no in-place save of the tree (the case needs one)"
echo new >"$TREE/new.txt"
git_real -C "$TREE" add new.txt
git_real -C "$TREE" commit -q -m "new detached work"
NEW=$(git_real -C "$TREE" rev-parse HEAD)
wait_known "$REPO" "$NEW"
env -i "$REAL_GIT" -C "$REPO" worktree remove --force "$TREE"
assert_no_file "$TREE" "worktree remove left the tree"
if poll 30 saved_at "$REPO" tree "$NEW"; then
    pass "the removed tree's new commit is saved"
else
    fail "the tree's commit $NEW was lost: an earlier in-place save of the same path settled its removal"
fi

section "restore, drop, then a libgit2 delete of the restored branch: saved again"
TIP=$(unpushed "$REPO" again)
wait_known "$REPO" "$TIP"
git_real -C "$REPO" branch -q -D again
poll 30 saved_at "$REPO" again "$TIP" || fail "the hook did not save the deleted branch (the case needs it)"
SAVE=$(save_of "$REPO" again)
run_cmd "$GUARD" -C "$REPO" restore "${SAVE#refs/heads/}"
assert_eq 0 "$RC" "git guard restore failed ($ERR)"
assert_eq "$TIP" "$(git_real -C "$REPO" rev-parse -q --verify refs/heads/again)" "restore did not bring the branch back"
run_cmd "$GUARD" -C "$REPO" drop "${SAVE#refs/heads/}"
assert_eq 0 "$RC" "git guard drop failed ($ERR)"
assert_eq 0 "$(saves "$REPO" again)" "the drop left the save"
wait_known "$REPO" "$TIP"
"$PYTHON" -c 'import pygit2, sys; pygit2.Repository(sys.argv[1]).branches.delete("again")' "$REPO"
if poll 30 saved_at "$REPO" again "$TIP"; then
    pass "the restored branch deleted by libgit2 is saved"
else
    fail "the restored branch's commit $TIP was lost: the drop of its save counted as letting it go"
fi

section "git guard discard after the watcher knew the branch lets it go"
TIP=$(unpushed "$REPO" gone)
wait_known "$REPO" "$TIP"
run_cmd "$GUARD" -C "$REPO" discard gone
assert_eq 0 "$RC" "git guard discard failed ($ERR)"
read_past "$REPO" settle-mark "$PYTHON" -c 'import pygit2, sys; pygit2.Repository(sys.argv[1]).branches.delete("settle-mark")' "$REPO"
assert_eq 0 "$(saves "$REPO" gone)" "a branch the user discarded was saved by the watcher"

finish
