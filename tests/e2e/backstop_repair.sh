#!/usr/bin/env bash
# One bad save ref (DESIGN §15: "every command survives one bad ref"): a save naming an
# object that is not in the store, as a save that lost a race to a prune would, must not
# break `git guard list`, `log` or `doctor`; doctor names the fix, and the fix works.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GUARD=$GUARD_BIN_DIR/git-guard
make_clone repo
REPO=$TEST_ROOT/repo
run_cmd "$GUARD" -C "$REPO" install --shim-dir "$TEST_ROOT/shim"
"$GUARD" watch --stop >/dev/null 2>&1
git_real -C "$REPO" branch kept-work
git_real -C "$REPO" update-ref refs/heads/stranded/kept-work/20260101T000000.000Z "$(git_real -C "$REPO" rev-parse main)"
MISSING=1234567890123456789012345678901234567890
mkdir -p "$REPO/.git/refs/heads/stranded/pruned"
echo "$MISSING" >"$REPO/.git/refs/heads/stranded/pruned/20260101T000000.000Z"

section "git guard list, log and doctor survive a save naming a pruned object"
run_cmd "$GUARD" -C "$REPO" list
assert_eq 0 "$RC" "git guard list fails on one bad save ($ERR)"
assert_contains "$OUT" "kept-work" "git guard list hides the good saves behind one bad one"
assert_contains "$ERR" "git guard repair" "git guard list does not say how to remove the bad save"
run_cmd "$GUARD" -C "$REPO" list --all
assert_eq 0 "$RC" "git guard list --all fails on one bad save ($ERR)"
run_cmd "$GUARD" -C "$REPO" log
assert_eq 0 "$RC" "git guard log fails on one bad save ($ERR)"
run_cmd "$GUARD" -C "$REPO" doctor
assert_contains "$OUT" "FAIL  save_objects" "doctor does not name the save that points at a pruned object"
assert_contains "$OUT" "fix: git guard repair" "doctor's fix is not git guard repair"

section "git guard repair removes it, and journals the loss"
run_cmd "$GUARD" -C "$REPO" repair
assert_eq 0 "$RC" "git guard repair failed ($ERR)"
assert_no_ref "$REPO" refs/heads/stranded/pruned/20260101T000000.000Z "repair left the bad save"
assert_ref_exists "$REPO" refs/heads/stranded/kept-work/20260101T000000.000Z "repair removed a good save"
run_cmd git_real -C "$REPO" log --all --oneline
assert_eq 0 "$RC" "git log --all still fails after repair ($ERR)"
run_cmd git_real -C "$REPO" fsck --no-dangling
assert_eq 0 "$RC" "fsck still reports errors after repair ($ERR)"
run_cmd "$GUARD" -C "$REPO" log
assert_contains "$OUT" "repair" "the removal is not journaled"
run_cmd "$GUARD" -C "$REPO" doctor
assert_contains "$OUT" "ok    save_objects" "doctor still fails save_objects after repair"
run_cmd "$GUARD" -C "$REPO" repair
assert_contains "$OUT" "nothing to repair" "a second repair is not a no-op"

finish
