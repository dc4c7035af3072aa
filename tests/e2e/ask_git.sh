#!/usr/bin/env bash
# "Ask git, never imitate it" (DESIGN §0, §4, §5; LESSONS 13, 14, 16, 17): each case is
# one way the first version's model of git lost work. Each check names the loss.
# Driven through `git guard status/save/remove` (and the hook for branch deletions).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PATH=$GUARD_BIN_DIR:$PATH
export PATH
hash -r

# setup NAME: $R (main tree, guarded) with a.txt, b.txt and a linked tree $WT on branch wt.
setup() {
    R=$TEST_ROOT/$1/repo
    WT=$TEST_ROOT/$1/wt
    mkdir -p "$TEST_ROOT/$1"
    new_repo "$R"
    commit_file "$R" a.txt alpha
    commit_file "$R" b.txt bravo
    git_real -C "$R" config guard.enabled true
    git_real -C "$R" worktree add -q -b wt "$WT"
}

# newest_save REPO NAME: the newest save ref of NAME.
newest_save() {
    git_real -C "$1" for-each-ref --sort=-refname --format='%(refname)' "refs/heads/stranded/$2/" | head -1
}

# show REPO REV:PATH: the blob, or <missing>.
show() {
    git_real -C "$1" show "$2" 2>/dev/null || printf '<missing>'
}

trailer() {
    git_real -C "$1" log -1 --format="%(trailers:key=$3,valueonly)" "$2" | sed '/^$/d'
}

section "status.showUntrackedFiles=no does not hide untracked files (LESSONS 14)"
setup untracked
git_real -C "$R" config status.showUntrackedFiles no
printf 'untracked\n' >"$WT/u.txt"
run_cmd git guard status --json "$WT"
assert_contains "$OUT" '"verdict":"has_work"' "an untracked file read as clean under showUntrackedFiles=no: it would be destroyed"
run_cmd git -C "$R" guard remove "$WT"
assert_eq 0 "$RC" "git guard remove failed: $ERR"
assert_eq untracked "$(show "$R" "$(newest_save "$R" wt):u.txt")" "the untracked file was destroyed, not saved"

section "skip-worktree and assume-unchanged edits are work (status hides them)"
setup hidden
git_real -C "$WT" update-index --skip-worktree a.txt
git_real -C "$WT" update-index --assume-unchanged b.txt
printf 'edited behind skip-worktree\n' >"$WT/a.txt"
printf 'edited behind assume-unchanged\n' >"$WT/b.txt"
run_cmd git -C "$R" guard remove "$WT"
assert_eq 0 "$RC" "git guard remove failed: $ERR"
REF=$(newest_save "$R" wt)
assert_eq "edited behind skip-worktree" "$(show "$R" "$REF:a.txt")" "the skip-worktree edit was destroyed, not saved"
assert_eq "edited behind assume-unchanged" "$(show "$R" "$REF:b.txt")" "the assume-unchanged edit was destroyed, not saved"

section "an untracked symlink named like a dir/ ignore pattern is judged by git's report (LESSONS 8)"
setup link
commit_file "$R" .gitignore "cache/"
git_real -C "$WT" merge -q main
ln -s b.txt "$WT/cache"
run_cmd git -C "$R" guard save "$WT"
assert_eq 0 "$RC" "save failed: $ERR"
REF=$(newest_save "$R" wt)
assert_eq "120000" "$(git_real -C "$R" ls-tree "$REF" cache | cut -c1-6)" "the untracked symlink git reports was destroyed, not saved"

section "a modify/delete conflict resolved with rm is saved, with its Stranded-Unmerged trailer"
setup conflict
commit_file "$WT" a.txt "changed on wt"
git_real -C "$R" rm -q a.txt
git_real -C "$R" commit -q -m "delete a.txt"
git_real -C "$WT" merge -q main >/dev/null 2>&1
rm -f "$WT/a.txt"
printf 'more work\n' >"$WT/u.txt"
run_cmd git -C "$R" guard save "$WT"
assert_eq 0 "$RC" "a tree mid-conflict was not saved: $ERR"
REF=$(newest_save "$R" wt)
assert_eq "a.txt" "$(trailer "$R" "$REF" Stranded-Unmerged)" "the conflicted path is not named: the conflict was lost"
assert_eq "<missing>" "$(show "$R" "$REF:a.txt")" "the save holds a.txt, which the tree had deleted"
assert_eq "more work" "$(show "$R" "$REF:u.txt")" "the untracked file next to the conflict was lost"

section "a partially staged file keeps both versions (LESSONS 17)"
setup partial
printf 'staged version\n' >"$WT/a.txt"
git_real -C "$WT" add a.txt
printf 'working version\n' >"$WT/a.txt"
run_cmd git -C "$R" guard remove "$WT"
assert_eq 0 "$RC" "git guard remove failed: $ERR"
REF=$(newest_save "$R" wt)
INDEX=$(trailer "$R" "$REF" Stranded-Index)
assert_eq "working version" "$(show "$R" "$REF:a.txt")" "the working half of a.txt was lost"
assert_eq "staged version" "$(show "$R" "$INDEX:a.txt")" "the staged half of a.txt was lost"
assert_eq "$INDEX" "$(git_real -C "$R" rev-parse "$REF^2")" "the index commit is not reachable from the save"

section "git guard save stages beside the inspection: the same save, both halves and every kind of file"
setup early
git_real -C "$R" config guard.keepIgnored .env
commit_file "$WT" .gitignore ".env
*.log"
printf 'staged version\n' >"$WT/a.txt"
git_real -C "$WT" add a.txt
printf 'working version\n' >"$WT/a.txt"
printf 'new file\n' >"$WT/new.txt"
printf 'SECRET=1\n' >"$WT/.env"
printf 'noise\n' >"$WT/build.log"
rm "$WT/b.txt"
run_cmd git -C "$R" guard save "$WT"
assert_eq 0 "$RC" "git guard save failed: $ERR"
REF=$(newest_save "$R" wt)
INDEX=$(trailer "$R" "$REF" Stranded-Index)
assert_eq "working version" "$(show "$R" "$REF:a.txt")" "the working half of a.txt was lost by the early staging"
assert_eq "staged version" "$(show "$R" "$INDEX:a.txt")" "the staged half of a.txt was lost by the early staging"
assert_eq "new file" "$(show "$R" "$REF:new.txt")" "the untracked new.txt was lost by the early staging"
assert_eq "SECRET=1" "$(show "$R" "$REF:.env")" "the kept ignored .env was lost by the early staging"
assert_eq "<missing>" "$(show "$R" "$REF:build.log")" "ignored build output was saved though guard.keepIgnored does not name it"
assert_eq "<missing>" "$(show "$R" "$REF:b.txt")" "the deletion of b.txt is not in the save"
assert_eq "" "$(ls -A "$R/.git/guard/tmp")" "the early staging left its private indexes behind"
git_real -C "$R" config --unset guard.keepIgnored

section "a submodule's tree (its git dir under .git/modules/, core.worktree) is saved as a tree (git's own t7406)"
setup submodule-tree
git_real init -q "$TEST_ROOT/submodule-tree/lib"
commit_file "$TEST_ROOT/submodule-tree/lib" l.txt "lib"
git_real -C "$R" -c protocol.file.allow=always submodule add -q "$TEST_ROOT/submodule-tree/lib" lib 2>/dev/null
git_real -C "$R" commit -qm "add lib"
git_real -C "$R/lib" config guard.enabled true
printf 'work in the submodule\n' >"$R/lib/new.txt"
run_cmd git -C "$R/lib" guard save
assert_eq 0 "$RC" "git guard save inside a submodule failed: $ERR"
REF=$(git_real -C "$R/lib" for-each-ref --format='%(refname)' refs/heads/stranded/ | tail -1)
assert_eq "work in the submodule" "$(show "$R/lib" "$REF:new.txt")" "the submodule's untracked new.txt was lost"

section "a submodule whose .git names a git dir that is gone: its files are saved (git's own t2013, t7112)"
printf 'gitdir: bogus/path\n' >"$R/lib/.git"
printf 'edited behind a broken link\n' >"$R/lib/l.txt"
git_real -C "$R" config guard.enabled true
run_cmd git -C "$R" guard save
assert_eq 0 "$RC" "a tree with a broken submodule link was not saved: $ERR"
REF=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/ | tail -1)
NESTED=$(git_real -C "$R" log -1 --format='%(trailers:key=Stranded-Nested,valueonly)' "$REF" | head -1)
assert_eq "lib" "${NESTED#* }" "the save names no nested save for the broken submodule lib"
assert_eq "edited behind a broken link" "$(show "$R" "${NESTED%% *}:l.txt")" "the broken submodule's edited l.txt was lost"

section "a refs/worktree/* commit is work and stays reachable"
setup perworktree
C=$(git_real -C "$WT" commit-tree -p HEAD -m "held by refs/worktree/keep" "$(git_real -C "$WT" rev-parse HEAD^{tree})")
git_real -C "$WT" update-ref refs/worktree/keep "$C"
run_cmd git -C "$R" guard remove "$WT"
assert_eq 0 "$RC" "git guard remove failed: $ERR"
git_real -C "$R" merge-base --is-ancestor "$C" "$(newest_save "$R" wt)" 2>/dev/null
assert_eq 0 "$?" "the commit only refs/worktree/keep held was destroyed, not saved"

section "a symbolic ref holds nothing"
setup symref
git_real -C "$R" checkout -q -b feat
commit_file "$R" f.txt "only feat has this"
git_real -C "$R" checkout -q main
git_real -C "$R" symbolic-ref refs/heads/alias refs/heads/feat
run_cmd git -C "$R" guard status --json --branch feat
assert_contains "$OUT" '"verdict":"has_work"' "a symbolic ref counted as holding feat's commit: deleting feat would lose it"

section "merge=ours cannot make an unpublished change look published"
make_clone attr
A=$TEST_ROOT/attr
git_real -C "$A" config guard.enabled true
git_real -C "$A" config merge.ours.driver true
printf 'a.txt merge=ours\n' >"$A/.git/info/attributes"
git_real -C "$A" checkout -q -b feat
commit_file "$A" a.txt "an unpublished change"
git_real -C "$A" checkout -q main
run_cmd git -C "$A" guard status --json --branch feat
assert_contains "$OUT" '"verdict":"has_work"' "merge=ours made feat look published: deleting it would lose its change"
commit_file "$A" .gitattributes "a.txt merge=ours"
git_real -C "$A" push -q origin main
rm "$A/.git/info/attributes"
run_cmd git -C "$A" guard status --json --branch feat
assert_contains "$OUT" '"verdict":"has_work"' "an in-tree merge=ours made feat look published: deleting it would lose its change"

section "shallow clones: git resolves the boundary"
make_clone shallow-origin
commit_file "$TEST_ROOT/shallow-origin" b.txt b
git_real -C "$TEST_ROOT/shallow-origin" push -q origin main
git_real clone -q --depth 1 "file://$TEST_ROOT/shallow-origin.origin" "$TEST_ROOT/shallow"
S=$TEST_ROOT/shallow
git_real -C "$S" config guard.enabled true
git_real -C "$S" checkout -q -b feat
commit_file "$S" f.txt "unpublished in a shallow clone"
git_real -C "$S" checkout -q main
run_cmd git -C "$S" guard status --json --branch feat
assert_contains "$OUT" '"verdict":"has_work"' "a shallow clone's unpublished branch read as clean: deleting it would lose its commit"
git_real -C "$S" worktree add -q --detach "$TEST_ROOT/shallow-d"
commit_file "$TEST_ROOT/shallow-d" d.txt "detached in a shallow clone"
C=$(git_real -C "$TEST_ROOT/shallow-d" rev-parse HEAD)
run_cmd git -C "$S" guard remove "$TEST_ROOT/shallow-d"
assert_eq 0 "$RC" "git guard remove failed in a shallow clone: $ERR"
assert_eq "$C" "$(git_real -C "$S" rev-parse "$(newest_save "$S" shallow-d)" 2>&1)" "the detached commit of a shallow clone's tree was destroyed, not saved"

section "a tree whose directory is gone: its commits are saved"
setup gone
git_real -C "$WT" checkout -q --detach
commit_file "$WT" g.txt "committed, then the directory was deleted"
C=$(git_real -C "$WT" rev-parse HEAD)
rm -rf "$WT"
run_cmd git -C "$R" guard remove "$WT"
assert_eq 0 "$RC" "git guard remove of a deleted tree failed: $ERR"
assert_eq "$C" "$(git_real -C "$R" rev-parse "$(newest_save "$R" wt)" 2>&1)" "the deleted tree's commit was destroyed, not saved"

section "git worktree remove (through the shim) of a tree whose directory is gone saves its commits"
setup gone-shim
git_real -C "$WT" checkout -q --detach
commit_file "$WT" g.txt "committed, then the directory was deleted"
C=$(git_real -C "$WT" rev-parse HEAD)
rm -rf "$WT"
shim_on
run_cmd git -C "$R" worktree remove "$WT"
shim_off
PATH=$GUARD_BIN_DIR:$PATH
hash -r
assert_eq "" "$(git_real -C "$R" worktree list --porcelain | grep -F "$WT")" "the deleted tree is still registered"
assert_eq "$C" "$(git_real -C "$R" rev-parse "$(newest_save "$R" wt)" 2>&1)" "the deleted tree's commit was destroyed by git worktree remove, not saved"

section "a tree moved aside before a prune: its commits and its files are saved"
setup moved
git_real -C "$WT" checkout -q --detach
commit_file "$WT" m.txt "committed before the move"
C=$(git_real -C "$WT" rev-parse HEAD)
printf 'uncommitted, moved aside\n' >"$WT/u.txt"
mv "$WT" "$WT.old"
run_cmd git -C "$R" guard save "$WT"
assert_eq 0 "$RC" "git guard save of a moved tree failed: $ERR"
REF=$(newest_save "$R" wt)
assert_eq "uncommitted, moved aside" "$(show "$R" "$REF:u.txt")" "the moved tree's uncommitted file was destroyed by the prune, not saved"
git_real -C "$R" merge-base --is-ancestor "$C" "$REF" 2>/dev/null
assert_eq 0 "$?" "the moved tree's commit was destroyed by the prune, not saved"

section "git worktree prune (through the shim) of a tree moved aside saves its files and commits"
setup pruned
git_real -C "$WT" checkout -q --detach
commit_file "$WT" p.txt "committed before the move"
C=$(git_real -C "$WT" rev-parse HEAD)
printf 'uncommitted, then pruned\n' >"$WT/u.txt"
mv "$WT" "$WT.moved"
shim_on
run_cmd git -C "$R" worktree prune
shim_off
PATH=$GUARD_BIN_DIR:$PATH
hash -r
assert_eq 0 "$RC" "git worktree prune failed: $ERR"
assert_eq "" "$(git_real -C "$R" worktree list --porcelain | grep -F "$WT")" "the tree was not pruned"
REF=$(newest_save "$R" wt)
assert_eq "uncommitted, then pruned" "$(show "$R" "$REF:u.txt")" "the moved tree's uncommitted file was lost to the prune"
git_real -C "$R" merge-base --is-ancestor "$C" "$REF" 2>/dev/null
assert_eq 0 "$?" "the moved tree's commit was lost to the prune"

section "sparse index and split index: dirty saved, clean removed"
for kind in sparse split; do
    setup "$kind"
    mkdir -p "$R/dir" && commit_file "$R" dir/c.txt charlie
    git_real -C "$R" worktree add -q -b "$kind-clean" "$TEST_ROOT/$kind/clean"
    for t in "$WT" "$TEST_ROOT/$kind/clean"; do
        git_real -C "$t" merge -q main
        if [ "$kind" = sparse ]; then
            git_real -C "$t" sparse-checkout set --cone dir
            git_real -C "$t" config index.sparse true
            git_real -C "$t" sparse-checkout reapply
        else
            git_real -C "$t" update-index --split-index
        fi
    done
    printf 'dirty\n' >"$WT/dir/c.txt"
    run_cmd git -C "$R" guard remove "$WT"
    assert_eq 0 "$RC" "$kind index: git guard remove of a dirty tree failed: $ERR"
    assert_eq dirty "$(show "$R" "$(newest_save "$R" wt):dir/c.txt")" "$kind index: the edit was destroyed, not saved"
    assert_eq alpha "$(show "$R" "$(newest_save "$R" wt):a.txt")" "$kind index: a file outside the cone was saved as deleted"
    run_cmd git -C "$R" guard remove "$TEST_ROOT/$kind/clean"
    assert_eq 0 "$RC" "$kind index: git guard remove of a clean tree failed: $ERR"
    assert_no_file "$TEST_ROOT/$kind/clean" "$kind index: the clean tree was not removed"
    assert_eq "" "$(newest_save "$R" clean)" "$kind index: a clean tree was saved"
done

section "a sparse index is not expanded; a sparse directory on disk is still inspected (git's own t1092)"
setup sparse-dirs
mkdir -p "$R/dir" "$R/other" && commit_file "$R" dir/c.txt charlie && commit_file "$R" other/o.txt oscar
git_real -C "$WT" merge -q main
git_real -C "$WT" sparse-checkout set --cone dir
git_real -C "$WT" config index.sparse true
git_real -C "$WT" sparse-checkout reapply
assert_contains "$(git_real -C "$WT" ls-files --sparse -s)" "040000" "the test tree has no sparse directory entry"
GIT_TRACE2_EVENT=$TEST_ROOT/sparse-dirs/trace run_cmd git -C "$R" guard status "$WT"
assert_eq 0 "$RC" "git guard status of a sparse-index tree failed: $ERR"
assert_eq 0 "$(grep -c ensure_full_index "$TEST_ROOT/sparse-dirs/trace")" "git guard status expanded the sparse index"
git_real -C "$WT" config sparse.expectFilesOutsideOfPatterns true
mkdir -p "$WT/other" && printf 'edited outside the cone\n' >"$WT/other/o.txt"
run_cmd git -C "$R" guard save "$WT"
assert_eq 0 "$RC" "git guard save of a sparse-index tree failed: $ERR"
assert_eq "edited outside the cone" "$(show "$R" "$(newest_save "$R" wt):other/o.txt")" \
    "the edit in a sparse directory on disk was not saved"

section "a submodule commit made inside a linked tree is saved (its repository lives in the admin entry)"
new_repo "$TEST_ROOT/subsrc"
setup submodule
git_real -C "$R" submodule add -q "$TEST_ROOT/subsrc" sub
git_real -C "$R" commit -q -m "add sub"
git_real -C "$R" worktree add -q -b lt "$TEST_ROOT/submodule/lt"
LT=$TEST_ROOT/submodule/lt
git_real -C "$LT" submodule update -q --init
commit_file "$LT/sub" only-here.txt "a commit only the linked tree's submodule holds"
C=$(git_real -C "$LT/sub" rev-parse HEAD)
run_cmd git -C "$R" guard remove "$LT"
assert_eq 0 "$RC" "git guard remove of a tree with a submodule commit failed: $ERR"
assert_no_file "$LT" "the tree was not removed"
REF=$(newest_save "$R" lt)
git_real -C "$R" merge-base --is-ancestor "$C" "$REF" 2>/dev/null
assert_eq 0 "$?" "the submodule commit made inside the linked tree was destroyed, not saved"

section "a plain branch stranded/<tree> blocking the name: the save picks another name"
setup blocked
git_real -C "$R" branch stranded/wt
printf 'blocked work\n' >"$WT/u.txt"
run_cmd git -C "$R" guard save "$WT"
assert_eq 0 "$RC" "a branch named stranded/wt made the save fail: $ERR"
assert_eq "blocked work" "$(show "$R" "$(newest_save "$R" wt-2):u.txt")" "the work is not under stranded/wt-2/: it was lost"
assert_eq "$(git_real -C "$R" rev-parse main)" "$(git_real -C "$R" rev-parse stranded/wt)" "the blocking branch was moved"

section "a killed save's leftovers are swept by the next save"
setup swept
mkdir -p "$R/.git/guard/tmp"
: >"$R/.git/guard/tmp/index-99999-killed"
mkdir -p "$R/.git/guard/tmp/merge-killed"
touch -d '2 hours ago' "$R/.git/guard/tmp/index-99999-killed" "$R/.git/guard/tmp/merge-killed"
printf 'x\n' >"$WT/u.txt"
run_cmd git -C "$R" guard save "$WT"
assert_eq 0 "$RC" "save failed: $ERR"
assert_eq "" "$(ls -A "$R/.git/guard/tmp")" "a killed save's private index or scratch repository was left behind"

section "branch -D of a branch whose tip object is missing is let through with a note"
setup ghost
install_hook "$R"
printf '%s\n' 1234567890123456789012345678901234567890 >"$R/.git/refs/heads/ghost"
run_cmd git_real -C "$R" branch -D ghost
assert_eq 0 "$RC" "branch -D of a branch with a missing tip was refused: $ERR"
assert_no_ref "$R" refs/heads/ghost "the ghost branch is still there"

finish
