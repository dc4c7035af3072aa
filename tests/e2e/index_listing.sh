#!/usr/bin/env bash
# The kept index listing (issue 35 item 5: `guard status` over N trees, one git per tree):
# what `git ls-files --sparse -v -s -z` said of a tree's index is kept under the digest of
# the index file's bytes, and taken instead of asking again only for those very bytes. This
# suite tries to break it: a hidden edit made after the listing was kept, a listing planted
# from another tree, an embedded repository, a torn listing, a sparse checkout (never kept:
# git may convert a sparse index as it reads it).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PATH=$GUARD_BIN_DIR:$PATH
export PATH
hash -r

R=$TEST_ROOT/repo
WT=$TEST_ROOT/wt
new_repo "$R"
commit_file "$R" a.txt alpha
commit_file "$R" b.txt bravo
git_real -C "$R" worktree add -q -b wt "$WT"
install_hook "$R"
git_real -C "$R" config guard.enabled true
mkdir -p "$R/.git/guard" # what the first save makes; the listing is kept only beside it
SLOTS=$R/.git/guard/indexes
CALLS=$TEST_ROOT/calls
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"%s"\nexec "%s" "$@"\n' "$CALLS" "$REAL_GIT" >"$TEST_ROOT/logging-git"
chmod +x "$TEST_ROOT/logging-git"

# status_of TREE: the line `git guard status TREE` prints for it in $LINE, and the count of
# git's index listings it ran in $LISTED.
status_of() {
    : >"$CALLS"
    run_cmd env GIT_GUARD_REAL_GIT="$TEST_ROOT/logging-git" git -C "$R" guard status "$1"
    LISTED=$(grep -c ' ls-files --sparse ' "$CALLS" || true)
    LINE=$(printf '%s\n' "$OUT" | grep -F -- "$1" | head -1)
}

section "a listing is kept, and used for the same index bytes only"
status_of "$WT"
assert_contains "$LINE" "clean" "the fresh tree reads as clean"
assert_eq 1 "$LISTED" "the first status lists the index"
assert_file_exists "$SLOTS/tree-wt" "the tree's index listing is kept"
status_of "$WT"
assert_contains "$LINE" "clean" "the tree reads as clean again"
assert_eq 0 "$LISTED" "the same index bytes: the kept listing is used, git is not asked again"
printf 'alpha edited\n' >"$WT/a.txt"
git_real -C "$WT" add a.txt
status_of "$WT"
assert_contains "$LINE" "has work" "a staged edit (the index changed) is not seen"
assert_eq 1 "$LISTED" "a changed index is listed again"

section "a hidden edit made after the listing was kept is seen"
git_real -C "$WT" commit -qm "a edited"
git_real -C "$WT" update-index --assume-unchanged b.txt
status_of "$WT"
assert_contains "$LINE" "clean" "an assume-unchanged file, unedited: clean"
assert_eq 1 "$LISTED" "the new index is listed"
printf 'bravo, edited where git status does not look\n' >"$WT/b.txt" # the index is untouched
status_of "$WT"
assert_eq 0 "$LISTED" "the index bytes did not change: the kept listing is used"
assert_contains "$LINE" "has work" "LOST: an edit of an assume-unchanged file, hidden from git status, read as clean from the kept listing: $LINE"

section "a listing planted from another tree is not this tree's"
status_of "$R"
assert_file_exists "$SLOTS/main" "the main tree's listing is kept"
cp "$SLOTS/main" "$SLOTS/tree-wt"
status_of "$WT"
assert_contains "$LINE" "has work" "LOST: the main tree's listing (no hidden entry) was taken for this tree's index: $LINE"
assert_eq 1 "$LISTED" "another index's listing is not used: git lists this one"
printf 'git-guard index-listing torn' >"$SLOTS/tree-wt"
status_of "$WT"
assert_contains "$LINE" "has work" "LOST: a torn listing hid the edit"
git_real -C "$WT" update-index --no-assume-unchanged b.txt
git_real -C "$WT" checkout -q -- b.txt

section "an index that changes while git lists it keys nothing"
# A "real git" that, at its first index listing, takes b.txt's assume-unchanged bit away
# (the index git then lists) and keeps a copy of the index as it was when the guard read it.
git_real -C "$WT" update-index --assume-unchanged b.txt
CHANGING=$TEST_ROOT/changing-git
cat >"$CHANGING" <<EOF
#!/usr/bin/env bash
if [[ " \$* " == *" ls-files --sparse "* && ! -e "$TEST_ROOT/.changed" ]]; then
    touch "$TEST_ROOT/.changed"
    cp "\$GIT_INDEX_FILE" "$TEST_ROOT/index.before"
    "$REAL_GIT" update-index --no-assume-unchanged b.txt
fi
exec "$REAL_GIT" "\$@"
EOF
chmod +x "$CHANGING"
rm -f "$SLOTS/tree-wt"
run_cmd env GIT_GUARD_REAL_GIT="$CHANGING" git -C "$R" guard status "$WT"
assert_file_exists "$TEST_ROOT/.changed" "the changing git never listed the index: the test changed nothing"
cp "$TEST_ROOT/index.before" "$(git_real -C "$WT" rev-parse --path-format=absolute --git-path index)"
printf 'bravo, edited after the index came back\n' >"$WT/b.txt"
status_of "$WT"
assert_contains "$LINE" "has work" "LOST: the listing of the changed index (no assume-unchanged entry) was kept for the index as it was before: $LINE"
git_real -C "$WT" update-index --no-assume-unchanged b.txt
git_real -C "$WT" checkout -q -- b.txt

section "an embedded repository is in the kept listing"
new_repo "$WT/inner"
git_real -C "$WT" add inner 2>/dev/null # a gitlink whose repository lives only here
git_real -C "$WT" commit -qm "inner"
status_of "$WT"
status_of "$WT"
assert_eq 0 "$LISTED" "the kept listing is used"
assert_contains "$LINE" "has work" "LOST: the embedded repository (a gitlink with its own .git) read as no work from the kept listing: $LINE"

section "a sparse checkout is never kept: git is asked every time"
git_real -C "$R" worktree add -q -b sp "$TEST_ROOT/sp"
git_real -C "$TEST_ROOT/sp" update-index --skip-worktree b.txt
printf 'bravo, skip-worktree but on disk\n' >"$TEST_ROOT/sp/b.txt"
status_of "$TEST_ROOT/sp"
assert_contains "$LINE" "has work" "LOST: an edit of a skip-worktree file on disk read as clean"
assert_no_file "$SLOTS/tree-sp" "a listing with a skip-worktree entry was kept"
status_of "$TEST_ROOT/sp"
assert_eq 1 "$LISTED" "a sparse index is listed by git every time"

section "the listings of trees that are gone are dropped"
git_real -C "$R" worktree remove --force "$TEST_ROOT/sp"
git_real -C "$R" worktree add -q -b gone "$TEST_ROOT/gone"
status_of "$TEST_ROOT/gone"
assert_file_exists "$SLOTS/tree-gone" "the new tree's listing is kept"
rm -rf "$TEST_ROOT/gone"
git_real -C "$R" worktree prune
git_real -C "$R" worktree add -q -b later "$TEST_ROOT/later"
status_of "$TEST_ROOT/later"
assert_no_file "$SLOTS/tree-gone" "a pruned tree's listing stays after a new one is kept"
assert_file_exists "$SLOTS/tree-wt" "a live tree's listing was dropped"

finish
