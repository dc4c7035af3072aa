#!/usr/bin/env bash
# `git maintenance start` with the shim first on PATH (issue 16, item 9): the crontab line
# and the systemd unit git writes name "<exec path>/git --exec-path=<exec path>". They
# must name the real git's exec path, as without the shim, never the shim's internal
# exec-path mirror (which moves with git-guard and ties every scheduled run to it).
# Schedulers are faked as git's own t7900 does (GIT_TEST_MAINT_SCHEDULER): nothing on
# the machine is touched. In a guarded repository and in an unguarded one alike.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

real_exec=$(git_real --exec-path)

# A crontab that keeps its table in $TEST_ROOT/cron.txt (as t7900's test-tool crontab).
cat >"$TEST_ROOT/fake-crontab" <<'EOF'
#!/bin/sh
if [ "$2" = -l ]; then
    [ -f "$1" ] && cat "$1"
    exit 0
fi
cat "$2" >"$1"
EOF
cat >"$TEST_ROOT/print-args" <<'EOF'
#!/bin/sh
printf '%s\n' "$*" >>"$TEST_ROOT/systemctl.args"
EOF
chmod +x "$TEST_ROOT/fake-crontab" "$TEST_ROOT/print-args"

shim_on

for kind in guarded plain; do
    section "maintenance start ($kind repository): the crontab names the real git"
    repo=$TEST_ROOT/$kind
    new_repo "$repo"
    [ "$kind" = guarded ] && git_real -C "$repo" config guard.enabled true && install_hook "$repo"
    rm -f "$TEST_ROOT/cron.txt"
    run_cmd env GIT_TEST_MAINT_SCHEDULER="crontab:$TEST_ROOT/fake-crontab $TEST_ROOT/cron.txt" \
        git -C "$repo" maintenance start --scheduler=crontab
    assert_eq 0 "$RC" "maintenance start succeeds: $ERR"
    cron=$(cat "$TEST_ROOT/cron.txt" 2>/dev/null)
    assert_contains "$cron" "\"$real_exec/git\" --exec-path=\"$real_exec\"" \
        "the crontab runs the real git from its own exec path"
    assert_not_contains "$cron" "exec-path/" "the crontab names the shim's exec-path mirror"
    git_real -C "$repo" maintenance unregister 2>/dev/null

    section "maintenance start ($kind repository): the systemd unit names the real git"
    export XDG_CONFIG_HOME=$TEST_ROOT/xdg-$kind
    run_cmd env GIT_TEST_MAINT_SCHEDULER="systemctl:$TEST_ROOT/print-args" \
        git -C "$repo" maintenance start --scheduler=systemd-timer
    assert_eq 0 "$RC" "maintenance start succeeds: $ERR"
    unit=$(cat "$XDG_CONFIG_HOME/systemd/user/git-maintenance@.service" 2>/dev/null)
    assert_contains "$unit" "\"$real_exec/git\" --exec-path=\"$real_exec\"" \
        "the systemd unit runs the real git from its own exec path"
    assert_not_contains "$unit" "exec-path/" "the systemd unit names the shim's exec-path mirror"
    unset XDG_CONFIG_HOME
    git_real -C "$repo" maintenance unregister 2>/dev/null
done

section "git's other calls still get the mirror: a shell alias's git is the shim"
repo=$TEST_ROOT/guarded
git_real -C "$repo" config alias.whichgit '!sh -c "command -v git"'
run_cmd git -C "$repo" whichgit
assert_contains "$OUT" "exec-path/" "a shell alias runs git from the mirror (the shim), as before"

finish
