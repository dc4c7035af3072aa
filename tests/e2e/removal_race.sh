#!/usr/bin/env bash
# A removal is atomic with the work in its tree (issue 38 item 13, DESIGN §15 "Hold
# first"): `git worktree remove --force T` through the shim (and, one trial in four,
# `git guard remove T`) races, in 20 trials, a commit
# made in T on a detached HEAD and a writer appending to a file in T. Every commit that
# succeeded and every line whose write succeeded before the removal finished is in a
# save: the removal holds T's admin entry (git's own index.lock and HEAD.lock) from
# before its save, so a commit either lands before the save or fails, and moves T aside
# in one rename before the save reads it, so a write either lands before the save or
# fails. Afterwards nothing is left behind: no tree, no moved copy, no lock file.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TRIALS=${GUARD_RACE_TRIALS:-20}
hooked_clone repo
shim_on

lost_commits=0 lost_lines=0 commits_made=0 lines_made=0
for i in $(seq 1 "$TRIALS"); do
    T=$TEST_ROOT/race-$i
    git_real -C "$REPO" worktree add -q --detach "$T" main
    echo "race-$i line 0" >"$T/log"
    go=$TEST_ROOT/go-$i
    # The committer: one commit on the detached HEAD, 0 to 285 ms after the start (the
    # removal's save falls somewhere in that span).
    (
        while [ ! -e "$go" ]; do :; done
        sleep "0.$(printf '%03d' $(((i - 1) * 15)))"
        if git_real -C "$T" commit -q --allow-empty -m "race-$i commit" 2>/dev/null; then
            echo made >"$TEST_ROOT/commit-$i"
        fi
    ) &
    committer=$!
    # The writer: appends lines until a write fails, noting each one that succeeded.
    (
        n=0
        while [ ! -e "$go" ]; do :; done
        while [ ! -e "$go.done" ] && n=$((n + 1)) && { echo "race-$i line $n" >>"$T/log"; } 2>/dev/null; do
            echo "$n" >"$TEST_ROOT/written-$i"
        done
    ) &
    writer=$!
    touch "$go"
    if [ $((i % 4)) -eq 0 ]; then # one in four through `git guard remove`, the orchestrators' removal
        run_cmd "$GUARD_BIN_DIR/git-guard" -C "$REPO" remove "$T"
    else
        run_cmd git -C "$REPO" worktree remove --force "$T"
    fi
    # The writer stops at its first failed write (the tree is gone), or once the removal
    # returned when the tree is still there.
    touch "$go.done"
    wait "$committer" "$writer"
    [ "$RC" -eq 0 ] || fail "trial $i: the guarded removal failed: $ERR"
    [ ! -e "$T" ] || fail "trial $i: $T is still there after its removal"
    leftovers=$(cd "$TEST_ROOT" && ls -a | grep -F ".race-$i.git-guard-removing" || true)
    [ -z "$leftovers" ] || fail "trial $i: the removal left its moved copy behind: $leftovers"

    if [ -e "$TEST_ROOT/commit-$i" ]; then
        commits_made=$((commits_made + 1))
        subjects=$(git_real -C "$REPO" log --all --format=%s) # whole: grep -q would cut git off
        if ! grep -qx "race-$i commit" <<<"$subjects"; then
            lost_commits=$((lost_commits + 1))
            fail "trial $i: the commit made in the tree before its removal finished is in no save: lost"
        fi
    fi
    last=$(cat "$TEST_ROOT/written-$i" 2>/dev/null || echo 0)
    lines_made=$((lines_made + last))
    found=no
    for commit in $(git_real -C "$REPO" for-each-ref --format='%(objectname)' 'refs/heads/stranded/'); do
        if grep -qx "race-$i line $last" <<<"$(git_real -C "$REPO" cat-file -p "$commit:log" 2>/dev/null)"; then
            found=yes
            break
        fi
    done
    if [ "$found" = no ]; then
        lost_lines=$((lost_lines + 1))
        fail "trial $i: line $last of log, written before the removal finished, is in no save: lost"
    fi
done
echo "  ($commits_made of $TRIALS commits succeeded; $lines_made lines written in all)"
assert_eq 0 "$lost_commits" "commits lost to a removal racing them, of $commits_made that succeeded"
assert_eq 0 "$lost_lines" "trials whose last written lines were lost to the removal, of $TRIALS"
# The race is real only when some commits succeeded and some writes did.
[ "$commits_made" -gt 0 ] && [ "$lines_made" -gt 0 ] && pass "the commits and the writes raced the removals" ||
    fail "no commit or no write succeeded in $TRIALS trials: the race was never run"
stale=$(find "$REPO/.git" -name '*.lock' -not -path '*/guard/*' | tr '\n' ' ')
assert_eq "" "$stale" "the removals left git lock files behind (git would refuse to work there)"
assert_eq "" "$(git_real -C "$REPO" worktree list --porcelain | grep -F race- || true)" \
    "git still lists a removed tree"

section "a stale index.lock (a git that crashed): the removal still saves, and never removes a lock it did not make"
T=$TEST_ROOT/stale
git_real -C "$REPO" worktree add -q --detach "$T" main
echo "stale edit" >>"$T/a.txt"
touch "$REPO/.git/worktrees/stale/index.lock"
run_cmd git -C "$REPO" worktree remove --force "$T"
assert_eq 0 "$RC" "the forced removal of a tree with a stale index.lock failed: $ERR"
assert_no_file "$T" "the tree with a stale index.lock was not removed"
ref=$(git_real -C "$REPO" for-each-ref --format='%(refname)' 'refs/heads/stranded/stale/')
assert_eq "a
stale edit" "$(git_real -C "$REPO" show "${ref:-none}:a.txt" 2>&1)" "the edit in the tree with a stale index.lock was lost"
T=$TEST_ROOT/refused
git_real -C "$REPO" worktree add -q --detach "$T" main
echo "kept edit" >>"$T/a.txt"
touch "$REPO/.git/worktrees/refused/index.lock"
run_cmd git -C "$REPO" worktree remove "$T"
assert_ne 0 "$RC" "git removed a dirty tree without --force (the case needs git's refusal)"
assert_file_exists "$T/a.txt" "git refused, yet the tree is gone"
assert_file_exists "$REPO/.git/worktrees/refused/index.lock" "the removal deleted a lock file it did not make"
assert_eq "" "$(ls "$REPO/.git/worktrees/refused" | grep -x HEAD.lock || true)" \
    "the removal left its HEAD.lock behind after git refused (git could no longer move HEAD there)"

section "ended (SIGTERM) while the tree is aside: it goes back whole, and no lock stays"
# A git whose `status` takes 3 s holds the removal in its save, with the tree aside.
SLOW=$TEST_ROOT/slow-git
printf '#!/bin/sh\ncase " $* " in *" status "*) sleep 3 ;; esac\nexec "%s" "$@"\n' "$REAL_GIT" >"$SLOW"
chmod +x "$SLOW"
T=$TEST_ROOT/interrupted
git_real -C "$REPO" worktree add -q --detach "$T" main
echo "interrupted edit" >>"$T/a.txt"
GIT_GUARD_REAL_GIT=$SLOW git -C "$REPO" worktree remove --force "$T" >"$TEST_ROOT/interrupted.out" 2>&1 &
remover=$!
aside() { ls -a "$TEST_ROOT" | grep -q -F ".interrupted.git-guard-removing-"; }
for _ in $(seq 1 500); do aside && break; sleep 0.02; done
aside || fail "the removal never moved the tree aside (nothing below is tested)"
kill -TERM "$remover" # a background job ignores SIGINT; a Ctrl-C is held the same way
wait "$remover"
assert_eq 143 "$?" "the interrupted removal did not end by its SIGTERM ($(cat "$TEST_ROOT/interrupted.out"))"
assert_eq "a
interrupted edit" "$(cat "$T/a.txt" 2>&1)" \
    "the interrupted removal did not put the tree back where it was: its work is hidden aside or lost"
if aside; then fail "the interrupted removal left the moved copy behind"; fi
assert_eq "" "$(ls "$REPO/.git/worktrees/interrupted" | grep -F .lock || true)" \
    "the interrupted removal left git's lock files in the tree's admin entry (git could no longer commit there)"
run_cmd git_real -C "$T" commit -q -am "after the interruption"
assert_eq 0 "$RC" "git cannot commit in the tree after the interrupted removal: $ERR"

section "a caller's own GIT_GUARD_HANDLED (its pid, no words) does not pass the removal by"
# The mark the shim hands its git child comes from the front end, never from the caller.
T=$TEST_ROOT/marked
git_real -C "$REPO" worktree add -q --detach "$T" main
echo "marked edit" >>"$T/a.txt"
run_cmd env GIT_GUARD_HANDLED="$$ 0" git -C "$REPO" worktree remove --force "$T"
assert_eq 0 "$RC" "the removal with a forged GIT_GUARD_HANDLED failed: $ERR"
ref=$(git_real -C "$REPO" for-each-ref --format='%(refname)' "refs/heads/stranded/marked/")
assert_eq "a
marked edit" "$(git_real -C "$REPO" show "${ref:-none}:a.txt" 2>&1)" \
    "a forged GIT_GUARD_HANDLED let the removal destroy the tree's edit unsaved"

finish
