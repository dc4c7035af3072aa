#!/usr/bin/env bash
# Destroyers past the end of the porcelain (DESIGN §0.6, issue 16 item 4), judged by what
# they destroy: read-tree -u --reset and -u -m write a tree over the working files,
# checkout-index -f writes the index's versions over them, and `git stash` (push) runs its
# own `reset --hard`, which deletes an untracked file standing where a tracked path was.
# Each runs in a guarded tree and, with the real git, on an identical twin: what goes is
# saved first, and git's output, exit code and resulting tree are its own.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/inplace_fixtures.bash"

shim_on

section "read-tree -u --reset HEAD: staged and unstaged changes saved"
twins read-tree-reset
same_as_git read-tree-reset read-tree -u --reset HEAD
one_save_line read-tree-reset
assert_saved "$A_STAGED" "read-tree -u --reset: the staged a.txt"
assert_saved "$A_WT" "read-tree -u --reset: the unstaged a.txt"
assert_saved "$B_WT" "read-tree -u --reset: the unstaged b.txt"
assert_not_saved "$N_U" "read-tree -u --reset: the untracked n.txt"

section "read-tree -u -m HEAD: what it could lose is saved (git may refuse)"
twins read-tree-m
same_as_git read-tree-m read-tree -u -m HEAD
assert_saved "$A_STAGED" "read-tree -u -m: the staged a.txt"

section "read-tree -m without -u, and read-tree -n: nothing saved"
twins read-tree-index
same_as_git read-tree-index read-tree -u -n --reset HEAD
nothing_saved read-tree-index

section "checkout-index -f -a: every unstaged change saved"
twins checkout-index-all
same_as_git checkout-index-all checkout-index -f -a
one_save_line checkout-index-all
assert_saved "$A_WT" "checkout-index -f -a: the unstaged a.txt"
assert_saved "$B_WT" "checkout-index -f -a: the unstaged b.txt"
assert_not_saved "$N_U" "checkout-index -f -a: the untracked n.txt"

section "checkout-index -f -- b.txt: that file only; without -f nothing"
twins checkout-index-path
same_as_git checkout-index-path checkout-index -f -- b.txt
one_save_line checkout-index-path
assert_saved "$B_WT" "checkout-index -f -- b.txt: the unstaged b.txt"
assert_not_saved "$A_WT" "checkout-index -f -- b.txt: a.txt (left alone)"
twins checkout-index-noforce
same_as_git checkout-index-noforce checkout-index -a
nothing_saved checkout-index-noforce

# stash_replaced CASE: d/e.txt's directory replaced by an untracked file d.
stash_replaced() {
    twins "$1" clean
    for t in "$G" "$P"; do rm -r "$t/d" && printf 'precious\n' >"$t/d"; done
    PRECIOUS=$(git_real -C "$G" hash-object d)
}

section "stash, when an untracked file replaced a tracked path: git's own reset --hard deletes it"
stash_replaced stash-plain
same_as_git stash-plain stash
assert_saved "$PRECIOUS" "git stash: the untracked file d, which stash's reset --hard deleted,"
stash_replaced stash-push
same_as_git stash-push stash push -q
assert_saved "$PRECIOUS" "git stash push -q: the untracked file d, which stash's reset --hard deleted,"

section "stash -u keeps the file itself; a plain stash of edits saves nothing"
stash_replaced stash-u
same_as_git stash-u stash -u
nothing_saved stash-u
twins stash-edits
same_as_git stash-edits stash
nothing_saved stash-edits

section "mv -f a.txt b.txt: the edited b.txt it replaces is saved; without -f git refuses"
twins mv-force
same_as_git mv-force mv -f a.txt b.txt
one_save_line mv-force
assert_saved "$B_WT" "mv -f a.txt b.txt: the edited b.txt"
twins mv-plain
same_as_git mv-plain mv a.txt b.txt
nothing_saved mv-plain

shim_off
finish
