#!/usr/bin/env bash
# A mirror's bundles are saves like any other (issue 19, DESIGN §4.2 and §13). In a guarded
# `clone --mirror`, `fetch --prune` keeps what it deletes in <common>/guard/bundles/; each
# branch kept there is listed (branch, time, reason, bundle path), journaled when made,
# shown with its commits, counted by doctor, restored by the handle list prints (refused
# when the branch exists), and dropped, the file going with its last save.
source "$(dirname "$0")/lib.sh"
PATH=$GUARD_BIN_DIR:$PATH

ORIGIN=$TEST_ROOT/origin.git
MIRROR=$TEST_ROOT/mirror.git
SEED=$TEST_ROOT/seed
new_repo "$SEED"
git_real init -q --bare "$ORIGIN"
declare -A TIPS
for b in solo pair1 pair2; do
    git_real -C "$SEED" checkout -q -b "$b" main
    commit_file "$SEED" "$b.txt" "$b's work"
    TIPS[$b]=$(git_real -C "$SEED" rev-parse HEAD)
    git_real -C "$SEED" checkout -q main
done
git_real -C "$SEED" push -q "$ORIGIN" 'refs/heads/*:refs/heads/*'
git_real clone -q --mirror "$ORIGIN" "$MIRROR"
ln -s "$GUARD_BIN_DIR/git-guard-hook" "$MIRROR/hooks/reference-transaction"
git_real -C "$MIRROR" config guard.enabled true

# prune BRANCH...: origin deletes them, the mirror fetches with --prune.
prune() {
    local b
    for b in "$@"; do git_real -C "$ORIGIN" update-ref -d "refs/heads/$b"; done
    run_cmd git_real -C "$MIRROR" fetch -q --prune
    assert_eq 0 "$RC" "fetch --prune of $* succeeds ($ERR)"
}
# handle BRANCH: the handle git guard list prints for BRANCH's bundled save.
handle() {
    git guard -C "$MIRROR" list --json | jq -r --arg b "$1" 'select(.branch == $b and .bundle != null) | .ref' | head -1
}

section "a pruned branch's bundle is listed, with its branch, time, reason and bundle path"
prune solo
BUNDLE=$(ls "$MIRROR"/guard/bundles/*.bundle 2>/dev/null | head -1)
assert_file_exists "$BUNDLE" "fetch --prune kept no bundle: solo's commit is lost"
run_cmd git guard -C "$MIRROR" list
assert_contains "$OUT" "branch solo" "git guard list does not show the save of solo kept in a bundle"
assert_contains "$OUT" "$BUNDLE" "git guard list does not name the bundle holding solo's save"
assert_contains "$OUT" "branch delete" "git guard list does not say why solo was saved"
H=$(handle solo)
assert_eq "bundles/$(basename "$BUNDLE" .bundle)/solo" "$H" "the bundled save has no handle of its own"
assert_eq "${TIPS[solo]}" "$(git guard -C "$MIRROR" list --json | jq -r --arg h "$H" 'select(.ref == $h) | .commit')" \
    "the listed save does not point at solo's tip"

section "the save is in the journal from the moment it was made"
run_cmd git guard -C "$MIRROR" log --json
assert_eq "${TIPS[solo]}" "$(printf '%s\n' "$OUT" | jq -r --arg h "$H" 'select(.kind == "save" and .ref == $h) | .commit')" \
    "git guard log has no record of the save kept in the bundle"

section "show names the bundle and the commits it holds"
run_cmd git guard -C "$MIRROR" show "$H"
assert_eq 0 "$RC" "git guard show of a bundled save works ($ERR)"
assert_contains "$OUT" "$BUNDLE" "show does not name the bundle"
assert_contains "$OUT" "${TIPS[solo]}" "show does not name the save's tip"
run_cmd git guard -C "$MIRROR" show --json "$H"
assert_contains "$(printf '%s' "$OUT" | jq -r '.commits[]')" "${TIPS[solo]}" "show --json does not list solo's unique commit"

section "doctor counts the bundled saves"
run_cmd git guard -C "$MIRROR" doctor
assert_contains "$OUT" "1 in a mirror's bundles" "doctor does not count the save kept in a bundle"

section "restore by the handle list printed brings the branch back at its tip"
run_cmd git guard -C "$MIRROR" restore "$H"
assert_eq 0 "$RC" "restore of a bundled save exits 0 ($ERR)"
assert_eq "${TIPS[solo]}" "$(git_real -C "$MIRROR" rev-parse -q --verify refs/heads/solo)" \
    "restore did not recreate solo at its tip: its commits stay lost"
run_cmd git guard -C "$MIRROR" restore "$H"
assert_eq 1 "$RC" "restore over the existing branch solo exits 1"
assert_contains "$ERR" "exists" "the refusal does not say the branch exists"
run_cmd git guard -C "$MIRROR" log --json
assert_contains "$(printf '%s\n' "$OUT" | jq -r 'select(.kind == "restore") | .ref')" "$H" "the restore is not in the journal"
# The branch goes again without a save: its commits are in the bundle already.
git_real -C "$MIRROR" -c core.hooksPath=/dev/null update-ref -d refs/heads/solo

section "a bundle of two branches: two saves, one handle each"
prune pair1 pair2
H1=$(handle pair1)
H2=$(handle pair2)
assert_ne "" "$H1" "pair1's save is not listed"
assert_ne "" "$H2" "pair2's save is not listed"
PAIR=$(git guard -C "$MIRROR" list --json | jq -r --arg h "$H1" 'select(.ref == $h) | .bundle')
run_cmd git guard -C "$MIRROR" restore "$PAIR"
assert_eq 1 "$RC" "restore by a bundle of two saves is refused as ambiguous"
assert_contains "$ERR" "$H2" "the refusal does not name the saves the bundle holds"

section "drop lets one save go; the bundle goes with its last"
run_cmd git guard -C "$MIRROR" drop "$H1"
assert_eq 0 "$RC" "drop of a bundled save works ($ERR)"
assert_eq "" "$(handle pair1)" "the dropped save is still listed"
assert_eq "$H2" "$(handle pair2)" "dropping pair1 lost pair2's save too"
assert_file_exists "$PAIR" "dropping one save deleted the bundle holding another"
run_cmd git guard -C "$MIRROR" restore "$H2"
assert_eq 0 "$RC" "the other save of the bundle still restores ($ERR)"
assert_eq "${TIPS[pair2]}" "$(git_real -C "$MIRROR" rev-parse -q --verify refs/heads/pair2)" "pair2 did not come back at its tip"
run_cmd git guard -C "$MIRROR" drop "$H2"
assert_no_file "$PAIR" "the bundle stayed after its last save was dropped"
run_cmd git guard -C "$MIRROR" drop "$H"
assert_no_file "$BUNDLE" "the bundle of solo stayed after its save was dropped"
assert_eq "" "$(git guard -C "$MIRROR" list --json | jq -r 'select(.bundle != null) | .ref')" "a dropped bundled save is still listed"
run_cmd git guard -C "$MIRROR" log --json
DROPS=$(printf '%s\n' "$OUT" | jq -r 'select(.kind == "drop") | .ref')
for h in "$H" "$H1" "$H2"; do assert_contains "$DROPS" "$h" "the drop of $h is not in the journal"; done

finish
