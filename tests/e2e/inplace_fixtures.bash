# Fixtures of the in-place destroyer suites (inplace_destroyers.sh, inplace_plumbing.sh,
# options_as_git.sh): twin trees, one guarded and one plain, and what a save holds.
# shellcheck shell=bash

# make_tree DIR: main (one: a b c d/e old, .gitignore; two: old.txt deleted) and a branch
# `other` at one that changes d/e.txt. Deterministic: twins get identical commit ids.
make_tree() {
    git_real init -q "$1" && (
        cd "$1" || exit 1
        printf 'a\n' >a.txt && printf 'b\n' >b.txt && printf 'c\n' >c.txt
        mkdir d && printf 'e\n' >d/e.txt && printf 'old\n' >old.txt
        printf '*.o\n.env\n' >.gitignore
        git_real add -A && git_real commit -qm one && git_real branch other
        git_real rm -q old.txt && git_real commit -qm two
        git_real checkout -q other && printf 'e2\n' >d/e.txt && git_real commit -qam "other changes e"
        git_real checkout -q main
    )
}

# dirty DIR: a.txt staged then edited again, b.txt edited, c.txt deleted, untracked
# n.txt and old.txt (which HEAD~1 holds), ignored .env and build.o.
dirty() {
    (
        cd "$1" || exit 1
        printf 'a staged\n' >a.txt && git_real add a.txt && printf 'a worktree\n' >a.txt
        printf 'b worktree\n' >b.txt
        rm c.txt
        printf 'n untracked\n' >n.txt && printf 'old untracked\n' >old.txt
        printf 'SECRET=1\n' >.env && printf 'object\n' >build.o
    )
}

# twins CASE: $G (guarded) and $P (plain twin), both made and dirtied alike.
twins() {
    G=$TEST_ROOT/guarded/$1
    P=$TEST_ROOT/plain/$1
    mkdir -p "$TEST_ROOT/guarded" "$TEST_ROOT/plain"
    make_tree "$G" && make_tree "$P"
    git_real -C "$G" config guard.enabled true
    [ "${2:-dirty}" = clean ] || { dirty "$G" && dirty "$P"; }
    A_STAGED=$(git_real -C "$G" rev-parse :a.txt)
    A_WT=$(git_real -C "$G" hash-object a.txt)
    B_WT=$(git_real -C "$G" hash-object b.txt)
    N_U=$(git_real -C "$G" hash-object n.txt 2>/dev/null)
    OLD_U=$(git_real -C "$G" hash-object old.txt 2>/dev/null)
    ENV_I=$(git_real -C "$G" hash-object .env 2>/dev/null)
    OBJ_I=$(git_real -C "$G" hash-object build.o 2>/dev/null)
}

# saves REPO: the in-place saves, one a line.
saves() {
    git_real -C "$1" for-each-ref --format='%(refname)' refs/stranded/
}

# saved_objects REPO: every object reachable from the in-place saves.
saved_objects() {
    local refs
    refs=$(saves "$1")
    [ -n "$refs" ] || return 0
    # shellcheck disable=SC2086
    git_real -C "$1" rev-list --objects $refs | cut -d' ' -f1
}

# assert_saved BLOB WHAT / assert_not_saved BLOB WHAT: against $G's saves.
assert_saved() {
    if saved_objects "$G" | grep -qx "$1"; then pass "$2 is reachable from a save"; else fail "$2 was destroyed, not saved"; fi
}
assert_not_saved() {
    if saved_objects "$G" | grep -qx "$1"; then fail "$2 was saved although the command leaves it alone"; else pass "$2 is not saved (the command leaves it)"; fi
}

# same_as_git CASE ARGS...: runs `git ARGS` through the shim in $G and with the real git
# in $P; stdout, exit code and the tree afterwards are identical, stderr too once the
# save's line is taken out; `git branch` in $G shows what it shows in $P.
same_as_git() {
    local case=$1 out=$TEST_ROOT/out/$1
    shift
    mkdir -p "$TEST_ROOT/out"
    (cd "$G" && record "$out.guarded" env PATH="$SHIM_DIR:$BASE_PATH" git "$@")
    (cd "$P" && record "$out.plain" "$REAL_GIT" "$@")
    grep -v '^git-guard: ' "$out.guarded.err" >"$out.guarded.err.git"
    assert_same_file "$out.plain.out" "$out.guarded.out" "$case: stdout is git's own"
    assert_same_file "$out.plain.err" "$out.guarded.err.git" "$case: stderr is git's own (but for the save's line)"
    assert_eq "$(cat "$out.plain.rc")" "$(cat "$out.guarded.rc")" "$case: the exit code is git's own"
    assert_eq "$(git_real -C "$P" status --porcelain=v2 -uall --ignored)" \
        "$(git_real -C "$G" status --porcelain=v2 -uall --ignored)" "$case: the tree ends as git leaves it"
    assert_eq "$(git_real -C "$P" branch -a -v)" "$(git_real -C "$G" branch -a -v)" "$case: git branch is as git alone leaves it"
    GUARD_LINES=$(grep -c '^git-guard: ' "$out.guarded.err")
}

# one_save_line CASE: the command printed exactly one line naming a save that exists.
one_save_line() {
    assert_eq 1 "$GUARD_LINES" "$1: one stderr line names the save"
    local ref
    ref=$(sed -n 's/^git-guard: .* \(refs\/stranded\/[^ ]*\) (put back: git guard restore --in-place .*/\1/p' "$TEST_ROOT/out/$1.guarded.err" | head -1)
    assert_ref_exists "$G" "${ref:-refs/stranded/none}" "$1: the named save exists"
    assert_eq "" "$(git_real -C "$G" for-each-ref refs/heads/stranded/)" "$1: no stranded branch under refs/heads/"
}

# unmerge_a DIR: a.txt left as a conflict (stage 2 only), as git's own t7104 sets it up.
unmerge_a() {
    local h
    h=$(git_real -C "$1" rev-parse :a.txt)
    git_real -C "$1" rm -q --cached a.txt
    printf '100644 %s 2\ta.txt\n' "$h" | git_real -C "$1" update-index --index-info
}

# nothing_saved CASE: no save and no line.
nothing_saved() {
    assert_eq "" "$(saves "$G")" "$1: nothing is saved"
    assert_eq 0 "$GUARD_LINES" "$1: nothing is printed"
}
