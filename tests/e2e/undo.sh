#!/usr/bin/env bash
# `git guard undo` (issue 36): one command puts back what the last destroyer took, all its
# saves, through the one restorer: a removed tree (and its deleted branch) at its path, 30
# branches of one `branch -D`, and a `reset --hard`'s tree in place. Each is compared byte
# for byte and id for id with what was there before. Over an occupied path it refuses,
# names what is in the way, and changes nothing. The messages name the command that puts a
# save back, and a bulk deletion prints one line, not one per branch.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GUARD=$GUARD_BIN_DIR/git-guard



# state TREE: HEAD, its branch, the index and every file's bytes (not .git), one a line.
state() {
    (
        cd "$1" || exit 1
        echo "HEAD $(git_real rev-parse HEAD) $(git_real symbolic-ref -q HEAD || echo detached)"
        git_real ls-files -s
        find . -path ./.git -prune -o -type f -exec sha256sum {} + | LC_ALL=C sort -k2
    )
}

hooked_clone undo
R=$REPO
shim_on

section "a forced removal of a tree and its branch: the message names git guard restore; undo puts both back"
git_real -C "$R" worktree add -q -b feat "$TEST_ROOT/wt" main
WT=$TEST_ROOT/wt
commit_file "$WT" feat.txt "feature"
printf 'edited\n' >"$WT/a.txt"
printf 'staged\n' >"$WT/s.txt" && git_real -C "$WT" add s.txt
printf 'untracked\n' >"$WT/u.txt"
BEFORE=$(state "$WT")
FEAT=$(git_real -C "$R" rev-parse feat)
run_cmd "$GUARD" -C "$R" remove "$WT" --delete-branch
assert_eq 0 "$RC" "git guard remove --delete-branch exits 0: $ERR"
assert_contains "$OUT" "put back: git guard restore stranded/wt/" "the removal's report names no git guard restore"
assert_no_file "$WT/a.txt" "the tree was not removed"
assert_no_ref "$R" refs/heads/feat "the branch was not deleted"
run_cmd "$GUARD" -C "$R" undo --list
assert_eq 0 "$RC" "undo --list exits 0"
assert_contains "$OUT" "remove: 1 save(s): $WT" "undo --list does not show the removal as the newest destroyer: $OUT"
run_cmd "$GUARD" -C "$R" undo
assert_eq 0 "$RC" "undo after a removal exits 0: $ERR"
assert_eq "$FEAT" "$(git_real -C "$R" rev-parse -q --verify feat)" "undo did not put branch feat back at its commit"
assert_eq "$BEFORE" "$(state "$WT" 2>&1)" "undo did not put the removed tree back exactly (HEAD, branch, index, files)"
assert_contains "$("$GUARD" -C "$R" log)" "undo" "git guard log does not record the undo"

section "undo over an occupied path refuses, says what is in the way, and changes nothing"
printf 'more\n' >>"$WT/u.txt" # new work: a removal of work an earlier save holds makes no new save
BEFORE=$(state "$WT")
run_cmd "$GUARD" -C "$R" remove "$WT" --delete-branch
assert_eq 0 "$RC" "the second removal exits 0: $ERR"
mkdir -p "$WT" && printf 'mine\n' >"$WT/blocker.txt"
run_cmd "$GUARD" -C "$R" undo
assert_eq 1 "$RC" "undo over an occupied path does not exit 1"
assert_contains "$ERR" "$WT exists" "the refusal does not name the occupied path: $ERR"
assert_eq "mine" "$(cat "$WT/blocker.txt")" "undo overwrote the file in the way"
assert_eq "blocker.txt" "$(ls -A "$WT")" "undo wrote into the occupied path"
assert_no_ref "$R" refs/heads/feat "undo put the branch back although it refused (not all or nothing)"
rm -rf "$WT"
run_cmd "$GUARD" -C "$R" undo
assert_eq 0 "$RC" "undo once the path is free exits 0: $ERR"
assert_eq "$BEFORE" "$(state "$WT" 2>&1)" "undo did not put the tree back exactly the second time"

section "30 branches of one branch -D: one summary line that works, and undo puts all 30 back"
for i in $(seq 1 30); do
    git_real -C "$R" branch "b$i" main
    printf '%s\n' "$i" | git_real -C "$R" hash-object -w --stdin >/dev/null
done
for i in $(seq 1 30); do
    tree=$(printf '100644 blob %s\tf%d\n' "$(printf '%s\n' "$i" | git_real -C "$R" hash-object -w --stdin)" "$i" | git_real -C "$R" mktree)
    c=$(GIT_COMMITTER_DATE="1700000000 +0000" GIT_AUTHOR_DATE="1700000000 +0000" git_real -C "$R" commit-tree -p main -m "b$i" "$tree")
    git_real -C "$R" update-ref "refs/heads/b$i" "$c"
done
TIPS=$(git_real -C "$R" for-each-ref --format='%(refname) %(objectname)' 'refs/heads/b*' | sort)
run_cmd git -C "$R" branch -D $(seq -f 'b%g' 1 30)
assert_eq 0 "$RC" "branch -D of 30 branches exits 0: $ERR"
assert_eq 1 "$(printf '%s\n' "$ERR" | grep -c '^git-guard:')" "a bulk deletion printed more than one git-guard line: $ERR"
assert_contains "$ERR" "saved 30 deleted branches" "the summary line does not count the 30 branches: $ERR"
assert_contains "$ERR" "git guard undo" "the summary line does not name git guard undo"
assert_eq 30 "$(printf '%s\n' "$OUT" | grep -c '^Deleted branch')" "git's own per-branch output was changed"
LIST=$(sed -n 's/.*list them: \(git guard list --since [^;]*\);.*/\1/p' <<<"$ERR")
assert_ne "" "$LIST" "the summary line names no list command"
run_cmd bash -c "cd '$R' && PATH='$GUARD_BIN_DIR':\$PATH && $LIST"
assert_eq 0 "$RC" "the pasted list command fails: $ERR"
assert_eq 30 "$(printf '%s\n' "$OUT" | grep -c 'stranded/b[0-9]*/')" "the pasted list command does not list the 30 saves: $OUT"
run_cmd env GIT_GUARD_VERBOSE=1 git -C "$R" branch -D nothing-here
run_cmd "$GUARD" -C "$R" undo
assert_eq 0 "$RC" "undo after the bulk deletion exits 0: $ERR"
assert_eq "$TIPS" "$(git_real -C "$R" for-each-ref --format='%(refname) %(objectname)' 'refs/heads/b*' | sort)" \
    "undo did not put back every one of the 30 branches at its tip"
assert_contains "$OUT" "30 save(s) put back" "undo does not say how many it put back: $OUT"

section "reset --hard: the message names git guard restore --in-place; undo puts HEAD, index and files back"
git_real -C "$R" checkout -q main
commit_file "$R" local.txt "a local commit"
printf 'edited\n' >"$R/a.txt"
printf 'staged new\n' >"$R/new.txt" && git_real -C "$R" add new.txt
printf 'staged then edited\n' >"$R/local.txt" && git_real -C "$R" add local.txt && printf 'edited again\n' >"$R/local.txt"
printf 'untracked\n' >"$R/untracked.txt"
BEFORE=$(state "$R")
run_cmd git -C "$R" reset --hard HEAD~1
assert_eq 0 "$RC" "reset --hard exits 0: $ERR"
assert_contains "$ERR" "put back: git guard restore --in-place" "the reset's save line names no git guard restore --in-place: $ERR"
assert_ne "$BEFORE" "$(state "$R")" "reset --hard destroyed nothing (the test proves nothing)"
INPLACE=$(grep -o 'refs/stranded/[^ ;)]*' <<<"$ERR" | head -n 1)
run_cmd "$GUARD" -C "$R" restore "$INPLACE"
assert_eq 1 "$RC" "restore of an in-place save over its own tree, without --in-place, does not refuse"
assert_contains "$ERR" "git guard restore --in-place $INPLACE" "the refusal does not name restore --in-place"
run_cmd "$GUARD" -C "$R" undo
assert_eq 0 "$RC" "undo after reset --hard exits 0: $ERR"
assert_eq "$BEFORE" "$(state "$R")" "undo did not put the tree back exactly after reset --hard (HEAD, index, files)"

section "in-place undo refuses over uncommitted changes, and changes nothing"
printf 'other work\n' >"$R/a.txt" # new work: a reset of work an earlier save holds makes no new save
run_cmd git -C "$R" reset --hard HEAD~1
assert_eq 0 "$RC" "the second reset --hard exits 0: $ERR"
printf 'new work\n' >"$R/a.txt"
AFTER=$(state "$R")
run_cmd "$GUARD" -C "$R" undo --list
assert_contains "$OUT" "reset --hard: 1 save(s): $R" "undo --list does not show the reset as the newest destroyer: $OUT"
run_cmd "$GUARD" -C "$R" undo
assert_eq 1 "$RC" "undo over uncommitted changes does not exit 1"
assert_contains "$ERR" "uncommitted changes" "the refusal does not say the tree has uncommitted changes: $ERR"
assert_eq "$AFTER" "$(state "$R")" "a refused undo changed the tree"

section "undo twice: the last destroyer was undone already, and nothing older is taken back"
git_real -C "$R" checkout -q -- a.txt
run_cmd "$GUARD" -C "$R" undo
assert_eq 0 "$RC" "undo once the tree is clean exits 0: $ERR"
AGAIN=$(state "$R")
run_cmd "$GUARD" -C "$R" undo
assert_eq 0 "$RC" "a second undo exits 0"
assert_contains "$OUT" "undone already" "a second undo does not say the last destroyer was undone already: $OUT"
assert_eq "$AGAIN" "$(state "$R")" "a second undo changed the tree"

section "the op id: taken over from the parent process, never from an unrelated one"
op_of_refusal() { # the op of the newest journal record
    "$GUARD" -C "$R" log --json | tail -n 1 | jq -r .op
}
GIT_GUARD_OP=1-5 "$GUARD" -C "$R" restore no-such-save >/dev/null 2>&1
assert_ne "1-5" "$(op_of_refusal)" "an op left in the environment by another process (pid 1) was taken over"
sh -c 'GIT_GUARD_OP=$$-7 "$1" -C "$2" restore no-such-save; true' sh "$GUARD" "$R" >/dev/null 2>&1
assert_eq "-7" "$(op_of_refusal | sed 's/^[0-9]*//')" "the op of the parent process (a shim, a git) was not taken over"

finish
