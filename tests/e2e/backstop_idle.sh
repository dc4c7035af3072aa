#!/usr/bin/env bash
# The time layer's idle cost (DESIGN §15: "idle, it costs no CPU"): a tree whose files,
# HEAD and index did not change costs no git process at its snapshot interval; the watcher
# knows it from inotify on the tree's directories. A change anywhere in it, also in a
# directory made after the watcher looked, is still snapshotted.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

# Every git the watcher runs, logged: the watcher takes its git from $GIT_GUARD_REAL_GIT.
logging_git

git_real config --global guard.snapshotInterval 1
guarded_clone repo
TREE=$TEST_ROOT/idle-tree
git_real -C "$REPO" worktree add -q -b idle "$TREE" main
"$GUARD" watch --stop >/dev/null
GIT_GUARD_REAL_GIT=$TEST_ROOT/logging-git "$GUARD" watch >/dev/null

snapshot_of() { # snapshot_of PATH CONTENT: some snapshot of idle-tree holds PATH with CONTENT
    local commit
    for commit in $("$GUARD" -C "$REPO" list --all --json | jq -r 'select(.ref | startswith("refs/stranded/idle-tree/")) | .commit'); do
        [ "$(git_real -C "$REPO" cat-file -p "$commit:$1" 2>/dev/null)" = "$2" ] && return 0
    done
    return 1
}

section "a change is snapshotted (and the logged git sees the watcher's calls)"
echo one >"$TREE/one.txt"
poll 60 snapshot_of one.txt one || fail "the change to the tree was never snapshotted: rm -rf would lose one.txt"
assert_contains "$(cat "$CALLS" 2>/dev/null)" "add -A" "the logging git saw no snapshot check (nothing below is tested)"

section "an unchanged tree costs no git process at its interval"
sleep 2 # the checks that follow the snapshot above
: >"$CALLS"
sleep 3 # three snapshot intervals with nothing changed
assert_eq "" "$(cat "$CALLS")" "the watcher ran git for trees where nothing changed (idle cost per tree per interval)"

section "a directory made after the watcher looked: a later edit in it is snapshotted"
mkdir "$TREE/newdir"
echo first >"$TREE/newdir/f.txt"
poll 60 snapshot_of newdir/f.txt first || fail "the new directory's file was never snapshotted"
sleep 2 # the new directory is walked and watched; its next change is an event
echo second >"$TREE/newdir/f.txt"
poll 60 snapshot_of newdir/f.txt second ||
    fail "an edit in a directory made after the watcher looked was never snapshotted: rm -rf would lose it"

section "an index change alone (git add) is snapshotted"
echo staged >"$TREE/st.txt"
poll 60 snapshot_of st.txt staged || fail "st.txt was never snapshotted"
sleep 2
count() { "$GUARD" -C "$REPO" list --snapshots "$TREE" | grep -c '^refs/stranded/idle-tree/'; }
N=$(count)
git_real -C "$TREE" add st.txt
poll 60 eval '[ "$(count)" -gt "$N" ]' || fail "staging st.txt (an index change, no file change) was never snapshotted: the staged state would be lost"

finish
