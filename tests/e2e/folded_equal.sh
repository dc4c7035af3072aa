#!/usr/bin/env bash
# A save folded onto a chain still counts as a save (issue 20): the same work saved again
# is found on the chain instead of being saved twice, and commits a folded in-place save
# keeps are not kept a second time.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GUARD=$GUARD_BIN_DIR/git-guard
R=$TEST_ROOT/eq
new_repo "$R"
commit_file "$R" a.txt a
git_real -C "$R" config guard.enabled true
install_hook "$R"
shim_on

saves() { "$GUARD" -C "$R" list --all --json | grep -c '"ref"' || true; }

section "the same uncommitted work, saved again after its save was folded"
printf 'dirty\n' >>"$R/a.txt"
run_cmd "$GUARD" -C "$R" save "$R"
assert_eq 0 "$RC" "the first save failed: $ERR"
run_cmd "$GUARD" -C "$R" fold --keep 0
assert_eq 0 "$(git_real -C "$R" for-each-ref refs/heads/stranded/ | grep -c . || true)" "fold --keep 0 folds the save onto the archive"
assert_eq 1 "$(saves)" "the folded save is listed"
run_cmd "$GUARD" -C "$R" save "$R"
assert_eq 0 "$RC" "the second save failed: $ERR"
assert_contains "$OUT$ERR" "already holds its work" "the second save of the same work does not name the folded save"
assert_eq 1 "$(saves)" "the same work was saved twice: once folded, once again"
FOLDED=$("$GUARD" -C "$R" list --all --json | jq -r .ref)
run_cmd "$GUARD" -C "$R" drop "$FOLDED"
assert_eq 0 "$RC" "drop of the folded save failed: $ERR"
run_cmd "$GUARD" -C "$R" save "$R"
assert_eq 1 "$(saves)" "after the folded save was dropped, the same work was not saved again: it is in no listed save"
git_real -C "$R" checkout -q -- a.txt

section "commits an in-place save keeps, kept again after that save was folded"
git_real -C "$R" checkout -q --detach
commit_file "$R" only.txt "only here"
ONLY=$(git_real -C "$R" rev-parse HEAD)
git -C "$R" reset -q --hard HEAD~1 2>/dev/null
assert_eq 2 "$(saves)" "the commit that reset --hard leaves on no ref was not saved"
run_cmd "$GUARD" -C "$R" fold --keep 0
assert_eq 0 "$(git_real -C "$R" for-each-ref refs/stranded/eq/ | grep -c . || true)" "fold --keep 0 folds the in-place save onto its tree's chain"
git_real -C "$R" checkout -q "$ONLY"
git -C "$R" reset -q --hard HEAD~1 2>/dev/null
assert_eq 2 "$(saves)" "the commit already kept by a folded save was saved a second time"
assert_eq "only here" "$(git_real -C "$R" show "$ONLY:only.txt" 2>/dev/null)" "the commit is lost"

finish
