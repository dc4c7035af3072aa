#!/usr/bin/env bash
# Every git the hook's full binary starts is under its time bound (issue 17 item 3): a git
# that hangs while the hook judges is stopped at guard.hookTimeout and the tip is saved
# unchecked; one that hangs while the hook saves is stopped at the saves' bound and the
# deletion is refused, naming the bound. Either way the branch's commits are kept and no
# hung git is left behind. The hanging git is real: a wrapper named by
# GIT_GUARD_REAL_GIT (the env path the full binary finds git by) that sleeps on one
# subcommand and runs the real git for every other.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GIT=$REAL_GIT
command -v timeout >/dev/null || skip "timeout(1) is needed to end a hook that never returns"

# A git that sleeps, recording its pid, when its arguments name $HANG_ON.
WRAPPER=$TEST_ROOT/hanging-git
cat >"$WRAPPER" <<SCRIPT
#!/bin/sh
case " \$* " in
*" \$HANG_ON "*) echo \$\$ >>"$TEST_ROOT/hung.pids"; exec sleep 300 ;;
esac
exec "$REAL_GIT" "\$@"
SCRIPT
chmod +x "$WRAPPER"

hooked_clone bound

# unpushed REPO BRANCH: BRANCH with one commit found on no other ref; prints its tip.
unpushed() {
    "$GIT" -C "$1" switch -q -c "$2"
    commit_file "$1" "$2.txt" "$2" >/dev/null
    "$GIT" -C "$1" rev-parse HEAD
    "$GIT" -C "$1" switch -q main
}

# no_hung_git MESSAGE: every hanging git the hook started is gone.
no_hung_git() {
    local pid left=""
    for pid in $(cat "$TEST_ROOT/hung.pids" 2>/dev/null); do
        kill -0 "$pid" 2>/dev/null && left="$left $pid" && kill "$pid"
    done
    assert_eq "" "$left" "$1"
    rm -f "$TEST_ROOT/hung.pids"
}

# delete_hanging SUBCOMMAND BOUND BRANCH: branch -D BRANCH with guard.hookTimeout BOUND
# while the hook's SUBCOMMAND hangs; it must return (timeout(1) exits 124 otherwise).
delete_hanging() {
    "$GIT" -C "$REPO" config guard.hookTimeout "$2"
    run_cmd timeout 150 env GIT_GUARD_REAL_GIT="$WRAPPER" HANG_ON="$1" "$GIT" -C "$REPO" branch -D "$3"
    assert_ne 124 "$RC" "branch -D returned: the hook's hanging $1 was stopped (it waited unbounded before)"
}

section "a git that hangs while the hook judges is stopped at guard.hookTimeout; the tip is saved unchecked"
tip=$(unpushed "$REPO" judged)
delete_hanging rev-list 2 judged
assert_eq 0 "$RC" "branch -D succeeds once its tip is saved unchecked"
assert_contains "$ERR" "guard.hookTimeout (2s) passed" "stderr says the bound passed and the tip was kept unchecked"
saved=$("$GIT" -C "$REPO" for-each-ref --format='%(objectname)' 'refs/heads/stranded/judged/')
assert_eq "$tip" "$saved" "the deleted branch's unpushed commit was saved, not lost with the hung check"
no_hung_git "the hanging rev-list was killed with the hook's bound, not left running"

section "a git that hangs while the hook saves is stopped at the saves' bound; the deletion is refused"
tip=$(unpushed "$REPO" saving)
delete_hanging update-ref 1 saving
assert_ne 0 "$RC" "the deletion is refused when its save could not be written in time"
assert_contains "$ERR" "guard.hookTimeout (1s) for the saves" "the refusal names the time bound that stopped the save"
assert_eq "$tip" "$("$GIT" -C "$REPO" rev-parse -q --verify refs/heads/saving)" "branch saving still holds its unpushed commit: nothing lost"
no_hung_git "the hanging update-ref was killed with the hook's bound, not left running"

section "with git answering, the same deletion saves and goes ahead"
"$GIT" -C "$REPO" config --unset guard.hookTimeout
run_cmd "$GIT" -C "$REPO" branch -D saving
assert_eq 0 "$RC" "branch -D succeeds"
assert_eq "$tip" "$("$GIT" -C "$REPO" for-each-ref --format='%(objectname)' 'refs/heads/stranded/saving/')" "the unpushed commit was saved"
assert_not_contains "$ERR" "hookTimeout" "the default bound does not trip in normal use"

finish
