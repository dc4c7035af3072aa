#!/usr/bin/env bash
# The orchestrator sequence git-guard generalises (LESSONS 2): a board removes an
# agent's tree with `git worktree remove --force T && git branch -D B`, then rebuilds
# it with `git worktree add -B B T origin/main`. With the shim first on PATH and the
# hook installed, all of the tree's work (uncommitted changes AND the unpushed commit
# on B) ends up on stranded branches, and the rebuild works at the same path, round
# after round. A control shows the same sequence without git-guard loses everything.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

count() {
    if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | grep -c .; fi
}

# agent_works TREE ROUND: the agent commits once (unpushed) and leaves uncommitted work.
agent_works() {
    commit_file "$1" "committed-$2.txt" "committed in round $2" "agent commit, round $2"
    printf 'a\nedited in round %s\n' "$2" >"$1/a.txt"
    mkdir -p "$1/notes"
    printf 'untracked in round %s\n' "$2" >"$1/notes/round-$2.txt"
    printf 'staged in round %s\n' "$2" >"$1/staged-$2.txt"
    git_real -C "$1" add "staged-$2.txt"
}

# assert_saved PATH CONTENT MESSAGE: some stranded branch of $REPO holds PATH with CONTENT.
assert_saved() {
    local ref
    for ref in $(git_real -C "$REPO" for-each-ref --format='%(refname)' refs/heads/stranded/); do
        if [ "$(git_real -C "$REPO" show "$ref:$1" 2>/dev/null)" = "$2" ]; then
            pass "$3"
            return
        fi
    done
    fail "$3"
}

make_clone repo
REPO=$TEST_ROOT/repo
T=$TEST_ROOT/trees/card-42
B=card/42
git_real -C "$REPO" config guard.enabled true
install_hook "$REPO"
shim_on
cd "$REPO" || exit 1
git worktree add -q -B "$B" "$T" origin/main

for round in 1 2 3; do
    section "round $round: remove --force T && branch -D B keeps all of the work"
    agent_works "$T" "$round"
    commit=$(git_real -C "$T" rev-parse HEAD)
    assert_eq "" "$(git_real branch -r --contains "$commit")" "round $round: the agent's commit is unpushed"
    before=$(git_real for-each-ref --format='%(refname)' refs/heads/stranded/ | grep -c . || true)
    git worktree remove --force "$T" 2>"$TEST_ROOT/remove.err" && git branch -D "$B" >/dev/null 2>"$TEST_ROOT/delete.err"
    assert_eq 0 "$?" "round $round: the sequence succeeds ($(cat "$TEST_ROOT/remove.err" "$TEST_ROOT/delete.err"))"
    assert_no_file "$T" "round $round: the tree is gone"
    assert_no_ref "$REPO" "refs/heads/$B" "round $round: the branch is gone"
    after=$(git_real for-each-ref --format='%(refname)' refs/heads/stranded/ | grep -c . || true)
    assert_ne "$before" "$after" "round $round: at least one stranded branch was made"
    assert_ne "" "$(git_real for-each-ref --contains "$commit" refs/heads/stranded/)" \
        "round $round: the unpushed commit was lost, not saved (no stranded branch contains it)"
    assert_saved "committed-$round.txt" "committed in round $round" \
        "round $round: the committed file was lost, not saved"
    assert_saved a.txt "$(printf 'a\nedited in round %s' "$round")" \
        "round $round: the modification of a.txt was destroyed, not saved"
    assert_saved "notes/round-$round.txt" "untracked in round $round" \
        "round $round: the untracked file was destroyed, not saved"
    assert_saved "staged-$round.txt" "staged in round $round" \
        "round $round: the staged file was destroyed, not saved"
    assert_contains "$(cat "$TEST_ROOT/remove.err")" "stranded/card-42/" \
        "round $round: the removal names the stranded branch of the tree"

    section "round $round: git worktree add -B B T origin/main rebuilds at the same path"
    run_cmd git worktree add -q -B "$B" "$T" origin/main
    assert_eq 0 "$RC" "round $round: the rebuild succeeds ($ERR)"
    assert_eq "$(git_real rev-parse origin/main)" "$(git_real -C "$T" rev-parse HEAD 2>&1)" \
        "round $round: the rebuilt tree is at origin/main"
    assert_eq "$B" "$(git_real -C "$T" symbolic-ref --short HEAD 2>&1)" "round $round: the rebuilt tree is on $B"
    assert_eq "" "$(git_real -C "$T" status --porcelain 2>&1)" "round $round: the rebuilt tree is clean"
    assert_eq "$after" "$(git_real for-each-ref --format='%(refname)' refs/heads/stranded/ | grep -c . || true)" \
        "round $round: the rebuild saved nothing"
done

section "round 4: only an unpushed commit (clean tree): branch -D's hook saves it"
commit_file "$T" committed-4.txt "committed in round 4" "agent commit, round 4"
commit=$(git_real -C "$T" rev-parse HEAD)
git worktree remove --force "$T" 2>"$TEST_ROOT/remove.err" && git branch -D "$B" >/dev/null 2>"$TEST_ROOT/delete.err"
assert_eq 0 "$?" "round 4: the sequence succeeds"
assert_eq "" "$(cat "$TEST_ROOT/remove.err")" "round 4: the clean tree's removal saved nothing (its branch held the commit)"
assert_contains "$(cat "$TEST_ROOT/delete.err")" "stranded/card/42/" "round 4: branch -D saved the branch as stranded/card/42/<stamp>"
assert_ne "" "$(git_real for-each-ref --contains "$commit" refs/heads/stranded/)" \
    "round 4: the unpushed commit was lost, not saved, when the branch was deleted"
run_cmd git worktree add -q -B "$B" "$T" origin/main
assert_eq 0 "$RC" "round 4: the rebuild succeeds ($ERR)"

section "the stranded branches of three rounds are all distinct and intact"
for round in 1 2 3; do
    assert_saved "notes/round-$round.txt" "untracked in round $round" \
        "after three rounds, round $round's untracked file is still saved (never overwritten)"
done

section "control: the same sequence without git-guard loses everything"
make_clone twin
shim_off
cd "$TEST_ROOT/twin" || exit 1
git_real worktree add -q -B "$B" "$TEST_ROOT/twin-tree" origin/main
agent_works "$TEST_ROOT/twin-tree" 1
lost=$(git_real -C "$TEST_ROOT/twin-tree" rev-parse HEAD)
git worktree remove --force "$TEST_ROOT/twin-tree" && git branch -D "$B" >/dev/null
assert_eq "" "$(git_real for-each-ref --contains "$lost")" "control: git alone leaves the agent's commit on no ref"
assert_no_file "$TEST_ROOT/twin-tree" "control: git alone destroyed the uncommitted work"

finish
