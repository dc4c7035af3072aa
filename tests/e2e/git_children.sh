#!/usr/bin/env bash
# git's own children (DESIGN §6): a `git` that git itself starts (a shell alias, a hook,
# `rebase -x`, `submodule foreach`) runs with git's exec path first on PATH. The shim
# gives git an exec-path mirror whose `git` is the shim, so those calls are guarded too,
# while `git --exec-path` still prints git's own exec path, git-sh-setup users work, and
# git's own internal steps (an alias re-run, `worktree add`'s and `stash`'s resets) are
# not judged twice.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REPO=$TEST_ROOT/repo
new_repo "$REPO"
commit_file "$REPO" a.txt "a"
commit_file "$REPO" b.txt "b"
git_real -C "$REPO" config guard.enabled true
shim_on
N=0

# new_tree: a fresh tree $t on its own branch holding one untracked file.
new_tree() {
    N=$((N + 1))
    t=$TEST_ROOT/t$N
    git_real -C "$REPO" worktree add -q -b "b$N" "$t" main
    printf 'untracked work %s\n' "$N" >"$t/work.txt"
}

# expect_saved WHAT: the tree $t was saved (its work.txt) and removed.
expect_saved() {
    local ref
    ref=$(git_real -C "$REPO" for-each-ref --count=1 --format='%(refname)' "refs/heads/stranded/${t##*/}/")
    assert_eq "untracked work ${t##*/t}" "$(git_real -C "$REPO" show "$ref:work.txt" 2>/dev/null)" \
        "$1: the untracked work.txt was destroyed, not saved (rc $RC, $ERR)"
    assert_no_file "$t" "$1: the tree was removed"
}

section "git --exec-path, the exec path's own users, and the command list are unchanged"
cd "$REPO" || exit 1
real_exec=$("$REAL_GIT" --exec-path)
assert_eq "$real_exec" "$(git --exec-path)" "git --exec-path prints git's own exec path"
git config alias.ep '!git --exec-path'
assert_eq "$real_exec" "$(git ep)" "git --exec-path inside a shell alias prints git's own exec path"
git config alias.shsetup '!. "$(git --exec-path)/git-sh-setup" && require_work_tree && git_dir_init && echo "$GIT_DIR"'
shim_off
plain_setup=$(git shsetup 2>&1)
plain_cmds=$(git --list-cmds=main,others,alias | sort)
shim_on "$SHIM_DIR"
assert_eq "$plain_setup" "$(git shsetup 2>&1)" "a git-sh-setup user behaves as without the shim"
assert_eq "$plain_cmds" "$(git --list-cmds=main,others,alias | sort)" "git's command list is unchanged"
git config alias.env '!env'
assert_eq "$(git env | grep -c '^GIT_EXEC_PATH=')" 1 "git's children see an exec path"
mirror=$(git env | sed -n 's/^GIT_EXEC_PATH=//p')
assert_eq "$GUARD_BIN_DIR/git-guard-shim" "$(readlink "$mirror/git")" "the mirror's git is the shim"
assert_eq "$real_exec/git-sh-setup" "$(readlink "$mirror/git-sh-setup")" "the mirror's other entries are git's own"

section "a shell alias running git worktree remove --force"
git config alias.nuke '!git worktree remove --force'
new_tree
run_cmd git nuke "$t"
expect_saved "shell alias '!git worktree remove --force'"

section "a post-checkout hook running git worktree remove --force"
new_tree
printf '#!/bin/sh\ngit worktree remove --force "%s"\n' "$t" >"$REPO/.git/hooks/post-checkout"
chmod +x "$REPO/.git/hooks/post-checkout"
run_cmd git checkout -q -b hooked
expect_saved "post-checkout hook"
rm "$REPO/.git/hooks/post-checkout"
git_real checkout -q main

section "rebase -x running git worktree remove --force"
new_tree
run_cmd git rebase -x "git worktree remove --force '$t'" HEAD~1
expect_saved "rebase -x"

section "submodule foreach running git worktree remove --force"
git_real init -q --bare "$TEST_ROOT/sub.git"
new_repo "$TEST_ROOT/sub.seed"
git_real -C "$TEST_ROOT/sub.seed" push -q "$TEST_ROOT/sub.git" main
git_real -C "$REPO" submodule -q add "$TEST_ROOT/sub.git" sub
git_real -C "$REPO" commit -q -m "add sub"
new_tree
run_cmd git submodule foreach -q "git -C '$REPO' worktree remove --force '$t'"
expect_saved "submodule foreach"

section "the mirror follows a git upgrade (a changed exec path)"
mkdir -p "$TEST_ROOT/exec"
for entry in "$real_exec"/*; do ln -s "$entry" "$TEST_ROOT/exec/${entry##*/}"; done
run_cmd env GIT_EXEC_PATH="$TEST_ROOT/exec" git ep
assert_eq "$TEST_ROOT/exec" "$OUT" "an exec path of the caller's own is what git --exec-path prints"
printf '#!/bin/sh\necho hello from a new git command\n' >"$TEST_ROOT/exec/git-hello"
chmod +x "$TEST_ROOT/exec/git-hello"
git config alias.hi '!git hello'
run_cmd env GIT_EXEC_PATH="$TEST_ROOT/exec" git hi
assert_eq "hello from a new git command" "$OUT" "a command added to the exec path reaches git's children"
# This suite's own mirrors go; the build's shim keeps the others.
for dir in "$GUARD_BIN_DIR"/exec-path/*/; do
    case $(readlink "$dir.git-guard-real") in "$TEST_ROOT"/*) rm -rf "$dir" ;; esac
done
cd "$TEST_ROOT" || exit 1

section "a caller that writes git's mark itself (its pid, the hash of its words) is judged"
# The shim marks the git it starts with GIT_GUARD_HANDLED="<pid> <hash of the words>", and
# a child of that git with the same words is git's own alias re-run. A program that sets
# the mark itself, with its own pid and the hash of the words it runs, is no git: its
# removal and its reset are judged like any other.
new_tree
forge() { # forge DIR WORD...: runs `git -C DIR WORD...` from a program that wrote the whole mark
    python3 - "$@" <<'FORGE_EOF'
import os, subprocess, sys
words = sys.argv[2:]
h = 14695981039346656037
for w in words:
    for b in w.encode() + b"\0":
        h = ((h ^ b) * 1099511628211) % (1 << 64)
os.environ["GIT_GUARD_HANDLED"] = "%d %x" % (os.getpid(), h or 1)
sys.exit(subprocess.run(["git", "-C", sys.argv[1]] + words).returncode)
FORGE_EOF
}
run_cmd forge "$REPO" worktree remove --force "$t"
assert_eq 0 "$RC" "the removal under a forged mark failed: $ERR"
expect_saved "worktree remove --force under a forged mark (pid and words' hash)"
printf 'forged edit\n' >"$REPO/a.txt"
run_cmd forge "$REPO" reset --hard -q --no-recurse-submodules
assert_eq 0 "$RC" "the reset under a forged mark failed: $ERR"
saved_edit=""
for ref in $(git_real -C "$REPO" for-each-ref --format='%(refname)' refs/stranded/); do
    [ "$(git_real -C "$REPO" show "$ref:a.txt" 2>/dev/null)" = "forged edit" ] && saved_edit=$ref
done
assert_ne "" "$saved_edit" \
    "reset --hard in the shape of stash's own step, under a forged mark: the edit to a.txt was destroyed, not saved"

section "what reaches the full binary: children yes, git's own steps once"
FAKE=$TEST_ROOT/fake
mkdir -p "$FAKE"
cp "$GUARD_BIN_DIR/git-guard-shim" "$FAKE/git-guard-shim"
ln -s git-guard-shim "$FAKE/git"
cat >"$FAKE/git-guard" <<FAKE_EOF
#!/bin/sh
while [ "\$1" != -- ]; do shift; done
shift
printf '%s\n' "\$*" >>'$FAKE/calls'
exec "\$GIT_GUARD_REAL_GIT" "\$@"
FAKE_EOF
chmod +x "$FAKE/git-guard"
shim_on "$FAKE"
# calls_of GIT-ARGS...: the calls the full binary saw while git ran.
calls_of() {
    rm -f "$FAKE/calls"
    "$@" >/dev/null 2>&1
    cat "$FAKE/calls" 2>/dev/null
}
cd "$REPO" || exit 1
printf 'edit\n' >a.txt
printf '#!/bin/sh\ngit reset -q --hard\n' >"$REPO/.git/hooks/post-checkout"
chmod +x "$REPO/.git/hooks/post-checkout"
assert_eq "reset -q --hard" "$(calls_of git checkout -q -b hooked2)" \
    "a post-checkout hook's 'git reset --hard' reaches the full binary"
printf '#!/bin/sh\nexec git reset -q --hard\n' >"$REPO/.git/hooks/post-checkout"
assert_eq "reset -q --hard" "$(calls_of git checkout -q -b hooked3)" \
    "a hook that execs 'git reset --hard' in its own place (its parent is then git) still reaches the full binary"
rm "$REPO/.git/hooks/post-checkout"
assert_contains "$(calls_of git gc -q)" "worktree prune --expire" \
    "git gc's own 'worktree prune' reaches the full binary (gc prunes trees too)"
git config alias.hard '!git reset -q --hard'
assert_eq "reset -q --hard" "$(calls_of git hard)" "a shell alias's 'git reset --hard' reaches the full binary"
assert_eq "reset -q --hard" "$(calls_of git rebase -q -x 'git reset -q --hard' HEAD~1)" \
    "rebase -x's 'git reset --hard' reaches the full binary"
git config alias.rmwt "-c core.quotePath=false worktree remove --force"
git_real worktree add -q --detach "$TEST_ROOT/fake-tree"
assert_eq "rmwt $TEST_ROOT/fake-tree" "$(calls_of git rmwt "$TEST_ROOT/fake-tree")" \
    "an alias reaches the full binary once (git's re-run of the expansion is its own step)"
assert_eq "worktree add -q $TEST_ROOT/fake-tree2" "$(calls_of git worktree add -q "$TEST_ROOT/fake-tree2")" \
    "worktree add's own 'reset --hard' in the new tree is git's step, not forwarded"
printf 'edit\n' >a.txt
printf 'new\n' >u.txt
assert_eq "" "$(calls_of git stash -q -u)" "stash's own 'reset --hard' and 'clean' are git's steps, not forwarded"
assert_eq "stash drop -q" "$(calls_of git stash drop -q)" "stash drop reaches the full binary"
cd "$TEST_ROOT" || exit 1
shim_off

finish
