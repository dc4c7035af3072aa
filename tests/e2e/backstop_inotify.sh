#!/usr/bin/env bash
# The kernel's inotify limits exhausted (issue 18, "bad input and faults"): with no inotify
# instance left (EMFILE, max_user_instances) or no watch left (ENOSPC, max_user_watches),
# the watcher says so in `watch --status` and doctor, polls the ref store at the snapshot
# interval instead, and still saves a branch a tool deletes. The limits are exhausted for
# real by a helper process, inside a user namespace of its own whose limit (user.max_inotify_*,
# that namespace's only) is lowered first: the machine's sysctls are never changed.
if [ "${1:-}" != --inside ]; then
    if ! unshare -U -r sh -c 'echo 4 >/proc/sys/user/max_inotify_instances' 2>/dev/null; then
        echo "SKIP: cannot make a user namespace with its own inotify limits here (unshare -U -r, /proc/sys/user/max_inotify_*)"
        exit 125
    fi
    command -v python3 >/dev/null || { echo "SKIP: python3 is needed for the helper that exhausts inotify"; exit 125; }
    rc=0
    for limit in instances watches; do
        unshare -U -r "$0" --inside "$limit" || rc=$?
    done
    exit "$rc"
fi
LIMIT=$2
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

# The helper: takes inotify instances until EMFILE, or watches on one instance until
# ENOSPC, says "exhausted <errno name>" and holds them until it is killed.
mkdir -p "$TEST_ROOT/dirs"
cat >"$TEST_ROOT/exhaust.py" <<'PY'
import ctypes, errno, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
held = []
if sys.argv[1] == "instances":
    while (fd := libc.inotify_init1(0)) >= 0:
        held.append(fd)
else:
    fd = libc.inotify_init1(0)
    n = 0
    while True:
        d = os.path.join(sys.argv[2], str(n))
        os.makedirs(d, exist_ok=True)
        if libc.inotify_add_watch(fd, d.encode(), 0x100) < 0:
            break
        n += 1
print("exhausted", errno.errorcode.get(ctypes.get_errno(), "?"), flush=True)
time.sleep(3600)
PY
if [ "$LIMIT" = instances ]; then
    echo 4 >/proc/sys/user/max_inotify_instances
    EXPECT=EMFILE WHY=max_user_instances
else
    echo 8 >/proc/sys/user/max_inotify_watches
    EXPECT=ENOSPC WHY=max_user_watches
fi
python3 "$TEST_ROOT/exhaust.py" "$LIMIT" "$TEST_ROOT/dirs" >"$TEST_ROOT/helper.out" &
HELPER=$!
trap 'kill $HELPER 2>/dev/null' EXIT
poll 30 grep -q exhausted "$TEST_ROOT/helper.out" || fail "the helper did not exhaust inotify $LIMIT"
assert_contains "$(cat "$TEST_ROOT/helper.out")" "$EXPECT" "the helper did not exhaust inotify $LIMIT with $EXPECT"

section "$LIMIT exhausted ($EXPECT): the watcher starts and polls, and says so"
git_real config --global guard.snapshotInterval 1 # the interval it polls at
guarded_clone repo-$LIMIT
run_cmd "$GUARD" watch --status
assert_eq 0 "$RC" "no watcher runs with inotify $LIMIT exhausted: $ERR$OUT"
assert_contains "$OUT" "polling every 1s" "watch --status does not say that the watcher polls (at the snapshot interval)"
assert_contains "$OUT" "$WHY" "watch --status does not name the exhausted limit ($WHY)"
run_cmd "$GUARD" -C "$REPO" doctor
assert_contains "$OUT$ERR" "$WHY" "doctor does not say that the inotify limit ($WHY) is reached"
assert_contains "$OUT$ERR" "polls the ref store" "doctor does not say that the watcher polls the ref store"

section "$LIMIT exhausted: a branch a tool deletes is still saved, by polling"
TIP=$(unpushed "$REPO" poll-lost)
wait_known "$REPO" "$TIP"
rm -f "$REPO/.git/refs/heads/poll-lost" "$REPO/.git/logs/refs/heads/poll-lost" # as libgit2 deletes
if poll 60 saved_at "$REPO" poll-lost "$TIP"; then
    pass "the polling watcher saved the deleted branch"
else
    fail "the commit $TIP of poll-lost was destroyed, not saved: the watcher without inotify saw nothing"
fi

finish
