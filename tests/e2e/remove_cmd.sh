#!/usr/bin/env bash
# `git guard remove <tree> [--delete-branch] [--discard]` (DESIGN §6, LESSONS 5, 6):
# the complete removal for orchestrators. Clean and dirty trees; husks git can no
# longer read (admin entry deleted; .git file missing; a husk inside the main
# checkout, where git would answer for the enclosing repository); a read-only
# subdirectory; an undeletable subdirectory (moved whole, bytes intact); a locked tree
# (kept, exit 1, says why); --delete-branch; --discard; exit codes 0/1/2; and it says
# truthfully whether the tree was removed, moved or kept.
#
# Read-only directories and root: root ignores write bits, so `chmod a-w` proves
# nothing when the suite runs as root (as in CI). The honest set-ups used here:
#  - as a non-root user, the read-only case uses plain `chmod a-w`;
#  - as root, it runs that same case as user nobody (setpriv), on a repository that
#    nobody owns, and first checks that git alone really fails to delete the tree;
#  - as root, `chattr +i` on a subdirectory (which root cannot override) makes a tree
#    that cannot be deleted at all: it must be moved whole, bytes intact.
# A set-up this machine cannot provide is reported as "skip", never as a pass.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GUARD=$GUARD_BIN_DIR/git-guard
PATH=$PATH:$GUARD_BIN_DIR # `git guard ...` as a user types it
export PATH

skip() {
    printf '  skip %s\n' "$*"
}

count() {
    if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | grep -c .; fi
}

# snapshot DIR: every entry with type, mode, size, link target, and every file's hash.
snapshot() {
    (cd "$1" && find . -printf '%p %y %m %s %l\n' | LC_ALL=C sort &&
        find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2)
}

# content_snapshot DIR: the hashes of every file but .git, relative to DIR.
content_snapshot() {
    (cd "$1" && find . -path ./.git -prune -o -type f -exec sha256sum {} + | LC_ALL=C sort -k2)
}

# stranded_of REPO NAME: the stranded branches stranded/NAME/<stamp>.
stranded_of() {
    git_real -C "$1" for-each-ref --format='%(refname:short)' "refs/heads/stranded/$2/"
}

# with_work TREE: modified a.txt and an untracked dir/u.txt.
with_work() {
    printf 'a\nedited\n' >"$1/a.txt"
    mkdir -p "$1/dir"
    printf 'untracked in %s\n' "$(basename "$1")" >"$1/dir/u.txt"
}

# check_saved REF TREE WHAT: REF holds with_work's work of TREE.
check_saved() {
    assert_eq "$(printf 'a\nedited')" "$(git_real -C "$REPO" show "$1:a.txt" 2>&1)" \
        "$3: the edit of a.txt was destroyed, not saved"
    assert_eq "untracked in $(basename "$2")" "$(git_real -C "$REPO" show "$1:dir/u.txt" 2>&1)" \
        "$3: the untracked file was destroyed, not saved"
    assert_eq "" "$(git_real -C "$REPO" ls-tree -r --name-only "$1" | grep -x '.git')" \
        "$3: the save does not record the tree's .git file"
}

new_repo "$TEST_ROOT/repo"
commit_file "$TEST_ROOT/repo" a.txt "a"
REPO=$TEST_ROOT/repo
git_real -C "$REPO" config guard.enabled true
cd "$REPO" || exit 1
main_head=$(git_real rev-parse HEAD)

section "a clean tree: removed, nothing saved, exit 0"
git_real worktree add -q -b clean "$TEST_ROOT/clean"
run_cmd git guard remove "$TEST_ROOT/clean"
assert_eq 0 "$RC" "clean: exit 0 ($ERR)"
assert_eq "removed $TEST_ROOT/clean" "$OUT" "clean: it says 'removed <path>'"
assert_no_file "$TEST_ROOT/clean" "clean: the tree is gone"
assert_eq "" "$(stranded_of "$REPO" clean)" "clean: nothing saved"
assert_ref_exists "$REPO" refs/heads/clean "clean: the branch stays"
assert_not_contains "$(git_real worktree list --porcelain)" "$TEST_ROOT/clean" "clean: the admin entry is pruned"

section "a dirty tree: saved, then removed, exit 0"
git_real worktree add -q -b dirty "$TEST_ROOT/dirty"
with_work "$TEST_ROOT/dirty"
run_cmd git guard remove "$TEST_ROOT/dirty"
assert_eq 0 "$RC" "dirty: exit 0 ($ERR)"
ref=$(stranded_of "$REPO" dirty)
assert_eq 1 "$(count "$ref")" "dirty: one stranded branch"
check_saved "${ref:-none}" "$TEST_ROOT/dirty" "dirty"
assert_contains "$OUT" "saved to refs/heads/${ref:-none}" "dirty: it names the stranded branch"
assert_contains "$OUT" "removed $TEST_ROOT/dirty" "dirty: it says 'removed'"
assert_no_file "$TEST_ROOT/dirty" "dirty: the tree is gone"

section "a husk whose admin entry was deleted (rm -rf .git/worktrees/<name>)"
git_real worktree add -q -b husk1 "$TEST_ROOT/husk1"
with_work "$TEST_ROOT/husk1"
rm -rf "$REPO/.git/worktrees/husk1"
cp "$REPO/.git/index" "$TEST_ROOT/main-index"
run_cmd git guard remove "$TEST_ROOT/husk1"
assert_eq 0 "$RC" "husk without admin entry: exit 0 ($ERR)"
ref=$(stranded_of "$REPO" husk1)
assert_eq 1 "$(count "$ref")" "husk without admin entry: one stranded branch"
check_saved "${ref:-none}" "$TEST_ROOT/husk1" "husk without admin entry"
assert_eq "readme" "$(git_real show "${ref:-none}:README" 2>&1)" "husk without admin entry: its unchanged files are saved too"
assert_no_file "$TEST_ROOT/husk1" "husk without admin entry: it is gone"
assert_contains "$OUT" "removed $TEST_ROOT/husk1" "husk without admin entry: it says 'removed'"
assert_eq "$main_head" "$(git_real rev-parse HEAD)" "husk without admin entry: the main checkout's HEAD did not move"
assert_same_file "$TEST_ROOT/main-index" "$REPO/.git/index" "husk without admin entry: the main checkout's index is untouched"

section "a husk with no .git file"
git_real worktree add -q -b husk2 "$TEST_ROOT/husk2"
with_work "$TEST_ROOT/husk2"
husk2_tip=$(git_real rev-parse husk2)
rm "$TEST_ROOT/husk2/.git"
run_cmd git guard remove "$TEST_ROOT/husk2"
assert_eq 0 "$RC" "husk without .git: exit 0 ($ERR)"
ref=$(stranded_of "$REPO" husk2)
assert_eq 1 "$(count "$ref")" "husk without .git: one stranded branch"
check_saved "${ref:-none}" "$TEST_ROOT/husk2" "husk without .git"
assert_no_file "$TEST_ROOT/husk2" "husk without .git: it is gone"
assert_not_contains "$(git_real worktree list --porcelain)" "$TEST_ROOT/husk2" "husk without .git: the admin entry is pruned"
assert_eq "$husk2_tip" "$(git_real rev-parse husk2)" "husk without .git: its branch did not move"

section "a husk with no .git file INSIDE the main checkout (git would answer for the main repository)"
printf '.trees/\n' >>"$REPO/.git/info/exclude"
git_real worktree add -q -b husk3 "$REPO/.trees/husk3"
with_work "$REPO/.trees/husk3"
rm "$REPO/.trees/husk3/.git"
cp "$REPO/.git/index" "$TEST_ROOT/main-index"
main_status=$(git_real status --porcelain)
run_cmd git guard remove .trees/husk3
assert_eq 0 "$RC" "husk inside the main checkout: exit 0 ($ERR)"
ref=$(stranded_of "$REPO" husk3)
assert_eq 1 "$(count "$ref")" "husk inside the main checkout: one stranded branch"
check_saved "${ref:-none}" "$REPO/.trees/husk3" "husk inside the main checkout"
assert_eq "" "$(git_real ls-tree -r --name-only "${ref:-none}" | grep '^\.trees/')" \
    "husk inside the main checkout: the save holds the husk's files, not the main checkout's"
assert_no_file "$REPO/.trees/husk3" "husk inside the main checkout: it is gone"
assert_eq "$main_head" "$(git_real rev-parse HEAD)" "husk inside the main checkout: nothing was committed onto the main branch"
assert_same_file "$TEST_ROOT/main-index" "$REPO/.git/index" "husk inside the main checkout: the main index is untouched"
assert_eq "$main_status" "$(git_real status --porcelain)" "husk inside the main checkout: the main checkout's status is unchanged"

section "a locked tree is kept: exit 1, and it says why"
git_real worktree add -q -b locked "$TEST_ROOT/locked"
with_work "$TEST_ROOT/locked"
git_real worktree lock --reason "agent 7 is working here" "$TEST_ROOT/locked"
snapshot "$TEST_ROOT/locked" >"$TEST_ROOT/locked.before"
run_cmd git guard remove "$TEST_ROOT/locked"
assert_eq 1 "$RC" "locked: exit 1"
assert_contains "$OUT$ERR" "locked" "locked: it says the tree is locked"
assert_contains "$OUT$ERR" "agent 7 is working here" "locked: it gives the lock's reason"
assert_contains "$OUT$ERR" "git worktree unlock" "locked: it says how to unlock"
assert_contains "$OUT$ERR" "kept" "locked: it says the tree was kept"
snapshot "$TEST_ROOT/locked" >"$TEST_ROOT/locked.after"
assert_same_file "$TEST_ROOT/locked.before" "$TEST_ROOT/locked.after" "locked: the locked tree's files were touched"
assert_contains "$(git_real worktree list --porcelain)" "worktree $TEST_ROOT/locked" "locked: the tree is still registered"
run_cmd git guard remove --json "$TEST_ROOT/locked"
assert_contains "$OUT" '"outcome":"kept"' "locked: --json says outcome kept"

section "--delete-branch saves, then deletes the branch"
git_real worktree add -q -b deleteme "$TEST_ROOT/deleteme"
commit_file "$TEST_ROOT/deleteme" c.txt "committed, never pushed" "unpushed commit"
unpushed=$(git_real rev-parse deleteme)
with_work "$TEST_ROOT/deleteme"
run_cmd git guard remove --delete-branch "$TEST_ROOT/deleteme"
assert_eq 0 "$RC" "--delete-branch: exit 0 ($ERR)"
assert_no_file "$TEST_ROOT/deleteme" "--delete-branch: the tree is gone"
assert_no_ref "$REPO" refs/heads/deleteme "--delete-branch: the branch is gone"
assert_ne "" "$(git_real for-each-ref --contains "$unpushed" refs/heads/stranded/)" \
    "--delete-branch: the branch's unpushed commit was lost, not saved"
ref=$(stranded_of "$REPO" deleteme)
check_saved "$(printf '%s\n' "$ref" | head -1)" "$TEST_ROOT/deleteme" "--delete-branch"
git_real worktree add -q -b merged "$TEST_ROOT/merged" main
before=$(git_real for-each-ref refs/heads/stranded/)
run_cmd git guard remove --delete-branch "$TEST_ROOT/merged"
assert_eq 0 "$RC" "--delete-branch of a clean tree on a branch held elsewhere: exit 0"
assert_no_ref "$REPO" refs/heads/merged "--delete-branch: the merged branch is gone"
assert_eq "$before" "$(git_real for-each-ref refs/heads/stranded/)" "--delete-branch: nothing saved for a branch held elsewhere"

section "--discard destroys without saving, and logs it"
git_real worktree add -q -b discardme "$TEST_ROOT/discardme"
with_work "$TEST_ROOT/discardme"
before=$(git_real for-each-ref refs/heads/stranded/)
run_cmd git guard remove --discard "$TEST_ROOT/discardme"
assert_eq 0 "$RC" "--discard: exit 0 ($ERR)"
assert_no_file "$TEST_ROOT/discardme" "--discard: the tree is gone"
assert_eq "$before" "$(git_real for-each-ref refs/heads/stranded/)" "--discard: nothing was saved"
assert_contains "$(cat "$REPO/.git/guard/guard.log" 2>/dev/null)" "discarding $TEST_ROOT/discardme" "--discard: it is logged"

section "exit codes: 2 for usage, non-zero for what is not a linked worktree"
run_cmd git guard remove
assert_eq 2 "$RC" "no tree: exit 2 (usage)"
run_cmd git guard remove --bogus "$TEST_ROOT/x"
assert_eq 2 "$RC" "an unknown option: exit 2 (usage)"
run_cmd git guard remove "$REPO"
assert_ne 0 "$RC" "the main worktree is refused"
assert_file_exists "$REPO/README" "the main worktree is left alone"
mkdir -p "$TEST_ROOT/stranger"
echo precious >"$TEST_ROOT/stranger/file"
run_cmd git guard remove "$TEST_ROOT/stranger"
assert_ne 0 "$RC" "a directory that is no worktree is refused"
assert_file_exists "$TEST_ROOT/stranger/file" "a directory that is no worktree is left alone"

section "a read-only subdirectory: saved, then deleted for real"
# as_tester COMMAND...: runs COMMAND as the user who owns the read-only case.
RO_READY=no
if [ "$(id -u)" -ne 0 ]; then
    as_tester() { "$@"; }
    RO=$TEST_ROOT/ro
    RO_READY=yes
elif command -v setpriv >/dev/null 2>&1 && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    chmod 755 "$TEST_ROOT"
    RO=$TEST_ROOT/ro
    mkdir -p "$RO/home"
    cp "$HOME/.gitconfig" "$RO/home/.gitconfig"
    chown -R 65534:65534 "$RO"
    as_tester() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$RO/home" "$@"; }
    if as_tester test -x "$GUARD" && as_tester "$REAL_GIT" --version >/dev/null; then
        RO_READY=yes
    else
        skip "user nobody cannot run $GUARD (a parent directory is closed to it): the read-only case is untested"
    fi
else
    skip "running as root without a working setpriv: root ignores write bits, so the read-only case is untested"
fi
if [ "$RO_READY" = yes ]; then
    mkdir -p "$RO"
    as_tester "$REAL_GIT" init -q "$RO/repo"
    printf 'readme\n' | as_tester tee "$RO/repo/README" >/dev/null
    as_tester "$REAL_GIT" -C "$RO/repo" add README
    as_tester "$REAL_GIT" -C "$RO/repo" commit -q -m initial
    as_tester "$REAL_GIT" -C "$RO/repo" config guard.enabled true
    for t in control tree; do
        as_tester "$REAL_GIT" -C "$RO/repo" worktree add -q -b "ro-$t" "$RO/ro-$t"
        as_tester mkdir -p "$RO/ro-$t/build/out"
        printf 'made in a read-only dir\n' | as_tester tee "$RO/ro-$t/build/out/result.txt" >/dev/null
        as_tester chmod a-w "$RO/ro-$t/build/out" "$RO/ro-$t/build"
    done
    as_tester "$REAL_GIT" -C "$RO/repo" worktree remove --force "$RO/ro-control" >/dev/null 2>&1
    if [ -e "$RO/ro-control/build/out/result.txt" ]; then
        pass "the set-up is honest: git alone cannot delete the read-only subdirectory as $(as_tester id -un)"
    else
        fail "the set-up proves nothing: git deleted the read-only subdirectory as $(as_tester id -un)"
    fi
    (cd "$RO/repo" && as_tester "$GUARD" remove "$RO/ro-tree") >"$TEST_ROOT/ro.out" 2>&1
    rc=$?
    assert_eq 0 "$rc" "read-only: exit 0 ($(cat "$TEST_ROOT/ro.out"))"
    ref=$(as_tester "$REAL_GIT" -C "$RO/repo" for-each-ref --format='%(refname:short)' refs/heads/stranded/ro-tree/)
    assert_eq "made in a read-only dir" "$(as_tester "$REAL_GIT" -C "$RO/repo" show "${ref:-none}:build/out/result.txt" 2>&1)" \
        "read-only: the file in the read-only directory was destroyed, not saved"
    assert_no_file "$RO/ro-tree" "read-only: the tree was deleted for real"
    assert_contains "$(cat "$TEST_ROOT/ro.out")" "removed $RO/ro-tree" "read-only: it says 'removed', truthfully"
    assert_not_contains "$(as_tester "$REAL_GIT" -C "$RO/repo" worktree list --porcelain)" "$RO/ro-tree" \
        "read-only: the admin entry is pruned"
    chmod -R u+w "$RO" 2>/dev/null
fi

section "an undeletable subdirectory (chattr +i): saved, then moved whole, bytes intact"
git_real worktree add -q -b stuck "$TEST_ROOT/stuck"
with_work "$TEST_ROOT/stuck"
mkdir -p "$TEST_ROOT/stuck/pinned"
printf 'pinned bytes\n' >"$TEST_ROOT/stuck/pinned/p.bin"
if [ "$(id -u)" -eq 0 ] && chattr +i "$TEST_ROOT/stuck/pinned" 2>/dev/null; then
    content_snapshot "$TEST_ROOT/stuck" >"$TEST_ROOT/stuck.before"
    run_cmd git guard remove "$TEST_ROOT/stuck"
    assert_eq 0 "$RC" "undeletable: exit 0, the path is free ($ERR)"
    ref=$(stranded_of "$REPO" stuck)
    check_saved "${ref:-none}" "$TEST_ROOT/stuck" "undeletable"
    assert_eq "pinned bytes" "$(git_real show "${ref:-none}:pinned/p.bin" 2>&1)" "undeletable: the pinned file was destroyed, not saved"
    assert_no_file "$TEST_ROOT/stuck" "undeletable: the path is free"
    moved=$(ls -d "$REPO"/.git/guard/husks/stuck-* 2>/dev/null | head -1)
    assert_ne "" "$moved" "undeletable: the tree was moved under .git/guard/husks/"
    assert_contains "$OUT" "moved it whole to $moved" "undeletable: it says it moved the tree, and where"
    assert_not_contains "$OUT" "removed $TEST_ROOT/stuck" "undeletable: it does not claim 'removed'"
    if [ -n "$moved" ]; then
        content_snapshot "$moved" >"$TEST_ROOT/stuck.after"
        # The deletion may have taken files outside the pinned directory before it
        # failed; what is left must be byte-identical, and the pinned part whole.
        assert_eq "" "$(LC_ALL=C comm -13 "$TEST_ROOT/stuck.before" "$TEST_ROOT/stuck.after")" \
            "undeletable: every file in the moved tree has its original bytes"
        assert_contains "$(cat "$TEST_ROOT/stuck.after")" "./pinned/p.bin" "undeletable: the pinned directory was moved whole"
        chattr -R -i "$moved" 2>/dev/null
    fi
    assert_not_contains "$(git_real worktree list --porcelain)" "$TEST_ROOT/stuck" "undeletable: the admin entry is pruned"
    chattr -R -i "$TEST_ROOT/stuck" 2>/dev/null
else
    skip "chattr +i is not available here (not root, or the file system refuses): the moved-whole case is untested"
fi

finish
