#!/usr/bin/env bash
# Repository formats libgit2 1.5 cannot open (DESIGN §14): reftable and relative
# worktrees (extensions.relativeWorktrees), guarded through git itself. They need a git
# that has them: $GUARD_TEST_GIT, else /opt/git-2.55/bin/git; without one the suite
# says so and checks nothing. (SHA-256, which git 2.39 has, is covered by
# cli_status_save.sh and the unit tests.)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NEW_GIT=${GUARD_TEST_GIT:-/opt/git-2.55/bin/git}
if ! [ -x "$NEW_GIT" ] || ! [[ "$("$NEW_GIT" worktree add -h 2>&1)" == *relative-paths* ]]; then
    skip "no git with reftable and relative worktrees here (tried $NEW_GIT; set GUARD_TEST_GIT)"
fi
PATH=$(dirname "$NEW_GIT"):$GUARD_BIN_DIR:$PATH
REAL_GIT=$NEW_GIT
GIT_GUARD_REAL_GIT=$NEW_GIT
export PATH REAL_GIT GIT_GUARD_REAL_GIT
hash -r

newest_save() {
    git_real -C "$1" for-each-ref --sort=-refname --format='%(refname)' "refs/heads/stranded/$2/" | head -1
}

section "reftable: a dirty tree and a detached commit are saved, the removal proceeds"
git_real init -q --ref-format=reftable "$TEST_ROOT/rt"
R=$TEST_ROOT/rt
printf 'readme\n' >"$R/README" && git_real -C "$R" add README && git_real -C "$R" commit -q -m initial
git_real -C "$R" config guard.enabled true
git_real -C "$R" worktree add -q -b wt "$TEST_ROOT/rt-wt"
printf 'untracked in reftable\n' >"$TEST_ROOT/rt-wt/u.txt"
run_cmd git -C "$R" guard remove "$TEST_ROOT/rt-wt"
assert_eq 0 "$RC" "reftable: git guard remove failed: $ERR"
assert_no_file "$TEST_ROOT/rt-wt" "reftable: the tree was not removed"
assert_eq "untracked in reftable" "$(git_real -C "$R" show "$(newest_save "$R" rt-wt):u.txt" 2>&1)" \
    "reftable: the untracked file was destroyed, not saved"
git_real -C "$R" worktree add -q --detach "$TEST_ROOT/rt-d"
printf 'd\n' >"$TEST_ROOT/rt-d/d.txt" && git_real -C "$TEST_ROOT/rt-d" add d.txt && git_real -C "$TEST_ROOT/rt-d" commit -q -m d
C=$(git_real -C "$TEST_ROOT/rt-d" rev-parse HEAD)
run_cmd git -C "$R" guard remove "$TEST_ROOT/rt-d"
assert_eq 0 "$RC" "reftable: git guard remove of a detached tree failed: $ERR"
assert_eq "$C" "$(git_real -C "$R" rev-parse "$(newest_save "$R" rt-d)" 2>&1)" "reftable: the detached commit was destroyed, not saved"

section "reftable: stash drop and clear are saved, as in a files repository (through git, not libgit2)"
printf 'dropped in reftable\n' >>"$R/README"
git_real -C "$R" stash push -q -m drop-me
STASH=$(git_real -C "$R" rev-parse refs/stash)
run_cmd env PATH="$(make_shim_dir):$PATH" git -C "$R" stash drop -q
assert_eq 0 "$RC" "reftable: git stash drop was refused ($ERR)"
assert_ne "" "$(git_real -C "$R" for-each-ref --contains "$STASH" --format=%\(refname\) refs/stranded/ refs/heads/stranded/)" \
    "reftable: stash drop lost the stash commit $STASH, not saved"
printf 'cleared in reftable\n' >>"$R/README"
git_real -C "$R" stash push -q -m clear-me
STASH=$(git_real -C "$R" rev-parse refs/stash)
run_cmd env PATH="$(make_shim_dir):$PATH" git -C "$R" stash clear
assert_eq 0 "$RC" "reftable: git stash clear was refused ($ERR)"
assert_ne "" "$(git_real -C "$R" for-each-ref --contains "$STASH" --format=%\(refname\) refs/stranded/ refs/heads/stranded/)" \
    "reftable: stash clear lost the stash commit $STASH, not saved"

section "reftable: reset --hard HEAD^ keeps the commit it drops"
commit_file "$R" dropped.txt "dropped by reset"
C=$(git_real -C "$R" rev-parse HEAD)
run_cmd env PATH="$(make_shim_dir):$PATH" git -C "$R" reset -q --hard HEAD^
assert_eq 0 "$RC" "reftable: reset --hard HEAD^ failed ($ERR)"
assert_ne "" "$(git_real -C "$R" for-each-ref --contains "$C" --format=%\(refname\) refs/stranded/ refs/heads/stranded/)" \
    "reftable: reset --hard HEAD^ dropped the unpushed commit $C, not saved"

section "reftable: the hook judges forced moves and deletions as in files"
install_hook "$R"
for how in "branch -f" "update-ref -d"; do
    B=forced-${how%% *}
    git_real -C "$R" checkout -q -b "$B"
    commit_file "$R" "$B.txt" "only on $B"
    C=$(git_real -C "$R" rev-parse HEAD)
    git_real -C "$R" checkout -q -
    if [ "$how" = "branch -f" ]; then
        run_cmd git_real -C "$R" branch -f "$B" HEAD
    else
        run_cmd git_real -C "$R" update-ref -d "refs/heads/$B"
    fi
    assert_eq 0 "$RC" "reftable: $how failed ($ERR)"
    assert_ne "" "$(git_real -C "$R" for-each-ref --contains "$C" --format=%\(refname\) refs/stranded/ refs/heads/stranded/)" \
        "reftable: $how lost the unpushed commit $C, not saved"
done

section "reftable: cherry-pick --abort keeps the resolution (CHERRY_PICK_HEAD lives in the ref store)"
git_real -C "$R" checkout -q -b pick-from
commit_file "$R" p.txt "theirs"
git_real -C "$R" checkout -q -
commit_file "$R" p.txt "ours"
git_real -C "$R" cherry-pick pick-from >/dev/null 2>&1
printf 'resolved by hand\n' >"$R/p.txt"
run_cmd env PATH="$(make_shim_dir):$PATH" git -C "$R" cherry-pick --abort
assert_eq 0 "$RC" "reftable: cherry-pick --abort failed ($ERR)"
found=""
for ref in $(git_real -C "$R" for-each-ref --format='%(refname)' refs/stranded/); do
    [ "$(git_real -C "$R" show "$ref:p.txt" 2>/dev/null)" = "resolved by hand" ] && found=$ref
done
assert_ne "" "$found" "reftable: cherry-pick --abort destroyed the conflict's resolution in p.txt, not saved"

section "reftable: branch -f in a bare repository keeps the commit it moves off"
B=$R/rt-bare.git # an orchestrator's hub inside a checkout, as inplace_destroyers.sh has it
git_real clone -q --bare "$R" "$B"
git_real -C "$B" config guard.enabled true
C=$(git_real -C "$B" commit-tree -p pick-from -m "only wip holds this" "pick-from^{tree}")
git_real -C "$B" update-ref refs/heads/wip "$C"
run_cmd env PATH="$(make_shim_dir):$PATH" git -C "$B" branch -f wip pick-from
assert_eq 0 "$RC" "reftable: branch -f in a bare repository was refused ($ERR)"
assert_ne "" "$(git_real -C "$B" for-each-ref --contains "$C" --format=%\(refname\) refs/stranded/ refs/heads/stranded/)" \
    "reftable: branch -f in a bare repository lost wip's commit $C, not saved"

section "relative worktrees: guarded saves and removes"
new_repo "$TEST_ROOT/rel"
R=$TEST_ROOT/rel
git_real -C "$R" config guard.enabled true
git_real -C "$R" worktree add -q --relative-paths -b wt "$TEST_ROOT/rel-wt"
assert_eq true "$(git_real -C "$R" config extensions.relativeWorktrees)" "relative worktrees: the extension is not set (set-up)"
printf 'staged\n' >"$TEST_ROOT/rel-wt/s.txt" && git_real -C "$TEST_ROOT/rel-wt" add s.txt
printf 'untracked\n' >"$TEST_ROOT/rel-wt/u.txt"
run_cmd git -C "$R" guard status --json "$TEST_ROOT/rel-wt"
assert_contains "$OUT" '"verdict":"has_work"' "relative worktrees: the tree's work read as clean: $ERR"
run_cmd git -C "$R" guard remove "$TEST_ROOT/rel-wt"
assert_eq 0 "$RC" "relative worktrees: git guard remove failed: $ERR"
assert_no_file "$TEST_ROOT/rel-wt" "relative worktrees: the tree was not removed"
REF=$(newest_save "$R" rel-wt)
assert_eq staged "$(git_real -C "$R" show "$REF:s.txt" 2>&1)" "relative worktrees: the staged file was destroyed, not saved"
assert_eq untracked "$(git_real -C "$R" show "$REF:u.txt" 2>&1)" "relative worktrees: the untracked file was destroyed, not saved"

section "relative worktrees: the hook judges branch -D (published passes, unpublished is saved)"
install_hook "$R"
git_real init -q --bare "$TEST_ROOT/rel.origin"
git_real -C "$R" remote add origin "$TEST_ROOT/rel.origin"
git_real -C "$R" branch pub && git_real -C "$R" push -q origin pub main
git_real -C "$R" fetch -q origin
run_cmd git_real -C "$R" branch -D pub
assert_eq 0 "$RC" "relative worktrees: branch -D of a published branch was refused: $ERR"
assert_eq "" "$(newest_save "$R" pub)" "relative worktrees: a published branch was saved"
git_real -C "$R" checkout -q -b unpub
printf 'x\n' >"$R/x.txt" && git_real -C "$R" add x.txt && git_real -C "$R" commit -q -m x
C=$(git_real -C "$R" rev-parse HEAD)
git_real -C "$R" checkout -q main
run_cmd git_real -C "$R" branch -D unpub
assert_eq 0 "$RC" "relative worktrees: branch -D of an unpublished branch failed: $ERR"
assert_eq "$C" "$(git_real -C "$R" rev-parse "$(newest_save "$R" unpub)" 2>&1)" "relative worktrees: the unpublished branch's commit was destroyed, not saved"

section "merge=ours cannot make an unpublished change look published (git with attr.tree)"
git_real -C "$R" config merge.ours.driver true
printf 'README merge=ours\n' >"$R/.git/info/attributes"
git_real -C "$R" checkout -q -b feat
printf 'changed\n' >"$R/README" && git_real -C "$R" commit -q -am "unpublished change"
git_real -C "$R" checkout -q main
run_cmd git -C "$R" guard status --json --branch feat
assert_contains "$OUT" '"verdict":"has_work"' "merge=ours made feat look published: deleting it would lose its change"

finish
