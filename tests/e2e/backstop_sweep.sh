#!/usr/bin/env bash
# The backstop's sweep (DESIGN §15): a tip deleted while no watcher ran stays in the object
# store until gc; `git guard watch --lost` shows it, and the pre-auto-gc hook and the shim's
# gc save it before gc can prune it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

guarded_clone repo

# forget_while_down REPO BRANCH: BRANCH's unpushed tip, learned by the watcher, then
# deleted by a tool (the loose ref removed) while no watcher ran. Prints the tip.
forget_while_down() {
    local tip
    "$GUARD" watch >/dev/null
    tip=$(unpushed "$1" "$2")
    wait_known "$1" "$tip" >&2
    "$GUARD" watch --stop >/dev/null
    rm -f "$1/.git/refs/heads/$2" "$1/.git/logs/refs/heads/$2" # as libgit2 deletes: the reflog too
    echo "$tip"
}

section "watch --lost shows a tip deleted while no watcher ran"
TIP=$(forget_while_down "$REPO" swept)
run_cmd "$GUARD" -C "$REPO" watch --lost
assert_contains "$OUT" "${TIP:0:12}" "watch --lost does not show the commit that lost its branch"
assert_contains "$OUT" "refs/heads/swept" "watch --lost does not say which branch it was"
assert_contains "$OUT" "vanished" "watch --lost does not say when it vanished"

section "the pre-auto-gc hook saves it before an automatic gc"
assert_file_exists "$REPO/.git/hooks/pre-auto-gc" "install placed no pre-auto-gc hook"
git_real -C "$REPO" hook run pre-auto-gc # as gc --auto runs it
if saved_at "$REPO" swept "$TIP"; then
    pass "pre-auto-gc: the lost commit is saved"
else
    fail "pre-auto-gc: the commit $TIP that lost its branch was left for gc to prune, not saved"
fi
run_cmd "$GUARD" -C "$REPO" watch --lost
assert_not_contains "$OUT" "${TIP:0:12}" "watch --lost still shows a commit that is saved"

section "a real git gc --auto runs the pre-auto-gc hook, whose sweep saves it before the prune"
TIP=$(forget_while_down "$REPO" autogc)
# Loose objects in objects/17/, where gc --auto counts them: with gc.auto=1, two are enough.
for content in $(python3 -c '
import hashlib
n, found = 0, []
while len(found) < 3:
    data = b"autogc %d\n" % n
    if hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest().startswith("17"):
        found.append(str(n))
    n += 1
print(" ".join(found))'); do
    printf 'autogc %s\n' "$content" | git_real -C "$REPO" hash-object -w --stdin >/dev/null
done
LOOSE=$(ls "$REPO/.git/objects/17" | wc -l)
run_cmd git_real -C "$REPO" -c gc.auto=1 -c gc.autoDetach=false -c gc.pruneExpire=now -c gc.reflogExpireUnreachable=now gc --auto
assert_eq 0 "$RC" "git gc --auto failed: $ERR"
assert_ne "$LOOSE" "$(ls "$REPO/.git/objects/17" 2>/dev/null | wc -l)" "git gc --auto did not run (the loose objects are all still there): nothing was tested"
if saved_at "$REPO" autogc "$TIP"; then
    pass "gc --auto: the lost commit is saved"
else
    fail "gc --auto: the commit $TIP that lost its branch was left for gc to prune, not saved by the pre-auto-gc sweep"
fi
assert_eq commit "$(git_real -C "$REPO" cat-file -t "$TIP" 2>/dev/null)" "git gc --auto pruned the lost commit $TIP"
run_cmd "$GUARD" -C "$REPO" list
assert_contains "$(grep 'stranded/autogc/' <<<"$OUT")" "unreachable before gc" "the save of autogc was not the sweep's (the pre-auto-gc hook did not save it)"

section "git gc --prune=now through the shim saves it before pruning"
TIP=$(forget_while_down "$REPO" pruned)
shim_on "$TEST_ROOT/shim"
run_cmd git -C "$REPO" gc --prune=now --quiet
shim_off
assert_eq 0 "$RC" "git gc failed: $ERR"
if saved_at "$REPO" pruned "$TIP"; then
    pass "gc --prune=now: the lost commit is saved"
else
    fail "gc --prune=now: the commit $TIP that lost its branch was pruned, not saved"
fi
assert_eq commit "$(git_real -C "$REPO" cat-file -t "$TIP" 2>/dev/null)" "gc --prune=now pruned the lost commit"
assert_eq 1 "$(saves "$REPO" pruned)" "the lost commit was saved twice (the sweep and the revived watcher)"

finish
