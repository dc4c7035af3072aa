#!/usr/bin/env bash
# No orphans (LESSONS 18): when git or a user kills the hook in the middle of a slow
# deletion, its worker and the worker's git die with it, within 5 s, and nothing left
# behind blocks the next deletion, which is saved. The deletion is made slow by a git
# whose rev-list sleeps ($GIT_GUARD_REAL_GIT, the git git-guard runs).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GIT=$REAL_GIT
SLOW=$TEST_ROOT/slow-git
cat >"$SLOW" <<EOF
#!/bin/sh
case " \$* " in
*" rev-list "*) echo \$\$ >"$TEST_ROOT/sleeper.pid"; exec sleep 120 ;;
esac
exec "$GIT" "\$@"
EOF
chmod +x "$SLOW"

hooked_clone kill

# unpushed NAME: a branch with one commit of its own.
unpushed() {
    printf '%s\n' "$1" >"$REPO/$1.txt"
    "$GIT" -C "$REPO" add "$1.txt"
    "$GIT" -C "$REPO" commit -q -m "$1"
    "$GIT" -C "$REPO" branch "$1"
    "$GIT" -C "$REPO" reset -q --hard HEAD~1
}

# alive PID: whether PID still runs (a zombie counts as gone).
alive() {
    [ -n "$1" ] && kill -0 "$1" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# gone_within SECONDS PID...: waits until none of the PIDs runs; 0 when they are gone.
gone_within() {
    local limit=$(($1 * 10)) i pid left
    shift
    for ((i = 0; i <= limit; i++)); do
        left=
        for pid in "$@"; do alive "$pid" && left="$left $pid"; done
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    printf '       still running:%s\n' "$left"
    ps -o pid,ppid,args -p "${left# }" 2>/dev/null | sed 's/^/       /'
    return 1
}

# kill_case WHAT SIGNAL TARGET: deletes a branch slowly, kills TARGET ("hook": git's
# child; "worker": the full git-guard under the front end) with SIGNAL, checks that
# every process of the hook is gone within 5 s and that the next deletion is saved.
kill_case() {
    local what=$1 signal=$2 target=$3 branch gitpid hook worker sleeper i
    branch=slow-$RANDOM
    unpushed "$branch"
    rm -f "$TEST_ROOT/sleeper.pid"
    (cd "$REPO" && exec env GIT_GUARD_REAL_GIT="$SLOW" "$GIT" branch -D "$branch") >"$TEST_ROOT/kill.out" 2>&1 &
    gitpid=$!
    for ((i = 0; i < 300; i++)); do
        [ -s "$TEST_ROOT/sleeper.pid" ] && break
        sleep 0.1
    done
    sleeper=$(cat "$TEST_ROOT/sleeper.pid" 2>/dev/null)
    hook=$(pgrep -P "$gitpid" | head -1)
    worker=$(pgrep -P "$hook" | grep -vx "$sleeper" | head -1)
    [ -n "$sleeper" ] && pass "$what: the deletion is under way (git $gitpid, hook $hook, its git $sleeper)" ||
        fail "$what: the slow deletion never reached rev-list"
    if [ "$target" = hook ]; then kill "-$signal" "$hook"; else kill "-$signal" "$worker"; fi
    gone_within 5 "$hook" $worker "$sleeper" && pass "$what: no process of the hook is alive 5 s after SIG$signal" ||
        fail "$what: the hook's worker outlived the killed hook (orphans)"
    wait "$gitpid" && rc=0 || rc=$?
    assert_ne 0 "$rc" "$what: git fails the deletion its hook could not finish"
    assert_ref_exists "$REPO" "refs/heads/$branch" "$what: the branch whose deletion was cut short is still there"
    run_cmd "$GIT" -C "$REPO" branch -D "$branch"
    assert_eq 0 "$RC" "$what: the next deletion goes through ($ERR)"
    assert_ne "" "$("$GIT" -C "$REPO" for-each-ref "refs/heads/stranded/$branch/")" \
        "$what: the next deletion saved the branch (nothing left behind blocked it)"
}

section "no chained hook: the front end became git-guard (exec)"
kill_case "SIGKILL to the hook" KILL hook
kill_case "SIGTERM to the hook" TERM hook

section "a chained hook: git-guard runs under the front end, tied to it"
printf '#!/bin/sh\ncat >/dev/null\nexit 0\n' >"$REPO/.git/hooks/reference-transaction.guard-chained"
chmod +x "$REPO/.git/hooks/reference-transaction.guard-chained"
kill_case "SIGKILL to the front end" KILL hook
kill_case "SIGTERM to the front end" TERM hook

finish
