#!/usr/bin/env bash
# Ref packing moves no ref, but git prunes each packed loose ref in a transaction of its
# own and starts the reference-transaction hook for each (issue 20: pack-refs --all of 2,000
# branches 40 s with the hook, 1 s without). Through the shim, `pack-refs`, `refs optimize`
# and `gc` run with hooks off when the only hook git would run is ours; every ref keeps its
# value. When another hook would run (one chained behind ours, one in `hook.*`), git runs
# it as always, and `gc --auto` keeps its pre-auto-gc hook.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# hook_runs TRACE: how many times git started the reference-transaction hook.
hook_runs() {
    grep -c '"event":"child_start".*"hook_name":"reference-transaction"' "$1" || true
}

# many_branches REPO N: N loose branches b1..bN, each on a commit of its own with a file
# no other commit has (unpushed work a deletion must save).
many_branches() {
    local i blob tree head commit
    head=$(git_real -C "$1" rev-parse HEAD)
    for ((i = 1; i <= $2; i++)); do
        blob=$(echo "b$i $RANDOM" | git_real -C "$1" hash-object -w --stdin)
        tree=$(printf '100644 blob %s\tb%s.txt\n' "$blob" "$i" | git_real -C "$1" mktree)
        commit=$(git_real -C "$1" commit-tree "$tree" -p "$head" -m "b$i")
        git_real -C "$1" -c core.hooksPath=/dev/null update-ref "refs/heads/b$i" "$commit"
    done
}

R=$TEST_ROOT/repo
make_clone repo
git_real -C "$R" config guard.enabled true
install_hook "$R"
many_branches "$R" 30
shim_on
BEFORE=$(git_real -C "$R" for-each-ref --format='%(objectname) %(refname)')

section "pack-refs --all with our hook alone runs no hook, and every ref keeps its value"
run_cmd env GIT_TRACE2_EVENT="$TEST_ROOT/pack.trace" git -C "$R" pack-refs --all
assert_eq 0 "$RC" "pack-refs succeeds: $ERR"
assert_eq 0 "$(hook_runs "$TEST_ROOT/pack.trace")" "git started the hook once per pruned ref"
assert_eq "$BEFORE" "$(git_real -C "$R" for-each-ref --format='%(objectname) %(refname)')" \
    "a ref lost or changed its value in pack-refs"
assert_eq "" "$(find "$R/.git/refs/heads" -type f)" "pack-refs left loose branches: it did not pack"
assert_contains "$(cat "$R/.git/packed-refs")" "refs/heads/b30" "b30 was not packed"

section "a branch deletion after packing is still guarded by the hook"
run_cmd git -C "$R" branch -D b30
assert_eq 0 "$RC" "branch -D succeeds: $ERR"
assert_ne "" "$(git_real -C "$R" for-each-ref --format=%\(refname\) 'refs/heads/stranded/b30/')" \
    "the unpushed b30 was deleted without a save: the hook was left off after packing"

section "git gc with our hook alone runs no hook"
many_branches "$R" 10 # b1..b10 anew: loose again
run_cmd env GIT_TRACE2_EVENT="$TEST_ROOT/gc.trace" git -C "$R" gc -q
assert_eq 0 "$RC" "gc succeeds: $ERR"
assert_eq 0 "$(hook_runs "$TEST_ROOT/gc.trace")" "git gc started the hook for its pack-refs"
assert_eq "" "$(find "$R/.git/refs/heads" -type f)" "gc left loose branches"

section "a hook chained behind ours still runs for every packed ref"
C=$TEST_ROOT/chained
make_clone chained
git_real -C "$C" config guard.enabled true
install_hook "$C"
cat >"$C/.git/hooks/reference-transaction.guard-chained" <<EOF
#!/bin/sh
echo "\$1" >>"$TEST_ROOT/chained.log"
cat >/dev/null
EOF
chmod +x "$C/.git/hooks/reference-transaction.guard-chained"
many_branches "$C" 5
run_cmd env GIT_TRACE2_EVENT="$TEST_ROOT/chained.trace" git -C "$C" pack-refs --all
assert_eq 0 "$RC" "pack-refs succeeds: $ERR"
assert_ne 0 "$(hook_runs "$TEST_ROOT/chained.trace")" "the hook with one chained behind it was switched off"
assert_file_exists "$TEST_ROOT/chained.log" "the chained hook never ran for pack-refs"

section "a hook in the configuration (hook.*) keeps the hooks on"
H=$TEST_ROOT/configured
make_clone configured
git_real -C "$H" config guard.enabled true
git_real -C "$H" config hook.audit.event reference-transaction
git_real -C "$H" config hook.audit.command true
install_hook "$H"
many_branches "$H" 5
run_cmd env GIT_TRACE2_EVENT="$TEST_ROOT/configured.trace" git -C "$H" pack-refs --all
assert_eq 0 "$RC" "pack-refs succeeds: $ERR"
assert_ne 0 "$(hook_runs "$TEST_ROOT/configured.trace")" "hooks were switched off though hook.audit is configured"

section "gc --auto keeps its hooks (pre-auto-gc)"
A=$TEST_ROOT/auto
make_clone auto
git_real -C "$A" config guard.enabled true
git_real -C "$A" config gc.auto 6700 # the suites' global configuration says 0: never
git_real -C "$A" config gc.autoPackLimit 1 # two packs: gc --auto has work to do
install_hook "$A"
cat >"$A/.git/hooks/pre-auto-gc" <<EOF
#!/bin/sh
touch "$TEST_ROOT/pre-auto-gc.ran"
exit 1
EOF
chmod +x "$A/.git/hooks/pre-auto-gc"
for i in 1 2; do
    git_real -C "$A" -c core.hooksPath=/dev/null commit -q --allow-empty -m "pack $i"
    git_real -C "$A" repack -q
done
run_cmd git -C "$A" gc --auto
assert_file_exists "$TEST_ROOT/pre-auto-gc.ran" "gc --auto ran without its pre-auto-gc hook"

finish
