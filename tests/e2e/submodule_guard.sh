#!/usr/bin/env bash
# A repository inside a guarded one is guarded too (DESIGN §4.1, issue 16 item 3): what
# runs in a submodule or a nested repository (`submodule foreach 'git reset --hard &&
# git clean -fd'`, `git -C sub reset --hard`, `git -C sub branch -D`) saves first, in that
# repository, although its own config has no guard.enabled. And a linked tree's submodule
# commit that only <common>/worktrees/<id>/modules/ holds, committed in the superproject
# or not, is saved when that tree is removed with --force. An unguarded superproject's
# submodule gets git untouched.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# held REPO OBJECT: whether OBJECT (a blob or commit id) is reachable from a ref of REPO.
held() {
    git_real -C "$1" rev-list --objects --all | grep "^$2" >/dev/null
}

# blob TEXT: the id of a blob holding TEXT and a newline.
blob() {
    printf '%s\n' "$1" | git_real hash-object --stdin
}

# super_with_sub NAME: $TEST_ROOT/NAME, a repository with the submodule `sub` (from the
# bare $TEST_ROOT/NAME.sub.git, which holds s.txt), both committed.
super_with_sub() {
    local root=$TEST_ROOT/$1
    new_repo "$root.subseed"
    commit_file "$root.subseed" s.txt "sub file"
    git_real clone -q --bare "$root.subseed" "$root.sub.git"
    rm -rf "$root.subseed"
    new_repo "$root"
    git_real -C "$root" submodule add -q "$root.sub.git" sub >/dev/null 2>&1
    git_real -C "$root" commit -q -m "add sub"
}

shim_on

section "submodule foreach 'git reset --hard && git clean -fd' saves the submodule's work"
super_with_sub fe
repo=$TEST_ROOT/fe
git_real -C "$repo" config guard.enabled true
install_hook "$repo"
printf 'edited in the submodule\n' >"$repo/sub/s.txt"
printf 'untracked in the submodule\n' >"$repo/sub/u.txt"
run_cmd git -C "$repo" submodule foreach --quiet 'git reset -q --hard && git clean -q -fd'
assert_eq 0 "$RC" "foreach runs as git does: $ERR"
assert_no_file "$repo/sub/u.txt" "git cleaned the submodule"
held "$repo/sub" "$(blob 'edited in the submodule')"
assert_eq 0 "$?" "the submodule's edit was destroyed by reset --hard, not saved"
held "$repo/sub" "$(blob 'untracked in the submodule')"
assert_eq 0 "$?" "the submodule's untracked file was destroyed by clean -fd, not saved"
assert_eq "" "$(git_real -C "$repo/sub" config guard.enabled)" \
    "nothing was written into the submodule's config"

section "git -C sub reset --hard saves the submodule's edit"
printf 'second edit in the submodule\n' >"$repo/sub/s.txt"
run_cmd git -C "$repo/sub" reset --hard -q
assert_eq 0 "$RC" "reset --hard runs: $ERR"
held "$repo/sub" "$(blob 'second edit in the submodule')"
assert_eq 0 "$?" "git -C sub reset --hard destroyed the submodule's edit, not saved"

section "git -C sub branch -D of an unpushed branch saves its tip"
git_real -C "$repo/sub" checkout -q -b topic
commit_file "$repo/sub" t.txt "topic work" "only on the submodule's topic"
tip=$(git_real -C "$repo/sub" rev-parse topic)
git_real -C "$repo/sub" checkout -q --detach main 2>/dev/null || git_real -C "$repo/sub" checkout -q --detach HEAD~1
run_cmd git -C "$repo/sub" branch -D topic
assert_eq 0 "$RC" "branch -D runs: $ERR"
assert_eq "" "$(git_real -C "$repo/sub" for-each-ref refs/heads/topic)" "git deleted the branch"
assert_ne "" "$(git_real -C "$repo/sub" for-each-ref --contains "$tip" --format='%(refname)')" \
    "the submodule branch's unpushed commit was deleted unsaved"

section "a nested repository (not a submodule) inside a guarded tree is guarded too"
repo=$TEST_ROOT/nested
new_repo "$repo"
git_real -C "$repo" config guard.enabled true
new_repo "$repo/inner"
printf 'edited in the nested repository\n' >"$repo/inner/README"
run_cmd git -C "$repo/inner" reset --hard -q
assert_eq 0 "$RC" "reset --hard runs: $ERR"
held "$repo/inner" "$(blob 'edited in the nested repository')"
assert_eq 0 "$?" "reset --hard in a nested repository destroyed its edit, not saved"

section "an unguarded superproject's submodule: git alone, nothing saved"
super_with_sub plain
repo=$TEST_ROOT/plain
printf 'edited, unguarded\n' >"$repo/sub/s.txt"
run_cmd git -C "$repo/sub" reset --hard -q
assert_eq 0 "$RC" "reset --hard runs"
assert_eq "" "$(git_real -C "$repo/sub" for-each-ref refs/stranded/ refs/heads/stranded/)" \
    "no save in an unguarded superproject's submodule"

section "remove --force of a linked tree saves a submodule commit only its modules/ held"
super_with_sub linked
repo=$TEST_ROOT/linked
git_real -C "$repo" config guard.enabled true
install_hook "$repo"
git_real -C "$repo" worktree add -q -b feature "$repo.wt"
git_real -C "$repo.wt" submodule update -q --init 2>/dev/null
sub_git=$(git_real -C "$repo.wt/sub" rev-parse --absolute-git-dir)
assert_contains "$sub_git" "/worktrees/" "the linked tree's submodule lives in its admin entry (git ≥ 2.x)"
commit_file "$repo.wt/sub" w.txt "committed in the linked tree's submodule" "sub work"
committed=$(git_real -C "$repo.wt/sub" rev-parse HEAD)
git_real -C "$repo.wt" commit -q -am "point sub at the new commit"
git_real -C "$repo.wt" status --porcelain >"$TEST_ROOT/linked.status"
assert_eq "" "$(cat "$TEST_ROOT/linked.status")" "the linked tree is clean: the gitlink is committed"
git_real -C "$repo" cat-file -e "$committed" 2>/dev/null
assert_ne 0 "$?" "the superproject's store does not hold the submodule commit"
run_cmd git -C "$repo" worktree remove --force --force "$repo.wt"
assert_eq 0 "$RC" "remove --force runs as git does: $ERR"
assert_no_file "$repo.wt" "git removed the linked tree"
git_real -C "$repo" cat-file -e "$committed" 2>/dev/null
assert_eq 0 "$?" "the linked tree's submodule commit (committed gitlink) was lost with its modules/"
assert_ne "" "$(git_real -C "$repo" for-each-ref --contains "$committed" --format='%(refname)' refs/heads/stranded/)" \
    "no stranded branch keeps the linked tree's submodule commit reachable"

finish
