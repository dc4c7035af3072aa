#!/usr/bin/env bash
# Hold first, then judge (DESIGN §15): a tip the watcher has read is held before any tool
# acts, so a libgit2 delete followed at once by `git prune --expire=now`, or a mass
# delete followed by `gc --prune=now`, loses nothing, and no save ref ever names a pruned
# object (`git log --all`, fsck and `git guard list` stay clean).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

if ! "$PYTHON" -c 'import pygit2' 2>/dev/null; then
    skip_suite "pygit2 is not installed (Debian: python3-pygit2): skipping the hold suite"
fi

# pygit REPO PYTHON: runs PYTHON with `r` the repository at REPO and `git` the real git.
pygit() {
    "$PYTHON" -c "import pygit2, subprocess, sys; r = pygit2.Repository(sys.argv[1]); git = sys.argv[2]; $2" \
        "$1" "$REAL_GIT"
}

# clean REPO WHAT: `git log --all`, fsck and `git guard list` all succeed.
clean() {
    run_cmd git_real -C "$1" log --all --oneline
    assert_eq 0 "$RC" "$2: git log --all fails ($ERR)"
    run_cmd git_real -C "$1" fsck --no-dangling
    assert_eq 0 "$RC" "$2: fsck reports errors ($ERR$OUT)"
    run_cmd "$GUARD" -C "$1" list
    assert_eq 0 "$RC" "$2: git guard list fails ($ERR)"
}

guarded_clone repo

section "a libgit2 delete followed at once by prune --expire=now: the commit is saved"
for i in 1 2 3; do
    TIP=$(unpushed "$REPO" race-$i)
    wait_known "$REPO" "$TIP"
    git_real -C "$REPO" reflog expire --expire=now --all
    pygit "$REPO" "r.branches.delete('race-$i'); subprocess.run([git, '-C', sys.argv[1], 'prune', '--expire=now'], check=True)"
    assert_no_ref "$REPO" refs/heads/race-$i "pygit2 did not delete the branch"
    if poll 30 saved_at "$REPO" race-$i "$TIP"; then
        pass "race $i: the commit is saved"
        REF=$(save_of "$REPO" race-$i)
        run_cmd git_real -C "$REPO" cat-file -e "$REF^{tree}"
        assert_eq 0 "$RC" "race $i: the save ref names a pruned commit"
    else
        fail "race $i: the commit $TIP was pruned, not saved (the prune won the race)"
    fi
done
clean "$REPO" "after delete + prune"

section "100 libgit2 deletes, then reflog expire and gc --prune=now: every commit is saved"
# One process writes the 100 unpushed commits (each with a blob and tree of its own).
pygit "$REPO" "
main = r.revparse_single('main')
sig = pygit2.Signature('t', 't@example.com')
for i in range(1, 101):
    b = r.TreeBuilder()
    b.insert('m.txt', r.create_blob(b'mass %d\\n' % i), pygit2.GIT_FILEMODE_BLOB)
    r.create_commit('refs/heads/mass-%d' % i, sig, sig, 'mass %d' % i, b.write(), [main.id])"
git_real -C "$REPO" for-each-ref --format='%(objectname)' 'refs/heads/mass-*' | sort >"$TEST_ROOT/mass"
LAST=$(git_real -C "$REPO" rev-parse mass-100)
FIRST=$(git_real -C "$REPO" rev-parse mass-1)
wait_known "$REPO" "$LAST"
wait_known "$REPO" "$FIRST"
pygit "$REPO" "
for i in range(1, 101): r.branches.delete('mass-%d' % i)
subprocess.run([git, '-C', sys.argv[1], 'reflog', 'expire', '--expire=now', '--all'], check=True)
subprocess.run([git, '-C', sys.argv[1], 'gc', '-q', '--prune=now'], check=True)"
# saved_count: how many of the 100 commits a save holds (a save ref, or a chain the
# oldest saves were folded onto beyond guard.keepBranches).
saved_count() {
    git_real -C "$REPO" for-each-ref --format='%(objectname)' refs/heads/stranded/ refs/stranded/ |
        git_real -C "$REPO" rev-list --stdin 2>/dev/null | sort | comm -12 - "$TEST_ROOT/mass" | wc -l | tr -d ' '
}
all_saved() { [ "$(saved_count)" -ge 100 ]; }
poll 60 all_saved
assert_eq 100 "$(saved_count)" "a mass delete with gc --prune=now: only $(saved_count) of 100 unpushed commits were saved"
# By the ids listed (the watcher may fold saves onto a chain meanwhile, deleting refs).
MISSING=$(git_real -C "$REPO" for-each-ref --format='%(objectname)^{tree}' refs/heads/stranded/ refs/stranded/ |
    git_real -C "$REPO" cat-file --batch-check | grep -c ' missing$')
assert_eq 0 "$MISSING" "$MISSING save refs name pruned objects"
clean "$REPO" "after 100 deletes + gc --prune=now"

section "a batched save of a deleted branch restores as that branch"
REF=$(git_real -C "$REPO" for-each-ref --sort=-refname --count=1 --format='%(refname)' 'refs/heads/stranded/mass-*/*')
NAME=${REF#refs/heads/stranded/}
NAME=${NAME%%/*}
run_cmd "$GUARD" -C "$REPO" restore "${REF#refs/heads/}"
assert_eq 0 "$RC" "git guard restore of a batched watcher save refused ($ERR)"
assert_eq "$(git_real -C "$REPO" rev-parse "$REF")" "$(git_real -C "$REPO" rev-parse -q --verify "refs/heads/$NAME")" \
    "restore did not put refs/heads/$NAME back"

section "the hold is invisible to a ref walk and lets go once the work is saved"
assert_eq "" "$(git_real -C "$REPO" for-each-ref --format='%(refname)' | grep -v -e '^refs/heads/' -e '^refs/remotes/' -e '^refs/tags/' -e '^refs/stranded/')" \
    "the hold shows as a ref"
HOLDS=$(ls "$REPO/.git/objects/pack/" | grep -c '\.keep$')
[ "$HOLDS" -le 1 ] && pass "one hold pack at most" || fail "the watcher left $HOLDS hold packs, not one"

finish
