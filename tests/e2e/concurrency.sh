#!/usr/bin/env bash
# One lock per tree path, across processes (DESIGN §7, LESSONS 9): eight processes
# that remove one tree at once through the shim produce exactly one save and one
# removal; the others get git's own answer for a tree that is gone. The same holds
# when the shim races `git guard remove`, for a detached tree whose only work is a
# commit, and for eight `git branch -D` of one branch through the hook. Every race
# runs under `timeout 120`: a deadlock or a hang fails the suite instead of stalling it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RACERS=8

count() {
    if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | grep -c .; fi
}

# race NAME COMMAND...: runs COMMAND in $RACERS processes released at once (cwd $REPO),
# the whole race bounded by `timeout 120`. Each racer's exit code, stdout and stderr
# land in $TEST_ROOT/race/NAME/<n>.{rc,out,err}. Sets RACE_RC (124: it hung).
# With $ALT_COMMAND set (shell words), the odd-numbered racers run it instead.
race() {
    local name=$1 dir=$TEST_ROOT/race/$1
    shift
    mkdir -p "$dir"
    {
        printf 'cd %q || exit 1\n' "$REPO"
        printf 'for n in $(seq 1 %d); do\n' "$RACERS"
        printf '  (\n'
        printf '    while [ ! -e %q ]; do sleep 0.002; done\n' "$dir/go"
        if [ -n "${ALT_COMMAND:-}" ]; then
            printf '    if [ $((n %% 2)) -eq 1 ]; then %s; else %s; fi >%q/$n.out 2>%q/$n.err\n' \
                "$ALT_COMMAND" "$(printf '%q ' "$@")" "$dir" "$dir"
        else
            printf '    %s >%q/$n.out 2>%q/$n.err\n' "$(printf '%q ' "$@")" "$dir" "$dir"
        fi
        printf '    echo $? >%q/$n.rc\n' "$dir"
        printf '  ) &\n'
        printf 'done\n'
        printf 'sleep 0.2\ntouch %q\nwait\n' "$dir/go"
    } >"$dir/race.sh"
    local start=$SECONDS
    timeout 120 bash "$dir/race.sh"
    RACE_RC=$?
    assert_ne 124 "$RACE_RC" "$name: the race finished within 120 s (no deadlock, no hang; took $((SECONDS - start)) s)"
    assert_eq "$RACERS" "$(ls "$dir" | grep -c '\.rc$')" "$name: every racer finished"
}

# exits NAME CODE: how many racers of NAME exited with CODE.
exits() {
    cat "$TEST_ROOT/race/$1"/*.rc 2>/dev/null | grep -cx "$2"
}

new_repo "$TEST_ROOT/repo"
commit_file "$TEST_ROOT/repo" a.txt "a"
REPO=$TEST_ROOT/repo
git_real -C "$REPO" config guard.enabled true
install_hook "$REPO"
shim_on

for round in 1 2 3; do
    section "round $round: $RACERS processes run git worktree remove --force on one dirty tree"
    tree=$TEST_ROOT/busy-$round
    git_real -C "$REPO" worktree add -q -b "busy-$round" "$tree"
    printf 'untracked %s\n' "$round" >"$tree/u.txt"
    printf 'a\nedited %s\n' "$round" >"$tree/a.txt"
    race "shim-$round" git worktree remove --force "$tree"
    refs=$(git_real -C "$REPO" for-each-ref --format='%(refname:short)' "refs/heads/stranded/busy-$round/")
    assert_eq 1 "$(count "$refs")" "round $round: exactly one stranded branch (none: work lost; more: saved twice)"
    assert_eq "untracked $round" "$(git_real -C "$REPO" show "${refs:-none}:u.txt" 2>&1 | head -1)" \
        "round $round: the untracked file was destroyed, not saved"
    assert_no_file "$tree" "round $round: the tree is gone"
    assert_no_file "$REPO/.git/worktrees/busy-$round" "round $round: its admin entry is gone"
    assert_eq 1 "$(exits "shim-$round" 0)" "round $round: exactly one racer removed the tree"
    assert_eq $((RACERS - 1)) "$(exits "shim-$round" 128)" \
        "round $round: every other racer got git's own exit 128 for a tree that is gone"
    assert_eq 1 "$(cat "$TEST_ROOT/race/shim-$round"/*.err | grep -c 'stranded/')" \
        "round $round: one racer reported the save"
    # git's own words: "is not a working tree", or, caught mid-removal, "validation failed".
    assert_eq $((RACERS - 1)) "$(cat "$TEST_ROOT/race/shim-$round"/*.err | grep -c '^fatal: ')" \
        "round $round: the others print git's own fatal: for a tree that is gone or going"
done

section "the shim races git guard remove on one tree"
tree=$TEST_ROOT/mixed
git_real -C "$REPO" worktree add -q -b mixed "$tree"
printf 'mixed work\n' >"$tree/u.txt"
ALT_COMMAND="$(printf '%q ' "$GUARD_BIN_DIR/git-guard" remove "$tree")" race mixed git worktree remove --force "$tree"
refs=$(git_real -C "$REPO" for-each-ref --format='%(refname:short)' refs/heads/stranded/mixed/)
assert_eq 1 "$(count "$refs")" "mixed: exactly one stranded branch"
assert_eq "mixed work" "$(git_real -C "$REPO" show "${refs:-none}:u.txt" 2>&1)" "mixed: the untracked file was destroyed, not saved"
assert_no_file "$tree" "mixed: the tree is gone"
assert_eq 1 "$(for n in $(seq 1 "$RACERS"); do cat "$TEST_ROOT/race/mixed/$n".{out,err} | grep -q stranded/mixed/ && echo "$n"; done | grep -c .)" \
    "mixed: exactly one racer reported a save"
liars=0
for n in $(seq 1 2 "$RACERS"); do
    if grep -qx "removed $tree" "$TEST_ROOT/race/mixed/$n.out" && ! grep -q stranded/ "$TEST_ROOT/race/mixed/$n.out"; then
        liars=$((liars + 1))
    fi
done
assert_eq 0 "$liars" "mixed: no git guard remove claims 'removed' for a tree another process removed"
# A `git guard remove` that found the tree before it went says "already gone" (exit 0);
# one that starts after it went says it is no worktree (exit 1). Neither may exit 2.
assert_eq 0 "$(cat "$TEST_ROOT/race/mixed"/[1357].rc | grep -cvx '[01]')" "mixed: every git guard remove exits 0 or 1"

section "$RACERS racers on a clean detached tree whose only work is a commit"
tree=$TEST_ROOT/detached
git_real -C "$REPO" worktree add -q --detach "$tree"
commit_file "$tree" d.txt "detached" "detached work"
commit=$(git_real -C "$tree" rev-parse HEAD)
race detached git worktree remove "$tree"
refs=$(git_real -C "$REPO" for-each-ref --format='%(refname:short)' refs/heads/stranded/detached/)
assert_eq 1 "$(count "$refs")" "detached: exactly one stranded branch"
assert_eq "$commit" "$(git_real -C "$REPO" rev-parse "${refs:-none}" 2>&1)" "detached: the detached commit was lost, not saved"
assert_no_file "$tree" "detached: the tree is gone"

section "$RACERS processes run git branch -D on one unpushed branch (the hook's lock)"
blob=$(printf 'branch work\n' | git_real -C "$REPO" hash-object -w --stdin)
tree_id=$(printf '100644 blob %s\tb.txt\n' "$blob" | git_real -C "$REPO" mktree)
tip=$(git_real -C "$REPO" commit-tree "$tree_id" -p main -m "branch work" </dev/null)
git_real -C "$REPO" branch contested "$tip"
race branch "$REAL_GIT" branch -D contested
refs=$(git_real -C "$REPO" for-each-ref --format='%(refname:short)' refs/heads/stranded/contested/)
assert_eq 1 "$(count "$refs")" "branch -D race: exactly one stranded branch"
assert_eq "$tip" "$(git_real -C "$REPO" rev-parse "${refs:-none}" 2>&1)" "branch -D race: the branch's commit was lost, not saved"
assert_no_ref "$REPO" refs/heads/contested "branch -D race: the branch is gone"
# git itself lets a racer that read the ref before it went "delete" it again: exit 0.
assert_ne 0 "$(exits branch 0)" "branch -D race: a racer deleted the branch"
assert_eq 1 "$(cat "$TEST_ROOT/race/branch"/*.err | grep -c 'saved branch contested')" "branch -D race: one racer reported the save"

section "32 git guard remove over 16 trees: every tree saved once and removed, no spurious error"
pids=()
for t in $(seq 1 16); do
    git_real -C "$REPO" worktree add -q -b "many-$t" "$TEST_ROOT/many-$t"
    printf 'work of tree %d\n' "$t" >"$TEST_ROOT/many-$t/u.txt"
done
mkdir -p "$TEST_ROOT/race/many"
for n in $(seq 1 32); do
    t=$(((n - 1) % 16 + 1))
    (cd "$REPO" && timeout 120 "$GUARD_BIN_DIR/git-guard" remove "$TEST_ROOT/many-$t" >"$TEST_ROOT/race/many/$n.out" 2>"$TEST_ROOT/race/many/$n.err"
     echo $? >"$TEST_ROOT/race/many/$n.rc") &
    pids+=($!)
done
wait "${pids[@]}"
assert_eq 32 "$(cat "$TEST_ROOT/race/many"/*.rc | grep -cx 0)" "many: a remover of one tree failed because of another (exit codes: $(cat "$TEST_ROOT/race/many"/*.rc | sort | uniq -c | tr '\n' ' '))"
assert_eq "" "$(cat "$TEST_ROOT/race/many"/*.err)" "many: a remover printed an error"
lost=0 twice=0
for t in $(seq 1 16); do
    refs=$(git_real -C "$REPO" for-each-ref --format='%(refname)' "refs/heads/stranded/many-$t/")
    [ "$(count "$refs")" -gt 1 ] && twice=$((twice + 1))
    [ "$(git_real -C "$REPO" show "$(printf '%s\n' "$refs" | head -1):u.txt" 2>/dev/null)" = "work of tree $t" ] || lost=$((lost + 1))
    [ -e "$TEST_ROOT/many-$t" ] && lost=$((lost + 100))
done
assert_eq 0 "$lost" "many: a tree's untracked file was destroyed unsaved, or a tree was not removed"
assert_eq 0 "$twice" "many: a tree was saved twice"

section "32 git worktree remove --force (through the shim) over 16 trees"
pids=()
for t in $(seq 1 16); do
    git_real -C "$REPO" worktree add -q -b "shim-many-$t" "$TEST_ROOT/shim-many-$t"
    printf 'shim work of tree %d\n' "$t" >"$TEST_ROOT/shim-many-$t/u.txt"
done
mkdir -p "$TEST_ROOT/race/shim-many"
for n in $(seq 1 32); do
    t=$(((n - 1) % 16 + 1))
    (cd "$REPO" && timeout 120 git worktree remove --force "$TEST_ROOT/shim-many-$t" >"$TEST_ROOT/race/shim-many/$n.out" 2>"$TEST_ROOT/race/shim-many/$n.err"
     echo $? >"$TEST_ROOT/race/shim-many/$n.rc") &
    pids+=($!)
done
wait "${pids[@]}"
assert_eq 16 "$(cat "$TEST_ROOT/race/shim-many"/*.rc | grep -cx 0)" "shim-many: not exactly one remover per tree succeeded (exit codes: $(cat "$TEST_ROOT/race/shim-many"/*.rc | sort | uniq -c | tr '\n' ' '))"
assert_eq 16 "$(cat "$TEST_ROOT/race/shim-many"/*.rc | grep -cx 128)" "shim-many: the second remover of a tree did not get git's own 128"
assert_eq "" "$(cat "$TEST_ROOT/race/shim-many"/*.err | grep -v '^fatal: \|^git-guard: saved \|^git-guard: already saved ')" "shim-many: a remover printed something other than git's fatal or the save"
lost=0 twice=0
for t in $(seq 1 16); do
    refs=$(git_real -C "$REPO" for-each-ref --format='%(refname)' "refs/heads/stranded/shim-many-$t/")
    [ "$(count "$refs")" -gt 1 ] && twice=$((twice + 1))
    [ "$(git_real -C "$REPO" show "$(printf '%s\n' "$refs" | head -1):u.txt" 2>/dev/null)" = "shim work of tree $t" ] || lost=$((lost + 1))
    [ -e "$TEST_ROOT/shim-many-$t" ] && lost=$((lost + 100))
done
assert_eq 0 "$lost" "shim-many: a tree's untracked file was destroyed unsaved, or a tree was not removed"
assert_eq 0 "$twice" "shim-many: a tree was saved twice"

section "a writer appending during the removal: the save holds every line from before, the removal proceeds"
git_real -C "$REPO" worktree add -q -b writer "$TEST_ROOT/writer"
seq 1 2000 | sed 's/^/line /' >"$TEST_ROOT/writer/log.txt"
before=$(sha1sum <"$TEST_ROOT/writer/log.txt")
(while [ -d "$TEST_ROOT/writer" ]; do echo "appended" >>"$TEST_ROOT/writer/log.txt" 2>/dev/null || break; done) &
writer=$!
sleep 0.2
run_cmd bash -c "cd '$REPO' && timeout 120 '$GUARD_BIN_DIR/git-guard' remove '$TEST_ROOT/writer'"
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
assert_eq 0 "$RC" "writer: the removal under a writer failed or was refused: $ERR"
ref=$(git_real -C "$REPO" for-each-ref --format='%(refname)' refs/heads/stranded/writer/ | head -1)
assert_eq "$before" "$(git_real -C "$REPO" show "${ref:-none}:log.txt" 2>/dev/null | head -2000 | sha1sum)" \
    "writer: lines that existed before the removal started are missing from the save: they were lost"
assert_no_file "$TEST_ROOT/writer" "writer: the tree was not removed"

section "200 removals of distinct trees, 4 at a time: locks/ stays bounded"
# Each removal through the shim holds its tree's lock across the exec of git, so it never
# runs its release: the files of such holders are swept by later holders (issue 20).
# (Each round's trees are added first: git's own `worktree add` racing `worktree list` can
# read a half-made admin entry and fail, which is git's, not the lock's. For the same reason
# a removal is tried a second time: git's `worktree remove` lists every tree, and one whose
# admin entry another remover is deleting makes it die with "fatal: Invalid path
# '<common>/worktrees/<id>'", as it does without the guard.)
for round in 1 2 3 4 5; do
    for s in 1 2 3 4; do
        for i in $(seq 1 10); do git_real -C "$REPO" worktree add -q --detach "$TEST_ROOT/many-$round-$s-$i" 2>/dev/null; done
    done
    for s in 1 2 3 4; do
        (
            for i in $(seq 1 10); do
                t=$TEST_ROOT/many-$round-$s-$i
                git -C "$REPO" worktree remove --force "$t" 2>>"$TEST_ROOT/many.err" ||
                    git -C "$REPO" worktree remove --force "$t" 2>>"$TEST_ROOT/many.err" || echo "$t" >>"$TEST_ROOT/many.left"
            done
        ) &
    done
    wait
done
assert_eq "" "$(cat "$TEST_ROOT/many.left" 2>/dev/null)" "a removal among the 200 failed: $(head -3 "$TEST_ROOT/many.err" 2>/dev/null)"
LOCKS=$(ls "$REPO/.git/guard/locks" | grep -c '\.lock$' || true)
[ "$LOCKS" -le 40 ] && pass "locks/ holds $LOCKS lock files after 200 removals of distinct trees" ||
    fail "locks/ holds $LOCKS lock files after 200 removals of distinct trees: one per tree, forever"
git_real -C "$REPO" worktree add -q -b after "$TEST_ROOT/after"
printf 'after\n' >"$TEST_ROOT/after/after.txt"
race after git worktree remove --force "$TEST_ROOT/after"
assert_eq 1 "$(count "$(git_real -C "$REPO" for-each-ref --format='%(refname)' refs/heads/stranded/after/)")" \
    "after the sweeps, $RACERS racers on one dirty tree still make exactly one save (the lock still excludes)"
assert_no_file "$TEST_ROOT/after" "after the sweeps, the raced tree was not removed"

section "no lock or temporary file is left behind"
assert_eq "" "$(find "$REPO/.git" -name '*.lock' -not -path '*/guard/locks/*' 2>/dev/null)" "no git .lock file is left"
assert_eq "" "$(ls "$REPO/.git/guard/tmp" 2>/dev/null)" "no private index is left in .git/guard/tmp"

finish
