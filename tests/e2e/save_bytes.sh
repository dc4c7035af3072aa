#!/usr/bin/env bash
# Saves are the bytes (DESIGN §4.1.1, issue 34): a file under a clean filter, an eol rule,
# `ident`, `working-tree-encoding` or git-lfs is saved as it was on disk and restored
# byte for byte, through `worktree remove --force`, the in-place destroyers (`reset
# --hard`, `checkout -- .`) and a watcher snapshot followed by `rm -rf`. Each case
# compares the restored file and the save's own blob with the file as it was.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

# git-lfs from Debian when missing (its case is skipped, saying so, when it cannot be had).
LFS=1
if ! command -v git-lfs >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq git-lfs >/dev/null 2>&1 || true
    fi
    command -v git-lfs >/dev/null 2>&1 || LFS=0
fi
[ "$LFS" = 1 ] || echo "NOTE: git-lfs cannot be installed here: the git-lfs case is skipped"
command -v iconv >/dev/null 2>&1 || skip "iconv is missing (the working-tree-encoding case needs it)"

guarded_clone repo
# Snapshots every second: the watcher's section needs them, and one taken of a dirty tree
# before its destroyer ran holds the same bytes as the destroyer's own save.
git_real -C "$REPO" config guard.snapshotInterval 1
if [ "$LFS" = 1 ]; then
    (cd "$HOME" && git_real lfs install --skip-repo >/dev/null) || fail "git lfs install failed"
fi
# An nbstripout-like filter: the saved notebook would lose its outputs through it.
git_real -C "$REPO" config filter.strip.clean "sed '/\"outputs\"/d'"
git_real -C "$REPO" config filter.strip.smudge cat
{
    echo '* text=auto'
    echo '*.ipynb filter=strip'
    echo '*.id ident'
    echo '*.u16 text working-tree-encoding=UTF-16'
    [ "$LFS" = 1 ] && echo '*.bin filter=lfs diff=lfs merge=lfs -text'
} >"$REPO/.gitattributes"
printf 'base\n' >"$REPO/crlf.txt"
printf '{"cells": 1}\n' >"$REPO/t.ipynb"
printf '$Id$\nbase\n' >"$REPO/t.id"
printf 'base\n' | iconv -f UTF-8 -t UTF-16 >"$REPO/t.u16"
[ "$LFS" = 1 ] && head -c 20000 /dev/urandom >"$REPO/t.bin"
git_real -C "$REPO" add -A && git_real -C "$REPO" commit -q -m "files under attributes"

# The files of each case: tracked and changed (t.*) and untracked (u.*), each kind.
TRACKED="crlf.txt t.ipynb t.id t.u16"
UNTRACKED="u.ipynb u-crlf.txt u.id u.u16"
if [ "$LFS" = 1 ]; then
    TRACKED="$TRACKED t.bin"
    UNTRACKED="$UNTRACKED u.bin"
fi
# dirty TREE: every case file changed as a user or tool leaves it.
dirty() {
    printf 'line one\r\nline two\r\n' >"$1/crlf.txt"
    printf 'line one\r\nuntracked\r\n' >"$1/u-crlf.txt"
    printf '{"cells": 2,\n"outputs": [42]}\n' >"$1/t.ipynb"
    printf '{"cells": 3,\n"outputs": ["a plot"]}\n' >"$1/u.ipynb"
    printf '$Id: 0123456789abcdef $\nchanged\n' >"$1/t.id"
    printf '$Id: fedcba9876543210 $\nnew\n' >"$1/u.id"
    printf 'chang\xc3\xa9\n' | iconv -f UTF-8 -t UTF-16 >"$1/t.u16"
    printf 'n\xc3\xa9w\n' | iconv -f UTF-8 -t UTF-16 >"$1/u.u16"
    if [ "$LFS" = 1 ]; then
        head -c 30000 /dev/urandom >"$1/t.bin"
        head -c 25000 /dev/urandom >"$1/u.bin"
    fi
}

# same_bytes WHAT BEFORE RESTORED COMMIT FILES...: each file of the restored tree and of the
# save's own tree (its commit COMMIT) is byte for byte the file as it was in BEFORE.
same_bytes() {
    local what=$1 before=$2 after=$3 commit=$4 f
    shift 4
    for f in "$@"; do
        if cmp -s "$before/$f" "$after/$f"; then
            pass "$what: $f comes back byte for byte"
        else
            fail "$what: $f came back changed (its bytes on disk were lost: $(od -c "$after/$f" 2>&1 | head -n 2 | tr '\n' ' '))"
        fi
        if git_real -C "$REPO" cat-file blob "$commit:$f" 2>/dev/null | cmp -s - "$before/$f"; then
            pass "$what: the save holds $f's bytes"
        else
            fail "$what: the save's blob of $f is not the file's bytes (saved through a filter or an eol rule)"
        fi
    done
}

# restore_into REF DIR: git guard restore REF into the fresh path DIR.
restore_into() {
    run_cmd "$GUARD" -C "$REPO" restore "$1" "$2"
    assert_eq 0 "$RC" "git guard restore $1 into a fresh path failed: $ERR"
}
# newest_save PREFIX FIELD [REASON]: the newest save under PREFIX (of REASON, default any):
# its ref (a snapshot's is a handle on its tree's chain) or its commit.
newest_save() {
    "$GUARD" -C "$REPO" list --all --json 2>/dev/null |
        jq -rs --arg p "$1" --arg f "$2" --arg r "${3:-}" \
            'map(select((.ref | startswith($p)) and ($r == "" or .reason == $r))) | sort_by(.ref) | last | .[$f] // ""'
}

# remove_and_restore NAME: copies the tree $TEST_ROOT/NAME to NAME.before, removes it with
# `worktree remove --force`, and restores its newest save (its ref in $REF) into NAME.after.
remove_and_restore() {
    cp -a "$TEST_ROOT/$1" "$TEST_ROOT/$1.before"
    run_cmd git -C "$REPO" worktree remove --force "$TEST_ROOT/$1"
    assert_eq 0 "$RC" "worktree remove --force of $1 failed: $ERR"
    REF=$(git_real -C "$REPO" for-each-ref --format='%(refname)' "refs/heads/stranded/$1/" | tail -n 1)
    assert_ne "" "$REF" "worktree remove --force of $1 made no save: its work is lost"
    restore_into "$REF" "$TEST_ROOT/$1.after"
}

shim_on "$TEST_ROOT/shim"

section "worktree remove --force: the removed tree's files come back as their bytes"
T=$TEST_ROOT/removed
git -C "$REPO" worktree add -q -b removed "$T" main
dirty "$T"
remove_and_restore removed
# shellcheck disable=SC2086
same_bytes "worktree remove" "$TEST_ROOT/removed.before" "$TEST_ROOT/removed.after" "$REF" $TRACKED $UNTRACKED
assert_eq "" "$(diff -r --exclude=.git "$TEST_ROOT/removed.before" "$TEST_ROOT/removed.after" 2>&1)" \
    "the restored tree differs from the removed one"

section "worktree remove --force: files staged through the rules, unchanged since, are their bytes"
# git stages them through the eol rule and the filter (the index holds LF, no outputs); the
# files on disk stayed as written, and status calls them staged only.
T=$TEST_ROOT/staged
git -C "$REPO" worktree add -q -b staged "$T" main
printf 'staged\r\nonly\r\n' >"$T/s-crlf.txt"
printf '{"cells": 4,\n"outputs": ["staged"]}\n' >"$T/s.ipynb"
printf 'changed\r\nthen staged\r\n' >"$T/crlf.txt"
git_real -C "$T" add s-crlf.txt s.ipynb crlf.txt
remove_and_restore staged
same_bytes "staged, then removed" "$TEST_ROOT/staged.before" "$TEST_ROOT/staged.after" "$REF" s-crlf.txt s.ipynb crlf.txt

for destroyer in "reset --hard" "checkout -- ."; do
    section "$destroyer: the destroyed files come back as their bytes"
    name=inplace-${destroyer%% *}
    T=$TEST_ROOT/$name
    git -C "$REPO" worktree add -q -b "$name" "$T" main
    dirty "$T"
    cp -a "$T" "$TEST_ROOT/$name.before"
    # shellcheck disable=SC2086
    run_cmd git -C "$T" $destroyer
    assert_eq 0 "$RC" "$destroyer failed: $ERR"
    REF=$(newest_save "refs/stranded/$name/" ref "${destroyer% .}")
    assert_ne "" "$REF" "$destroyer made no save"
    restore_into "$REF" "$TEST_ROOT/$name.after"
    # shellcheck disable=SC2086
    same_bytes "$destroyer" "$TEST_ROOT/$name.before" "$TEST_ROOT/$name.after" "$(newest_save "refs/stranded/$name/" commit "${destroyer% .}")" $TRACKED
done

shim_off
section "a watcher snapshot, then rm -rf: the snapshot restores the files' bytes"
T=$TEST_ROOT/snapped
git_real -C "$REPO" worktree add -q -b snapped "$T" main
dirty "$T"
cp -a "$T" "$TEST_ROOT/snapped.before"
DIRTY_AT=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) # a snapshot taken after this saw every file whole
# A snapshot journaled after the edits may have read the tree before the last file was
# written (its time is when it finished): the one to restore holds every file, and the
# watcher takes another while the tree differs from the last one.
snapshot_after_edits() {
    local time commit f
    time=$(newest_save refs/stranded/snapped/ time snapshot)
    [ -n "$time" ] && [[ $time > $DIRTY_AT ]] || return 1
    commit=$(newest_save refs/stranded/snapped/ commit snapshot)
    for f in $TRACKED $UNTRACKED; do
        git_real -C "$REPO" cat-file -e "$commit:$f" 2>/dev/null || return 1
    done
}
poll 60 snapshot_after_edits || fail "the watcher took no snapshot holding the tree's files"
REF=$(newest_save refs/stranded/snapped/ ref snapshot)
COMMIT=$(newest_save refs/stranded/snapped/ commit snapshot)
rm -rf "$T"
restore_into "$REF" "$TEST_ROOT/snapped.after"
# shellcheck disable=SC2086
same_bytes "snapshot" "$TEST_ROOT/snapped.before" "$TEST_ROOT/snapped.after" "$COMMIT" $TRACKED $UNTRACKED

finish
