#!/usr/bin/env bash
# Packs stay few (issue 35 item 3): every removal save writes a pack (fast-import), and
# `worktree remove` never runs git's gc --auto, so packs piled up (668 after 2,000
# operations) and slowed every git command. A save that finds k_pack_limit (25) packs rolls
# the small ones together; every save stays whole.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

make_clone repo
REPO=$TEST_ROOT/repo
git_real -C "$REPO" config guard.enabled true
install_hook "$REPO"
shim_on

# 40 by default (past the threshold once and a half); GUARD_PACKS_REMOVALS=200 is issue
# 35's count, run by hand (bench/README.md, round 18): a minute more than the suite affords.
N=${GUARD_PACKS_REMOVALS:-40}
section "$N guarded removals of dirty trees leave fewer than 25 packs, every save whole"
packs() { find "$REPO/.git/objects/pack" -name '*.pack' | wc -l; }
for i in $(seq 1 "$N"); do
    git_real -C "$REPO" worktree add -q --detach "$TEST_ROOT/t$i" main
    printf 'work of tree %s\n' "$i" >"$TEST_ROOT/t$i/w$i.txt"
    git -C "$REPO" worktree remove --force "$TEST_ROOT/t$i" 2>/dev/null ||
        fail "worktree remove --force of t$i failed"
done
n=$(packs)
printf '  info %s packs after %s removal saves\n' "$n" "$N"
[ "$n" -lt 25 ] && pass "the removal saves left $n packs (< 25)" ||
    fail "$N removal saves left $n packs: nothing gathers them"
lost=""
for i in $(seq 1 "$N"); do
    # Past guard.keepBranches (50) the older saves are folded onto a chain: any save ref,
    # or chain, that reaches a commit holding the tree's file keeps it.
    kept=""
    for commit in $(git_real -C "$REPO" log --all --full-history --format=%H -- "w$i.txt"); do
        [ "$(git_real -C "$REPO" show "$commit:w$i.txt" 2>/dev/null)" = "work of tree $i" ] && { kept=1; break; }
    done
    [ -n "$kept" ] || lost="$lost t$i"
done
assert_eq "" "$lost" "the untracked file of these removed trees was lost, not in their save, after the packs were gathered"
run_cmd git_real -C "$REPO" fsck --no-dangling --connectivity-only
assert_eq 0 "$RC" "git fsck fails after the packs were gathered ($ERR)"
shim_off
finish
