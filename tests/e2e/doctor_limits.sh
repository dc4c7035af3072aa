#!/usr/bin/env bash
# doctor's checks agree (issue 36): the `limits` line states what this machine's install
# leaves unguarded now, by kind of caller, from the same facts as `shim_on_path` and
# `watcher`. With the watcher running it says the watcher covers libgit2 and rm -rf after
# the fact; with the shim on PATH, that hooks-off callers are judged by the shim; stopped,
# or off PATH, it says so. It never claims a caller is unguarded that another line covers.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

guarded_clone repo

# line NAME: doctor's detail of check NAME, from --json.
line() {
    "$GUARD" -C "$REPO" doctor --json 2>/dev/null | jq -r --arg n "$1" 'select(.check == $n) | .detail'
}

section "shim on PATH, watcher running: limits agrees with shim_on_path and watcher"
PATH=$TEST_ROOT/shim:$BASE_PATH
export PATH
poll 30 bash -c "'$GUARD' watch --status >/dev/null" || fail "the watcher install started is not running"
WATCHER=$(line watcher)
LIMITS=$(line limits)
assert_contains "$WATCHER" "the watcher runs" "the watcher line does not say the watcher runs: $WATCHER"
assert_contains "$(line shim_on_path)" "is the shim" "the shim is not on PATH (the test proves nothing)"
assert_contains "$LIMITS" "judged by the shim before it runs, hooks off" "limits does not say the shim judges hooks-off callers: $LIMITS"
assert_contains "$LIMITS" "the watcher saves afterwards" "limits does not say the watcher covers libgit2 and rm -rf: $LIMITS"
assert_not_contains "$LIMITS" "call neither the shim nor the hook" "limits contradicts the watcher line"
assert_not_contains "$LIMITS" "skips the hook" "limits says hooks off skips the guard while the shim judges it"

section "watcher stopped: limits says nothing saves what bypasses git"
"$GUARD" watch --stop >/dev/null
LIMITS=$(line limits)
assert_contains "$(line watcher)" "stopped the watcher" "the watcher line still says it runs"
assert_contains "$LIMITS" "nothing saves their losses" "limits claims the watcher covers libgit2 while none runs: $LIMITS"

section "shim off PATH: limits says git on PATH is not the shim"
PATH=$BASE_PATH
LIMITS=$(line limits)
assert_ne "" "$(line shim_on_path)" "doctor has no shim_on_path line"
assert_contains "$LIMITS" "git on PATH is not the shim" "limits claims the shim judges git on PATH while it is not there: $LIMITS"

finish
