#!/usr/bin/env bash
# A full disk under the watcher (issue 18, "bad input and faults"): a branch deleted by a
# tool while the repository's file system is full cannot be saved; the watcher logs it,
# tries again with a back-off (never spinning), keeps the tip for the sweep, never crashes,
# and saves it once space is free. The repository lives on a small tmpfs mounted in a
# private mount namespace, so nothing of the machine fills up.
if [ "${1:-}" != --inside ]; then
    if [ "$(id -u)" -ne 0 ] || ! unshare -m --propagation private sh -c 'mount -t tmpfs -o size=64k tmpfs /mnt' 2>/dev/null; then
        echo "SKIP: needs a private mount namespace with a tmpfs (root, unshare -m): no full file system can be made here"
        exit 125
    fi
    exec unshare -m --propagation private "$0" --inside
fi
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

SMALL=$TEST_ROOT/small
mkdir -p "$SMALL"
mount -t tmpfs -o size=2m tmpfs "$SMALL" || skip_suite "cannot mount a tmpfs at $SMALL"
guarded_clone small/repo
LOG=$WATCH_STATE/watch.log
watcher_pid() { "$GUARD" watch --status --json | sed -n 's/.*"pid":\([0-9]*\).*/\1/p'; }
PID=$(watcher_pid)

section "a branch deleted while the disk is full: logged, retried with a back-off, no crash"
TIP=$(unpushed "$REPO" full-lost)
wait_known "$REPO" "$TIP"
dd if=/dev/zero of="$SMALL/fill" bs=4k >/dev/null 2>&1 || true
if (echo probe >"$SMALL/probe") 2>/dev/null; then
    fail "the tmpfs did not fill up: nothing was tested"
    finish
fi
rm -f "$REPO/.git/refs/heads/full-lost" "$REPO/.git/logs/refs/heads/full-lost" # as libgit2 deletes
logged() { grep -q "$1" "$LOG" 2>/dev/null; }
if poll 30 logged "cannot save full-lost ($TIP)"; then
    pass "the failed save on a full disk is logged"
else
    fail "the watcher's failed save of full-lost on a full disk is not in $LOG"
fi
if poll 30 logged "will try to save refs/heads/full-lost ($TIP) again in 2 s"; then
    pass "the failed save is retried with a growing back-off"
else
    fail "the failed save was not retried with a growing back-off (1 s, then 2 s): the tip would be left for gc"
fi
assert_eq "$PID" "$(watcher_pid)" "the watcher crashed (or was replaced) on the full disk"
run_cmd "$GUARD" -C "$REPO" watch --lost
assert_contains "$OUT" "${TIP:0:12}" "the unsaved tip is not left for the sweep (watch --lost does not show it)"
assert_eq 0 "$(saves "$REPO" full-lost)" "a save of full-lost exists although the disk was full (the test filled nothing)"

section "space freed: the retry saves it"
rm -f "$SMALL/fill"
if poll 60 saved_at "$REPO" full-lost "$TIP"; then
    pass "the retry saved the branch once space was free"
else
    fail "the commit $TIP of full-lost was not saved once space was free: it is left for gc to prune"
fi
assert_eq "$PID" "$(watcher_pid)" "the watcher did not survive the full disk"
assert_eq 1 "$(saves "$REPO" full-lost)" "the retried save was made more than once"

finish
