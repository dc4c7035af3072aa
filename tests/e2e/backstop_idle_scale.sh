#!/usr/bin/env bash
# The watcher's idle cost does not grow with repositories and trees (issue 38 item 10,
# DESIGN §15 "idle, it costs no CPU"): with 20 guarded repositories and 30 linked trees at
# guard.snapshotInterval=1, the idle watcher wakes once per interval for all trees
# together, runs no git, and leaves its status file as it is. A config file it read (an
# included one, the global one) that changes is read again, and a change in a tree is
# still snapshotted.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

# Every git the watcher runs, logged: the watcher takes its git from $GIT_GUARD_REAL_GIT.
logging_git
export GIT_GUARD_REAL_GIT=$TEST_ROOT/logging-git
calls() { [ -f "$CALLS" ] && wc -l <"$CALLS" | tr -d ' ' || echo 0; }

# The interval comes from a file the global config includes: both are files git reads.
printf '[include]\n\tpath = guard-interval.cfg\n' >>"$HOME/.gitconfig"
printf '[guard]\n\tsnapshotInterval = 1\n' >"$HOME/guard-interval.cfg"

REPOS=20
TREES=30
# One repository after the other, as a user installs them: each joins a running watcher.
for r in $(seq 1 "$REPOS"); do
    new_repo "$TEST_ROOT/repo$r"
    for t in $(seq "$r" "$REPOS" "$TREES"); do
        git_real -C "$TEST_ROOT/repo$r" worktree add -q -b "wt$t" "$TEST_ROOT/repo$r-wt$t" main
    done
    run_cmd "$GUARD" -C "$TEST_ROOT/repo$r" install --shim-dir "$TEST_ROOT/shim"
    [ "$RC" -eq 0 ] || fail "git guard install of repo$r failed: $ERR"
done
PID=$("$GUARD" watch --status --json | jq -r .pid)
watches_all() { grep -qx "repositories=$REPOS" "$WATCH_STATE/status"; }
poll 60 watches_all || fail "the watcher never watched all $REPOS repositories"

# quiet: no git call for two seconds (the first check of each tree runs git).
quiet() {
    local before
    before=$(calls)
    sleep 2
    [ "$(calls)" = "$before" ]
}
poll 90 quiet || fail "the watcher kept running git with nothing changed"

section "idle over $REPOS repositories and $((REPOS + TREES)) trees: one wake per interval, no git, no status write"
wakes() { awk '/^voluntary_ctxt_switches/ {print $2}' "/proc/$PID/status"; }
status_id() { stat -c '%i %y' "$WATCH_STATE/status"; }
CALLS_BEFORE=$(calls)
STATUS_BEFORE=$(status_id)
WAKES_BEFORE=$(wakes)
START=$(date +%s)
sleep 4 # four snapshot intervals with nothing changed
WOKE=$(($(wakes) - WAKES_BEFORE))
IDLE=$(($(date +%s) - START))
assert_eq 0 "$(($(calls) - CALLS_BEFORE))" \
    "the idle watcher ran git for repositories and trees where nothing changed"
assert_eq "$STATUS_BEFORE" "$(status_id)" \
    "the idle watcher rewrote its status file though nothing it says changed (a write per wake)"
# One wake per interval (1 s) for all trees, with room for the wakes a second's edge adds;
# a wake per tree or per repository is 20 to 50 a second here.
assert_within 0 $((2 * IDLE + 4)) "$WOKE" \
    "the idle watcher woke $WOKE times in about $IDLE s with $((REPOS + TREES)) trees at snapshotInterval=1: trees are due one by one, not on one grid"

section "a config file it read changes: the watcher reads it again"
interval_is() { grep -qx "snapshot_interval=$1" "$WATCH_STATE/status"; }
printf '[guard]\n\tsnapshotInterval = 2\n' >"$HOME/guard-interval.cfg"
poll 30 interval_is 2 &&
    pass "a change of guard.snapshotInterval in an included file is read" ||
    fail "the watcher never read guard.snapshotInterval=2 from the included config file (it still says $(grep snapshot_interval= "$WATCH_STATE/status"))"
printf '[guard]\n\tsnapshotInterval = 3\n' >>"$HOME/.gitconfig"
poll 30 interval_is 3 &&
    pass "a change of guard.snapshotInterval in the global config is read" ||
    fail "the watcher never read guard.snapshotInterval=3 from ~/.gitconfig (it still says $(grep snapshot_interval= "$WATCH_STATE/status"))"

section "a change in one of the trees is still snapshotted"
echo work >"$TEST_ROOT/repo7-wt27/work.txt"
snapshotted() {
    local commit
    for commit in $("$GUARD" -C "$TEST_ROOT/repo7" list --all --json |
        jq -r 'select(.ref | startswith("refs/stranded/repo7-wt27/")) | .commit'); do
        [ "$(git_real -C "$TEST_ROOT/repo7" cat-file -p "$commit:work.txt" 2>/dev/null)" = work ] && return 0
    done
    return 1
}
poll 60 snapshotted && pass "the edit in repo7-wt27 is snapshotted" ||
    fail "the change to repo7-wt27 was never snapshotted: rm -rf would lose work.txt"

finish
