#!/usr/bin/env bash
# The watcher's life without a service manager (DESIGN §15): install starts it and returns
# once it watches; one per user; kill -9 leaves nothing that blocks the next; a guarded git
# call revives it; it ends by itself when its registry is gone; doctor says what it covers.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

status_json() { "$GUARD" watch --status --json 2>/dev/null; }
watcher_pid() { status_json | jq -r '.pid // empty'; }
running() { [ "$(status_json | jq -r .running)" = true ]; }
not_running() { ! running; }

guarded_clone repo

section "install starts the watcher and returns once it watches the repository"
assert_contains "$(status_json)" "\"running\":true" "no watcher runs after git guard install"
assert_contains "$(status_json)" "\"repositories\":1" "the watcher does not watch the installed repository"
PID=$(watcher_pid)
run_cmd "$GUARD" watch --status
assert_contains "$OUT" "pid $PID" "watch --status does not give the pid"

section "one watcher per user"
run_cmd "$GUARD" watch
assert_eq 0 "$RC" "git guard watch failed with a watcher running: $ERR"
assert_eq "$PID" "$(watcher_pid)" "a second watcher replaced the first"
run_cmd "$GUARD" watch --foreground
assert_eq 1 "$RC" "a second watcher ran beside the first"
assert_contains "$ERR" "runs already" "the second watcher does not say why it stops"

section "doctor says what the watcher covers"
run_cmd "$GUARD" -C "$REPO" doctor
assert_contains "$OUT" "ok    watcher: the watcher runs (pid $PID" "doctor does not report the running watcher"
assert_contains "$OUT" "libgit2" "doctor does not say which callers the watcher covers"
assert_contains "$OUT" "PATH install only" "doctor does not say that git is installed on PATH only"
assert_contains "$OUT" "every 60 s" "doctor does not give the snapshot interval"

section "kill -9: nothing blocks the next watcher, and a guarded git call revives it"
kill -9 "$PID"
poll 30 not_running || fail "the killed watcher still holds its lock"
run_cmd "$GUARD" -C "$REPO" doctor
assert_contains "$OUT" "FAIL  watcher: no watcher runs" "doctor does not report the dead watcher"
TIP=$(unpushed "$REPO" revive)
git_real -C "$REPO" branch -q -D revive # the hook's full binary runs: it starts a watcher
poll 30 running || fail "no guarded git call revived the killed watcher"
assert_ne "$PID" "$(watcher_pid)" "the revived watcher is the killed one"

section "kill -9, then a read-only git call through the shim revives it (issue 38 item 9)"
PID=$(watcher_pid)
kill -9 "$PID"
poll 30 not_running || fail "the killed watcher still holds its lock"
run_cmd env PATH="$TEST_ROOT/shim:$PATH" git -C "$REPO" rev-parse HEAD
assert_eq 0 "$RC" "git rev-parse through the shim failed ($ERR)"
assert_eq "$(git_real -C "$REPO" rev-parse HEAD)" "$OUT" "the shim changed what rev-parse prints"
poll 30 running || fail "a read-only git call through the shim did not revive the killed watcher"
assert_ne "$PID" "$(watcher_pid)" "the watcher the shim revived is the killed one"

section "a tip deleted while the watcher was dead is saved when it comes back"
PID=$(watcher_pid)
TIP=$(unpushed "$REPO" while-dead)
wait_known "$REPO" "$TIP"
kill -9 "$PID"
poll 30 not_running || fail "the killed watcher still holds its lock"
rm -f "$REPO/.git/refs/heads/while-dead"
"$GUARD" watch >/dev/null
assert_saved "$REPO" while-dead "$TIP" "deleted while no watcher ran"

section "a repository that is deleted leaves the watch with a log line"
make_clone other
run_cmd "$GUARD" -C "$TEST_ROOT/other" install --shim-dir "$TEST_ROOT/shim"
poll 30 sh -c "\"$GUARD\" watch --status --json | grep -q '\"repositories\":2'" || fail "the second repository is not watched"
rm -rf "$TEST_ROOT/other"
poll 30 grep -q "dropped from the watch" "$WATCH_STATE/watch.log" || fail "the deleted repository was not dropped with a log line"
# The deletion's own events reach the watcher while rm -rf runs: a state write then must not
# make the directory again (it did: a new clone at that path then failed as "not empty").
sleep 1
assert_no_file "$TEST_ROOT/other" "the watcher recreated the deleted repository's directory"
assert_contains "$(status_json)" "\"running\":true" "the watcher died with a deleted repository"

section "--stop ends it; uninstalling the last repository ends it by itself"
run_cmd "$GUARD" watch --stop
assert_contains "$OUT" "stopped the watcher" "watch --stop did not stop it"
assert_eq false "$(status_json | jq -r .running)" "a watcher runs after --stop"

section "the user's --stop lasts: no guarded call and no install starts it again"
TIP=$(unpushed "$REPO" after-stop)
git_real -C "$REPO" branch -q -D after-stop # the hook's full binary runs
env PATH="$TEST_ROOT/shim:$PATH" git -C "$REPO" rev-parse HEAD >/dev/null # the shim's probe
run_cmd "$GUARD" -C "$REPO" install --shim-dir "$TEST_ROOT/shim"
sleep 1
assert_eq false "$(status_json | jq -r .running)" "a guarded call or install started the watcher the user stopped"
run_cmd "$GUARD" -C "$REPO" doctor
assert_contains "$OUT" "FAIL  watcher: you stopped the watcher" "doctor does not say the user stopped the watcher"
assert_contains "$OUT" "fix: git guard watch" "doctor's fix for a stopped watcher is not git guard watch"
"$GUARD" watch >/dev/null
assert_eq true "$(status_json | jq -r .running)" "git guard watch did not start the stopped watcher"
PID=$(watcher_pid)
printf '' >"$HOME/.local/share/git-guard/repos" # nothing is registered any more
poll 30 not_running || fail "the watcher outlived its registry"
assert_no_file "$WATCH_STATE/status" "the watcher left its status behind"
run_cmd "$GUARD" -C "$REPO" doctor
assert_contains "$OUT" "FAIL  watcher: this repository is not in the watcher's registry" \
    "doctor says ok when the registry no longer names the repository"
assert_contains "$OUT" "fix: git guard install" "doctor's fix for an unregistered repository is not git guard install"

section "every registered repository gone: the watcher ends, and no git call starts it again"
# Each start would find nothing and end: before, every git call through the shim paid a
# watcher's start in the background. A registry change (install) starts one again.
GONE_HOME=$TEST_ROOT/gone-home
GONE_LOG=$GONE_HOME/.local/share/git-guard/watch/watch.log
mkdir -p "$GONE_HOME"
git_real clone -q "$TEST_ROOT/repo.origin" "$GONE_HOME/clone"
HOME=$GONE_HOME "$GUARD" -C "$GONE_HOME/clone" install --shim-dir "$GONE_HOME/shim" >/dev/null
gone_running() { [ "$(HOME=$GONE_HOME "$GUARD" watch --status --json 2>/dev/null | jq -r .running)" = true ]; }
poll 30 gone_running || fail "install started no watcher for the second HOME"
rm -rf "$GONE_HOME/clone"
poll 30 eval '! gone_running' || fail "the watcher outlived its only repository"
starts=$(grep -c 'watch: watching' "$GONE_LOG")
for i in 1 2 3; do
    HOME=$GONE_HOME PATH="$GONE_HOME/shim:$PATH" git -C "$REPO" rev-parse HEAD >/dev/null
    sleep 0.3
done
sleep 1
assert_eq "$starts" "$(grep -c 'watch: watching' "$GONE_LOG")" \
    "git calls through the shim started a watcher again and again for a registry whose repositories are all gone"
# The registry unchanged, but a repository made again at a path it names (an agent's
# workspace re-cloned, a system-wide install's guard.enabled): the next git call watches it.
git_real clone -q "$TEST_ROOT/repo.origin" "$GONE_HOME/clone"
HOME=$GONE_HOME PATH="$GONE_HOME/shim:$PATH" git -C "$REPO" rev-parse HEAD >/dev/null
poll 30 gone_running || fail "a repository made again at a registered path stays unwatched: no git call starts the watcher (a libgit2 deletion there would be lost)"
HOME=$GONE_HOME "$GUARD" watch --stop >/dev/null 2>&1
rm -f "$GONE_HOME/.local/share/git-guard/watch/stopped" # this test's stop, not a user's: install below starts it
git_real clone -q "$TEST_ROOT/repo.origin" "$GONE_HOME/clone2"
HOME=$GONE_HOME "$GUARD" -C "$GONE_HOME/clone2" install --shim-dir "$GONE_HOME/shim" >/dev/null
poll 30 gone_running || fail "install of a new repository did not start the watcher again"
HOME=$GONE_HOME "$GUARD" watch --stop >/dev/null 2>&1

section "a watcher started for a temporary HOME ends when that HOME is deleted"
OTHER_HOME=$TEST_ROOT/tmp-home
mkdir -p "$OTHER_HOME"
git_real clone -q "$TEST_ROOT/repo.origin" "$OTHER_HOME/clone"
HOME=$OTHER_HOME "$GUARD" -C "$OTHER_HOME/clone" install --shim-dir "$OTHER_HOME/shim" >/dev/null
PID=$(HOME=$OTHER_HOME "$GUARD" watch --status --json | jq -r '.pid // empty')
assert_ne "" "$PID" "no watcher started for the temporary HOME"
rm -rf "$OTHER_HOME"
poll 30 sh -c "! kill -0 $PID 2>/dev/null" || fail "the watcher outlived its temporary HOME"

finish
