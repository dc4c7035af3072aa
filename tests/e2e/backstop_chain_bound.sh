#!/usr/bin/env bash
# Tree chains stay few however many uniquely named trees were saved (DESIGN §13):
#   - guard.keepBranches=3, nine linked trees of their own names, each with an in-place
#     save, each removed: at most 3 tree chains stay, the others folded into the archive;
#   - every save of a folded tree chain is still listed, shown, restored and dropped by
#     its handle; a save dropped while on its tree chain stays dropped;
#   - the chain of a tree git still lists is never folded;
#   - `git guard fold --keep N` bounds the tree chains too;
#   - the repository stays whole (fsck, log --all).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GUARD=$GUARD_BIN_DIR/git-guard

tree_chains() { git_real -C "$1" for-each-ref --format='%(refname)' refs/stranded/chain/tree/; }
count_lines() { grep -c . || true; }
listed() { "$GUARD" -C "$1" list --all --json; }
# handle_of REPO TREE: the handle of TREE's save, as the listing shows it.
handle_of() { listed "$1" | grep -o "\"ref\":\"refs/stranded/$2/[^\"]*\"" | cut -d'"' -f4 | head -1; }

R=$TEST_ROOT/repo
new_repo "$R"
commit_file "$R" f "committed"
git_real -C "$R" config guard.enabled true
git_real -C "$R" config guard.keepBranches 3
install_hook "$R"
shim_on

section "nine uniquely named trees, each saved in place and removed, with guard.keepBranches=3"
# A tree that stays: its chain is never folded, however old.
git -C "$R" worktree add -q --detach "$TEST_ROOT/stays" 2>/dev/null
printf 'work of stays\n' >"$TEST_ROOT/stays/f"
git -C "$TEST_ROOT/stays" checkout -- f 2>/dev/null
"$GUARD" -C "$R" fold --keep 0 >/dev/null # puts the save of "stays" on its chain, the oldest of all
assert_eq "refs/stranded/chain/tree/stays" "$(tree_chains "$R")" "the save of the tree that stays is on its chain"
DROPPED=
DROPPED_COMMIT=
for i in $(seq 1 9); do
    git -C "$R" worktree add -q --detach "$TEST_ROOT/tree-$i" 2>/dev/null
    printf 'work of tree %s\n' "$i" >"$TEST_ROOT/tree-$i/f"
    git -C "$TEST_ROOT/tree-$i" checkout -- f 2>/dev/null
    assert_eq "committed" "$(cat "$TEST_ROOT/tree-$i/f")" "checkout -- f ran in tree-$i"
    git -C "$R" worktree remove "$TEST_ROOT/tree-$i" 2>/dev/null
    if [ -z "$DROPPED" ] && [ -n "$(git_real -C "$R" for-each-ref refs/stranded/chain/tree/tree-1)" ]; then
        # Dropped while its tree's chain holds it: a drop link on that chain.
        DROPPED=$(handle_of "$R" tree-1)
        DROPPED_COMMIT=$(git_real -C "$R" rev-parse refs/stranded/chain/tree/tree-1^2)
        run_cmd "$GUARD" -C "$R" drop "$DROPPED"
        assert_eq 0 "$RC" "the save of tree-1 is dropped from its tree's chain: $ERR"
    fi
done
assert_ne "" "$DROPPED" "the save of tree-1 was on its tree's chain before the trees were many"

CHAINS=$(tree_chains "$R")
assert_within 1 3 "$(printf '%s\n' "$CHAINS" | count_lines)" \
    "at most guard.keepBranches (3) tree chains stay (chains: $(echo $CHAINS))"
assert_contains "$CHAINS" "refs/stranded/chain/tree/stays" "the chain of a tree git still lists is never folded"
assert_ref_exists "$R" refs/stranded/chain/archive "the folded tree chains' saves are on the archive chain"

section "every save of a folded tree chain is still listed, shown and restorable"
LIST=$(listed "$R")
for i in $(seq 2 9); do
    assert_contains "$LIST" "\"ref\":\"refs/stranded/tree-$i/" "save of tree tree-$i no longer listed after the fold"
done
assert_contains "$LIST" "\"ref\":\"refs/stranded/stays/" "save of tree stays no longer listed after the fold"
assert_not_contains "$LIST" "\"ref\":\"$DROPPED\"" "the save of tree-1, dropped before the fold, is listed again"
run_cmd git_real -C "$R" merge-base --is-ancestor "$DROPPED_COMMIT" refs/stranded/chain/archive
assert_eq 0 "$RC" "the dropped save of tree-1 is no longer reachable from the archive chain (a drop keeps the content)"
assert_eq 9 "$(printf '%s\n' "$LIST" | grep -o '"ref":"[^"]*"' | sort -u | count_lines)" \
    "each of the 9 saves is listed once (8 removed trees' and the one that stays)"
assert_eq "" "$(git_real -C "$R" for-each-ref refs/stranded/chain/tree/tree-2)" "the chain of tree-2 was folded"
H2=$(handle_of "$R" tree-2)
run_cmd "$GUARD" -C "$R" show "$H2"
assert_eq 0 "$RC" "show takes the folded save of tree-2 by its handle: $ERR"
assert_contains "$OUT" "tree-2" "show says the save of tree-2 came from tree-2"
run_cmd "$GUARD" -C "$R" restore "$H2"
assert_eq 0 "$RC" "restore takes the folded save of tree-2 by its handle: $ERR"
assert_eq "work of tree 2" "$(cat "$TEST_ROOT/tree-2/f" 2>/dev/null)" \
    "the work of tree-2 is restored from its folded save (the save's content was lost)"

section "drop of a save folded with its tree's chain"
H3=$(handle_of "$R" tree-3)
run_cmd "$GUARD" -C "$R" drop "$H3"
assert_eq 0 "$RC" "drop takes the folded save of tree-3: $ERR"
assert_not_contains "$(listed "$R")" "\"ref\":\"$H3\"" "the dropped save of tree-3 is still listed"
assert_eq "" "$(git_real -C "$R" for-each-ref refs/stranded/chain/tree/tree-3)" \
    "dropping a folded save makes no tree chain again"
assert_contains "$(listed "$R")" "\"ref\":\"refs/stranded/tree-4/" "save of tree tree-4 no longer listed after the drop"

section "git guard fold bounds the tree chains exactly"
for i in $(seq 10 12); do
    git -C "$R" worktree add -q --detach "$TEST_ROOT/tree-$i" 2>/dev/null
    printf 'work of tree %s\n' "$i" >"$TEST_ROOT/tree-$i/f"
    git -C "$TEST_ROOT/tree-$i" checkout -- f 2>/dev/null
    git -C "$R" worktree remove "$TEST_ROOT/tree-$i" 2>/dev/null
done
rm -f "$R/.git/guard/chains.index" # deleting the index is always safe
run_cmd "$GUARD" -C "$R" fold --keep 1
assert_eq 0 "$RC" "git guard fold --keep 1 folds: $ERR"
# tree-2 was restored (git lists it again) but has no chain: only the chain of "stays" stays.
assert_eq "refs/stranded/chain/tree/stays" "$(tree_chains "$R")" \
    "fold --keep 1 folds every chain of a tree that is gone and keeps the one git lists"
LIST=$(listed "$R")
for i in 2 4 5 6 7 8 9 10 11 12; do
    assert_contains "$LIST" "\"ref\":\"refs/stranded/tree-$i/" "save of tree tree-$i no longer listed after the fold"
done
assert_not_contains "$LIST" "\"ref\":\"$DROPPED\"" "the save of tree-1, dropped before the folds, is listed again"
assert_not_contains "$LIST" "\"ref\":\"$H3\"" "the save of tree-3, dropped after the fold, is listed again"

section "the repository stays whole"
run_cmd git_real -C "$R" fsck --no-progress
assert_eq 0 "$RC" "git fsck is clean after the folds: $ERR"
assert_not_contains "$OUT$ERR" "missing" "git fsck finds no missing object"
run_cmd git_real -C "$R" log --all --oneline
assert_eq 0 "$RC" "git log --all works over the folded chains: $ERR"

finish
