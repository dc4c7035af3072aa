#!/usr/bin/env bash
# No noise (issue 38, DESIGN §15): with the watcher running, 30 ordinary commands through
# the shim (commit, amend, reset --soft, rebase, branch -m, merge, pull, stash, a worktree
# added then removed while clean, a worktree added and at once removed with --force) make
# no watcher save: the watcher saves only what vanished without a guard's judgement, and
# none of these loses anything. A spurious save is noise the user must learn to ignore,
# and its reason ("no git hook ran") would be false.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

guarded_clone repo
shim_on "$TEST_ROOT/shim"
# Another clone pushes, so that pull has something to bring.
git_real clone -q "$TEST_ROOT/repo.origin" "$TEST_ROOT/other"

# watcher_saves: the saves the watcher made, one line each (ref and reason).
watcher_saves() {
    "$GUARD" -C "$REPO" list --all --json | jq -r 'select(.reason // "" | test("no git hook ran")) | .ref'
}

steps=0
step() {
    run_cmd "$@"
    steps=$((steps + 1))
    [ "$RC" -eq 0 ] || fail "step $steps ($*) failed: $ERR"
    sleep 0.1 # the watcher reads each change on its own, as in a session typed by hand
}
cd "$REPO" || exit 1
echo one >>a.txt
step git commit -q -am "one"
echo two >>a.txt
step git commit -q -am "two"
step git commit -q --amend -m "two, amended"
echo three >b.txt
step git add b.txt
step git commit -q --amend --no-edit
step git reset -q --soft HEAD~1
step git commit -q -m "two again"
step git branch feature
step git checkout -q feature
echo f >f.txt
step git add f.txt
step git commit -q -m "feature work"
step git branch -m feature topic
step git checkout -q main
step git rebase -q topic
echo m >>a.txt
step git commit -q -am "on main"
step git checkout -q topic
step git merge -q --no-edit main
step git checkout -q main
commit_file "$TEST_ROOT/other" o.txt "from other" "other's work"
git_real -C "$TEST_ROOT/other" push -q origin main
step git pull -q --rebase origin main
echo s >>a.txt
step git stash -q
step git stash pop -q
step git commit -q -am "after the stash"
step git worktree add -q "$TEST_ROOT/clean" topic
step git worktree remove "$TEST_ROOT/clean"
step git worktree add -q --detach "$TEST_ROOT/quick" main
echo ignored >"$TEST_ROOT/quick/build.log"
step git worktree remove --force "$TEST_ROOT/quick"
step git branch -q -m topic renamed
step git push -q origin main
step git fetch -q origin
step git status --short
cd / || exit 1

# The watcher has read everything once it has nothing pending: wait for its last event to
# be some time ago, then give its saves a moment.
sleep 2
assert_eq 30 "$steps" "the session ran $steps ordinary commands, not 30 (the count below means less)"
assert_eq "" "$(watcher_saves)" "the watcher saved during an ordinary session where nothing was lost (noise, with a false reason)"
assert_eq "" "$("$GUARD" -C "$REPO" watch --lost 2>&1 | grep -v -i -E '^(nothing|no )' || true)" \
    "watch --lost names a commit lost in an ordinary session"

section "one commit taken from two branches in one event (one deleted, one moved) is saved once"
X=$(unpushed "$REPO" twin)
git_real -C "$REPO" branch other twin
wait_known "$REPO" "$X"
printf 'start\nupdate refs/heads/other %s %s\ndelete refs/heads/twin %s\ncommit\n' \
    "$(git_real -C "$REPO" rev-parse main)" "$X" "$X" |
    git_real -c core.hooksPath=/dev/null -C "$REPO" update-ref --stdin >/dev/null
poll 30 saved_at "$REPO" twin "$X" && pass "the commit is saved under the deleted branch's name" ||
    fail "the commit $X that lost both its branches was not saved under twin: lost"
sleep 2 # a second save would come in the same scan; this is room for a slow one
saves_of_x=$(git_real -C "$REPO" for-each-ref --points-at "$X" --format='%(refname)' refs/heads/stranded/)
assert_eq "refs/heads/stranded/twin" "$(printf '%s\n' "$saves_of_x" | sed 's|/[^/]*$||' | sort -u | tr '\n' ' ' | sed 's/ $//')" \
    "the one lost commit was saved under more than one name (noise: one save per name it had)"

finish
