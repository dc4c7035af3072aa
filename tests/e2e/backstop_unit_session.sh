#!/usr/bin/env bash
# `git guard watch --enable` in a real systemd user session: the unit runs the watcher
# (one per user: the one install started gives way), `--disable` stops it and removes the
# unit. Skips where `systemctl --user` reaches no user manager (containers, CI, ssh without
# lingering), or where the user has a git-guard-watch.service of their own.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

systemctl --user show-environment >/dev/null 2>&1 ||
    skip_suite "systemctl --user reaches no systemd user manager here (no user session): --enable cannot be tested"
systemctl --user cat git-guard-watch.service >/dev/null 2>&1 &&
    skip_suite "this user has a git-guard-watch.service already: not touching it"
# The manager reads its own config home: the unit goes there, as a user's would.
export XDG_CONFIG_HOME=$(systemctl --user show-environment | sed -n 's/^XDG_CONFIG_HOME=//p')
UNIT=${XDG_CONFIG_HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)/.config}/systemd/user/git-guard-watch.service
trap 'systemctl --user disable --now git-guard-watch.service >/dev/null 2>&1; rm -f "$UNIT"' EXIT

watcher_pid() { "$GUARD" watch --status --json | sed -n 's/.*"pid":\([0-9]*\).*/\1/p'; }

guarded_clone repo
BEFORE=$(watcher_pid)

section "watch --enable starts the watcher as the unit"
run_cmd "$GUARD" watch --enable
assert_eq 0 "$RC" "watch --enable failed in a user session: $ERR"
assert_eq active "$(systemctl --user is-active git-guard-watch.service)" "the unit is not active after --enable"
poll 30 eval '[ "$(watcher_pid)" = "$(systemctl --user show -p MainPID --value git-guard-watch.service)" ]' ||
    fail "the running watcher is not the unit's (one watcher per user)"
assert_ne "$BEFORE" "$(watcher_pid)" "the watcher install started still runs beside the unit's"

section "the unit's watcher saves a bypass deletion"
TIP=$(unpushed "$REPO" unit-lost)
wait_known "$REPO" "$TIP"
git_real -C "$REPO" -c core.hooksPath=/dev/null branch -q -D unit-lost
poll 30 saved_at "$REPO" unit-lost "$TIP" || fail "the unit's watcher did not save the branch deleted with hooks off"

section "watch --disable stops it and removes the unit"
run_cmd "$GUARD" watch --disable
assert_eq 0 "$RC" "watch --disable failed: $ERR"
assert_ne active "$(systemctl --user is-active git-guard-watch.service 2>/dev/null)" "the unit still runs after --disable"
assert_no_file "$UNIT" "--disable left the unit file"

finish
