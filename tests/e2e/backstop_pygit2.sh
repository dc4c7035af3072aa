#!/usr/bin/env bash
# The backstop's event layer against libgit2 (pygit2), which deletes refs and prunes
# worktrees without running any hook (DESIGN §15): the watcher saves what lost its last
# name, judged like the hook's deletions, and names itself as the save's source.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

if ! "$PYTHON" -c 'import pygit2' 2>/dev/null; then
    skip_suite "pygit2 is not installed (Debian: python3-pygit2): skipping the libgit2 backstop suite"
fi

# pygit REPO PYTHON: runs PYTHON with `r` the repository at REPO.
pygit() {
    "$PYTHON" -c "import pygit2, sys; r = pygit2.Repository(sys.argv[1]); $2" "$1"
}

guarded_clone repo

section "pygit2 branches.delete: the unpushed commit is saved"
TIP=$(unpushed "$REPO" lib-branch)
wait_known "$REPO" "$TIP"
pygit "$REPO" "r.branches.delete('lib-branch')"
assert_no_ref "$REPO" refs/heads/lib-branch "pygit2 did not delete the branch"
assert_saved "$REPO" lib-branch "$TIP" "branches.delete"
REF=$(save_of "$REPO" lib-branch)
run_cmd "$GUARD" -C "$REPO" show "${REF#refs/heads/}"
assert_contains "$OUT" "vanished (no git hook ran)" "git guard show names the watcher as the source"
run_cmd "$GUARD" -C "$REPO" log
assert_contains "$OUT" "vanished (no git hook ran)" "git guard log names the watcher as the source"

section "the watcher's save of a deleted branch restores as that branch"
run_cmd "$GUARD" -C "$REPO" restore "${REF#refs/heads/}"
assert_eq 0 "$RC" "git guard restore of the watcher's save of a branch refused ($ERR)"
assert_eq "$TIP" "$(git_real -C "$REPO" rev-parse -q --verify refs/heads/lib-branch)" \
    "restore did not put refs/heads/lib-branch back at the saved commit"

section "pygit2 references.delete: the unpushed commit is saved"
TIP=$(unpushed "$REPO" lib-ref)
wait_known "$REPO" "$TIP"
pygit "$REPO" "r.references.delete('refs/heads/lib-ref')"
assert_saved "$REPO" lib-ref "$TIP" "references.delete"

section "a pushed branch deleted by pygit2 is published: nothing saved"
TIP=$(unpushed "$REPO" lib-pushed)
git_real -C "$REPO" push -q origin lib-pushed
wait_known "$REPO" "$TIP"
pygit "$REPO" "r.branches.delete('lib-pushed')"
# A later deletion's save proves the watcher has read past this one.
read_past "$REPO" lib-mark pygit "$REPO" "r.branches.delete('lib-mark')"
assert_eq 0 "$(saves "$REPO" lib-pushed)" "a published branch was saved"

section "a branch renamed by pygit2 keeps its name elsewhere: nothing saved"
TIP=$(unpushed "$REPO" lib-old)
wait_known "$REPO" "$TIP"
pygit "$REPO" "r.branches['lib-old'].rename('lib-new')"
read_past "$REPO" lib-mark2 pygit "$REPO" "r.branches.delete('lib-mark2')"
assert_eq 0 "$(saves "$REPO" lib-old)" "a renamed branch was saved"

section "a branch libgit2 rewrites onto a commit holding its content (an amend) saves nothing"
TIP=$(unpushed "$REPO" lib-amend)
wait_known "$REPO" "$TIP"
AMENDED=$(git_real -C "$REPO" commit-tree -p main -m "amended message" "$(git_real -C "$REPO" rev-parse "$TIP^{tree}")")
pygit "$REPO" "r.references['refs/heads/lib-amend'].set_target('$AMENDED')"
read_past "$REPO" lib-mark3 pygit "$REPO" "r.branches.delete('lib-mark3')"
assert_eq 0 "$(saves "$REPO" lib-amend)" "a rewrite that kept the content was saved"

section "a branch libgit2 moves off its unpushed commit (a forced move) is saved"
TIP=$(unpushed "$REPO" lib-forced)
wait_known "$REPO" "$TIP"
pygit "$REPO" "r.references['refs/heads/lib-forced'].set_target(r.revparse_single('main').id)"
assert_saved "$REPO" lib-forced "$TIP" "a forced move"

section "pygit2 Worktree.prune: the tree's detached commit and its staged file are saved"
tree_with_work lib-tree
pygit "$REPO" "r.lookup_worktree('lib-tree').prune(True)"
assert_no_file "$REPO/.git/worktrees/lib-tree" "pygit2 did not prune the admin entry"
if poll 30 saved_at "$REPO" lib-tree "$HEAD_ID"; then
    pass "Worktree.prune: the detached commit is saved"
    REF=$(save_of "$REPO" lib-tree)
    assert_eq "$STAGED" "$(git_real -C "$REPO" rev-parse "$REF:staged.txt" 2>/dev/null)" \
        "Worktree.prune: the staged file was destroyed, not saved"
    index_gone() { [ ! -e "$REPO/.git/guard/watch/index-lib-tree" ]; }
    poll 10 index_gone || fail "the watcher keeps the vanished tree's index copy after saving it"
else
    fail "Worktree.prune: the detached commit $HEAD_ID was destroyed, not saved"
fi

finish
