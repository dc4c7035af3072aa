#!/usr/bin/env bash
# The hook adds nothing to git's output (DESIGN §2.5, issue 16 item 9, git's t1430):
# deleting a symbolic branch whose target does not resolve printed "warning: ignoring
# dangling symref" from the guard's own git calls (twice on 2.39). Each command runs in a
# guarded repository and in an unguarded twin; stdout, stderr and the exit code must match
# byte for byte.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GIT=$REAL_GIT
printf 'git in use: %s\n' "$("$GIT" version)"

make_clone guarded
git_real clone -q "$TEST_ROOT/guarded.origin" "$TEST_ROOT/twin"
install_hook "$TEST_ROOT/guarded"
"$GIT" -C "$TEST_ROOT/guarded" config guard.enabled true

# in_both WHAT SETUP COMMAND...: SETUP (a shell snippet, run in each repository) then
# COMMAND in the guarded repository and in its twin; their output must match.
in_both() {
    local what=$1 setup=$2 repo
    shift 2
    for repo in guarded twin; do
        (cd "$TEST_ROOT/$repo" && sh -c "$setup") || fail "$what: setup failed in $repo"
        (cd "$TEST_ROOT/$repo" && record "$TEST_ROOT/out/$repo" "$@")
    done
    assert_same_file "$TEST_ROOT/out/twin.err" "$TEST_ROOT/out/guarded.err" "$what: stderr is git's own"
    assert_same_file "$TEST_ROOT/out/twin.out" "$TEST_ROOT/out/guarded.out" "$what: stdout is git's own"
    assert_same_file "$TEST_ROOT/out/twin.rc" "$TEST_ROOT/out/guarded.rc" "$what: the exit code is git's own"
}

section "deleting a symbolic branch whose target does not resolve"
dangling='printf "ref: refs/heads/idonotexist\n" >.git/refs/heads/dangling'
broken='printf "ref: refs/heads/broken...ref\n" >.git/refs/heads/badname'
in_both "update-ref --no-deref -d of a dangling symref" "$dangling" "$GIT" update-ref --no-deref -d refs/heads/dangling
in_both "branch -d of a dangling symref" "$dangling" "$GIT" branch -d dangling
in_both "branch -D of a dangling symref" "$dangling" "$GIT" branch -D dangling
in_both "update-ref --no-deref -d of a symref to a broken name" "$broken" "$GIT" update-ref --no-deref -d refs/heads/badname
in_both "branch -d of a symref to a broken name" "$broken" "$GIT" branch -d badname

section "ordinary updates"
in_both "branch new" "" "$GIT" branch new
in_both "commit" "echo more >>README" "$GIT" commit -q -a -m more
in_both "update-ref to a commit two ahead" "git commit -q --allow-empty -m a && git commit -q --allow-empty -m b" \
    "$GIT" update-ref refs/heads/new HEAD
in_both "branch -d of a merged branch" "" "$GIT" branch -d new

finish
