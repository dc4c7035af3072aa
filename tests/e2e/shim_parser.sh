#!/usr/bin/env bash
# The shim's one parser (DESIGN §0.5) and "never predict git" (§0.2), with the real
# git-guard and the real git: every spelling of `worktree remove` that git accepts is
# saved first: abbreviations (--forc, --fo), bundled and repeated -f, a plain remove
# under status.showUntrackedFiles=no, a locked tree, a tree whose directory is gone;
# `worktree prune` saves what git itself would prune (a deleted tree, a tree moved
# aside); aliases that start with options, and every global option of git 2.39-2.55
# in front of the subcommand (--shallow-file, --attr-source, --config-env…).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REPO=$TEST_ROOT/repo
new_repo "$REPO"
commit_file "$REPO" a.txt "a"
git_real -C "$REPO" config guard.enabled true
shim_on
cd "$TEST_ROOT" || exit 1
N=0

# new_tree: a fresh tree $t on its own branch holding one untracked file.
new_tree() {
    N=$((N + 1))
    t=$TEST_ROOT/t$N
    git_real -C "$REPO" worktree add -q -b "b$N" "$t" main
    printf 'untracked work %s\n' "$N" >"$t/work.txt"
}

# saved_work TREE: the saved work.txt of TREE's newest stranded branch ("" when none).
saved_work() {
    local ref
    ref=$(git_real -C "$REPO" for-each-ref --sort=-refname --count=1 --format='%(refname)' \
        "refs/heads/stranded/$(basename "$1")/")
    [ -n "$ref" ] && git_real -C "$REPO" show "$ref:work.txt" 2>/dev/null
}

# expect_saved WHAT GIT-ARGS... (TREE is the last word): runs git, checks the save.
expect_saved() {
    local what=$1 tree=${*: -1}
    shift
    run_cmd git "$@"
    assert_eq "untracked work ${tree##*/t}" "$(saved_work "$tree")" \
        "$what: the untracked work.txt was destroyed, not saved (rc $RC, $ERR)"
    assert_no_file "$tree" "$what: git then removed the tree"
}

section "never predict git: every force spelling saves first"
new_tree && expect_saved "--forc" -C "$REPO" worktree remove --forc "$t"
new_tree && expect_saved "--fo" -C "$REPO" worktree remove --fo "$t"
new_tree && expect_saved "-ff" -C "$REPO" worktree remove -ff "$t"
new_tree && git_real -C "$REPO" worktree lock "$t" &&
    expect_saved "-f -f on a locked tree" -C "$REPO" worktree remove -f -f "$t"
new_tree && git_real -C "$REPO" worktree lock "$t"
run_cmd git -C "$REPO" worktree remove --force "$t"
assert_eq "untracked work ${t##*/t}" "$(saved_work "$t")" \
    "a locked tree (git refuses one -f): the work was saved before git decided"
assert_file_exists "$t/work.txt" "a locked tree: git refused, the tree stays"
git_real -C "$REPO" worktree unlock "$t"

section "never predict git: status.showUntrackedFiles=no and a plain remove"
new_tree
git_real -C "$REPO" config status.showUntrackedFiles no
expect_saved "plain remove, showUntrackedFiles=no" -C "$REPO" worktree remove "$t"
git_real -C "$REPO" config --unset status.showUntrackedFiles

section "a tree whose directory is gone"
# gone_tree: a detached tree $t with a commit $c of its own.
gone_tree() {
    N=$((N + 1))
    t=$TEST_ROOT/t$N
    git_real -C "$REPO" worktree add -q --detach "$t" main
    commit_file "$t" gone.txt "commit $N" "only in t$N"
    c=$(git_real -C "$t" rev-parse HEAD)
}
# commit_saved COMMIT WHAT: COMMIT is reachable from a stranded branch.
commit_saved() {
    assert_ne "" "$(git_real -C "$REPO" for-each-ref --contains "$1" refs/heads/stranded/ 2>/dev/null)" \
        "$2: the tree's own commit was lost, not saved"
}
gone_tree && rm -rf "$TEST_ROOT/t$N"
run_cmd git -C "$REPO" worktree prune
commit_saved "$c" "deleted directory, then prune"
assert_eq "" "$(git_real -C "$REPO" worktree list --porcelain | grep "t$N\$")" "prune: git pruned it"
gone_tree && mv "$TEST_ROOT/t$N" "$TEST_ROOT/t$N.moved"
run_cmd git -C "$REPO" worktree prune
commit_saved "$c" "moved aside, then prune"
gone_tree && rm -rf "$TEST_ROOT/t$N"
run_cmd git -C "$REPO" worktree prune --expire=1.year.ago
assert_eq "" "$(git_real -C "$REPO" for-each-ref --contains "$c" refs/heads/stranded/)" \
    "prune --expire=1.year.ago: git keeps the fresh entry, so nothing is saved for it"
run_cmd git -C "$REPO" worktree prune --expire=now
commit_saved "$c" "prune --expire=now"
gone_tree && rm -rf "$TEST_ROOT/t$N"
run_cmd git -C "$REPO" worktree remove --force "$TEST_ROOT/t$N"
commit_saved "$c" "remove of a tree whose directory is gone"
gone_tree && rm -rf "$TEST_ROOT/t$N" && git_real -C "$REPO" worktree lock "$TEST_ROOT/t$N"
run_cmd git -C "$REPO" worktree prune
assert_eq "" "$(git_real -C "$REPO" for-each-ref --contains "$c" refs/heads/stranded/)" \
    "a locked gone tree is not pruned by git, so nothing is saved for it"

section "aliases that start with options, and global options in front"
git_real -C "$REPO" config alias.rmwt "-c core.quotePath=false worktree remove --force"
git_real -C "$REPO" config alias.rmp "-p rmwt"
new_tree && expect_saved "alias '-c core.quotePath=false worktree remove --force'" -C "$REPO" rmwt "$t"
new_tree && expect_saved "alias of an alias with -p" -C "$REPO" rmp "$t"
: >"$TEST_ROOT/shallow"
new_tree && expect_saved "--shallow-file" --shallow-file "$TEST_ROOT/shallow" -C "$REPO" worktree remove --force "$t"
new_tree && expect_saved "--no-optional-locks --literal-pathspecs" --no-optional-locks --literal-pathspecs -C "$REPO" worktree remove --force "$t"
new_tree && FOO=bar expect_saved "--config-env" --config-env=core.foo=FOO -C "$REPO" worktree remove -f "$t"
new_tree && expect_saved "-C '' -P --no-replace-objects" -C '' -P --no-replace-objects -C "$REPO" worktree remove -f "$t"
new_tree && expect_saved "--git-dir --work-tree" --git-dir="$REPO/.git" --work-tree "$REPO" worktree remove -f "$t"
new_tree && expect_saved "--exec-path=<dir>" --exec-path="$("$REAL_GIT" --exec-path)" -C "$REPO" worktree remove -f "$t"

section "git's refusals of aliases pass through as git's own"
shim_off
"$REAL_GIT" -C "$REPO" -c "alias.y=--bare worktree" y prune >"$TEST_ROOT/y.plain" 2>&1
shim_on
run_cmd git -C "$REPO" -c "alias.y=--bare worktree" y prune
assert_eq "$(cat "$TEST_ROOT/y.plain")" "$ERR" "an alias git refuses ('changes environment variables'): git's message"

if "$REAL_GIT" -c alias.probe.command=version probe >/dev/null 2>&1; then
    section "[alias \"name\"] command = … (git >= 2.53)"
    git_real -C "$REPO" config alias.wtrm.command "worktree remove --force"
    new_tree && expect_saved "[alias \"wtrm\"] command" -C "$REPO" wtrm "$t"
fi

section "the front end's parse, as the full binary receives it"
FAKE=$TEST_ROOT/fake
mkdir -p "$FAKE"
cp "$GUARD_BIN_DIR/git-guard-shim" "$FAKE/git-guard-shim"
ln -s git-guard-shim "$FAKE/git"
cat >"$FAKE/git-guard" <<FAKE_EOF
#!/bin/sh
printf '%s\n' "\$@" >'$FAKE/handoff'
FAKE_EOF
chmod +x "$FAKE/git-guard"
shim_on "$FAKE"
cd "$REPO" || exit 1
# handoff_of GIT-ARGS...: the handoff's header (up to the "--"), one word a line.
handoff_of() {
    rm -f "$FAKE/handoff"
    git "$@" >/dev/null 2>&1
    sed '/^--$/,$d; /^--guard-config=/,$d' "$FAKE/handoff" 2>/dev/null | tail -n +2 # the parse, not the config listing
}
assert_eq "$REAL_GIT
$REPO
6
--attr-source
HEAD
--no-advice
--no-lazy-fetch
-c
a.b=c
3
worktree
remove
x" "$(handoff_of --attr-source HEAD --no-advice --no-lazy-fetch -C "$REPO" -c a.b=c worktree remove x)" \
    "newer global options (--attr-source, --no-advice, --no-lazy-fetch) are skipped, -C folded into the cwd"
assert_eq "$REAL_GIT
$REPO/sub
2
-c
core.quotePath=false
5
worktree
remove
--force
x
y" "$(mkdir -p sub && handoff_of -C sub rmwt x y)" \
    "an alias's own options join the globals; -C relative to the cwd"
assert_eq "" "$(handoff_of --exec-path worktree remove x)" "--exec-path (a query) runs no subcommand"
assert_eq "" "$(handoff_of --list-cmds=main worktree remove x)" "--list-cmds= (a query) runs no subcommand"
assert_eq "" "$(handoff_of --frobnicate worktree remove x)" "an unknown option: git's usage, nothing forwarded"

section "which calls reach the full binary (the in-place destroyers), which stay on the fast path"
forwarded() { [ -n "$(handoff_of "$@")" ]; }
for args in "reset --hard" "reset --har" "reset -q --merge HEAD" "reset --keep HEAD" \
    "checkout -- a.txt" "checkout ." "checkout a.txt" "checkout -f main" "checkout -qf main" \
    "checkout main a.txt" "checkout --forc main" "checkout -p" "switch -f main" \
    "switch --discard-changes main" "switch --disc main" "restore a.txt" "restore -SW a.txt" \
    "restore --source=HEAD -- a.txt" "clean -fd" "clean -xdf" "clean" "clean --force -X" \
    "stash drop" "stash drop -q stash@{0}" "stash clear" "rmwt x" "rm -f a.txt" "rm -rf d" \
    "rm --for a.txt" "merge --abort" "merge --ab" "rebase --abort" "rebase --skip" \
    "cherry-pick --abort" "revert --skip" "am --abort" "branch -f x main" "branch --forc x" \
    "branch -M x y" "branch -C x y" "checkout -B x" "checkout -qB x main" "checkout -q -B other main" "switch -C x" \
    "switch --force-create x main" "submodule update --force" "submodule update -f -- sub" \
    "submodule deinit -f sub" "submodule deinit --force --all" "branch -d x" "branch -D x" \
    "branch --delete x" "stash" "stash push -q" "stash save msg" "stash -k" \
    "read-tree -u --reset HEAD" "read-tree -mu HEAD" "checkout-index -f -a" "checkout-index -f -- a.txt" \
    "clean -f -e -n" "clean -fd --exclude -n" "clean -f -e --dry-run" "clean -n --no-dry-run -f" \
    "rm -f --cached --no-cached a.txt" "reset --soft --hard" "-c core.hooksPath=/dev/null update-ref -d x" \
    "-c hook.reference-transaction.enabled=false branch x" "-c core.hooksPath=/dev/null commit -m x"; do
    # shellcheck disable=SC2086
    forwarded $args && pass "'git $args' reaches the full binary" ||
        fail "'git $args' went straight to git: what it destroys would not be saved"
done
for args in "status" "diff" "log -1" "reset" "reset --soft HEAD" "reset -q HEAD a.txt" \
    "checkout main" "checkout -b new-branch" "restore --staged a.txt" \
    "restore -S a.txt" "clean -n" "clean -fdn" "clean --dry-run -fd" "stash list" "stash -u" \
    "stash push --include-untracked" "stash --all" "read-tree HEAD" "read-tree -m HEAD" "checkout-index -a" \
    "checkout-index -f --temp -a" "clean -f --dry-run" "rm -f --no-cached --cached a.txt" "reset --hard --soft" \
    "-c core.hooksPath=/dev/null status" "-c core.hooksPath=/dev/null log -1" "update-ref -d x" \
    "switch main" "switch -c x" "worktree list" "rm a.txt" "rm --cached a.txt" \
    "merge main" "merge --continue" "rebase main" "rebase --continue" "cherry-pick main" "am x.patch" \
    "branch" "branch x" "branch -m x y" "branch --format=%(refname)" \
    "submodule update" "submodule update --init" "submodule deinit sub" "submodule status"; do
    # shellcheck disable=SC2086
    forwarded $args && fail "'git $args' was forwarded: the fast path is lost" ||
        pass "'git $args' stays on the fast path"
done
assert_ne "" "$(export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null
    handoff_of branch -D --end-of-options x)" "hooks off in GIT_CONFIG_COUNT: branch -D was not forwarded"
assert_contains "$(cat "$FAKE/handoff" 2>/dev/null | head -1)" "hooks-off" "the handoff does not say the caller's hooks are off"
for args in "diff" "status" "branch" "branch --show-current" "branch -a -v" "branch --list x*" \
    "symbolic-ref HEAD" "symbolic-ref --short HEAD" "stash list" "worktree list" "tag" "tag -d v1" \
    "log -1" "rev-parse HEAD" "remote prune origin"; do
    # shellcheck disable=SC2086
    assert_eq "" "$(export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null
        handoff_of $args)" "hooks off in GIT_CONFIG_COUNT: 'git $args', which moves no branch, left the fast path"
done
for args in "branch new-b" "branch -m a b" "commit -m x" "update-ref refs/heads/x HEAD" \
    "symbolic-ref refs/heads/x refs/heads/main" "fetch origin" "checkout main" "cherry-pick x"; do
    # shellcheck disable=SC2086
    assert_ne "" "$(export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null
        handoff_of $args)" "hooks off in GIT_CONFIG_COUNT: 'git $args', which may move a branch, was not forwarded"
done
# A local push: git clears GIT_CONFIG_COUNT for the receiving side (local_repo_env), so the
# caller's hooks-off config that reaches it is a config file: the receive-pack the exec-path
# mirror leads to the shim is forwarded.
printf '[core]\n\thooksPath = /dev/null\n' >"$TEST_ROOT/hooks-off.gitconfig"
assert_ne "" "$(export GIT_CONFIG_GLOBAL=$TEST_ROOT/hooks-off.gitconfig
    handoff_of push . HEAD:x)" "hooks off in GIT_CONFIG_GLOBAL: the receive-pack of 'git push . HEAD:x', which may move a branch, was not forwarded"
cd "$TEST_ROOT" || exit 1
shim_off

finish
