#!/usr/bin/env bash
# `git guard watch --enable|--disable` (DESIGN §15, lifecycle): the systemd user unit that
# runs the watcher, written where XDG_CONFIG_HOME says, with the absolute git-guard and the
# home whose registry it serves; without a user session, --enable says so and that install
# already starts the watcher, and writes nothing.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

export XDG_CONFIG_HOME=$TEST_ROOT/config
UNIT=$XDG_CONFIG_HOME/systemd/user/git-guard-watch.service

section "watch --enable --no-start writes the unit and starts nothing"
run_cmd "$GUARD" watch --enable --no-start
assert_eq 0 "$RC" "watch --enable --no-start failed: $ERR"
assert_file_exists "$UNIT" "no unit file at \$XDG_CONFIG_HOME/systemd/user/git-guard-watch.service"
assert_contains "$OUT" "$UNIT" "--enable --no-start does not say where it wrote the unit"
BIN=$(cd "$(dirname "$GUARD")" && pwd -P)/git-guard
assert_contains "$(cat "$UNIT")" "ExecStart=\"$BIN\" watch --foreground" \
    "the unit does not run this git-guard, by absolute path, as watch --foreground"
assert_contains "$(cat "$UNIT")" "Environment=\"HOME=$HOME\"" \
    "the unit does not serve the registry of the home it was enabled for"
assert_contains "$(cat "$UNIT")" "Restart=on-failure" "the unit does not restart a watcher that failed"
assert_contains "$(cat "$UNIT")" "WantedBy=default.target" "the unit is not started with the user's session"
if command -v systemd-analyze >/dev/null 2>&1; then
    run_cmd systemd-analyze --man=no verify "$UNIT"
    assert_eq 0 "$RC" "systemd-analyze rejects the unit: $ERR$OUT"
fi

section "watch --disable removes it"
run_cmd "$GUARD" watch --disable
assert_eq 0 "$RC" "watch --disable failed: $ERR"
assert_no_file "$UNIT" "watch --disable left the unit file"
run_cmd "$GUARD" watch --disable
assert_eq 0 "$RC" "a second watch --disable failed: $ERR"
assert_contains "$OUT" "no watcher unit" "a --disable with nothing installed does not say so"

section "without a systemd user session, --enable says so and writes nothing"
if systemctl --user show-environment >/dev/null 2>&1; then
    echo "(a systemd user session exists here: backstop_unit_session.sh tests --enable for real)"
else
    run_cmd "$GUARD" watch --enable
    assert_ne 0 "$RC" "watch --enable succeeded without a systemd user session"
    assert_contains "$ERR" "no systemd user session" "--enable does not say that there is no systemd user session"
    assert_contains "$ERR" "install already starts the watcher" "--enable does not say that install starts the watcher"
    assert_no_file "$UNIT" "--enable without a session still wrote a unit"
fi

finish
