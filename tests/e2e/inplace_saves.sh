#!/usr/bin/env bash
# In-place saves beyond the one-command cases of inplace_destroyers.sh:
#   - equal consecutive saves are not duplicated (same content on the same HEAD: one ref);
#   - commits a reset (or a forced switch from a detached HEAD) leaves on no ref are saved;
#   - a clean tree costs the guard two git calls (guard.enabled, then status or clean -n);
#   - the routes: an alias, -C from elsewhere, a linked worktree, --git-dir/--work-tree;
#   - a conflicted tree (unmerged entries) is saved whole and stays reachable;
#   - when the save cannot be written, the command is refused (exit 128, DESIGN §8), git
#     does not run, the tree and its index stay byte for byte, and the recover command
#     printed works when pasted.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# repo DIR: a guarded repository with a.txt and b.txt committed.
repo() {
    new_repo "$1" && commit_file "$1" a.txt a && commit_file "$1" b.txt b &&
        git_real -C "$1" config guard.enabled true
}

saves() {
    git_real -C "$1" for-each-ref --format='%(refname)' refs/stranded/
}

count() {
    if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | grep -c .; fi
}

# reachable REPO BLOB: whether BLOB is reachable from a save.
reachable() {
    local refs
    refs=$(saves "$1")
    [ -n "$refs" ] || return 1
    # shellcheck disable=SC2086
    git_real -C "$1" rev-list --objects $refs | cut -d' ' -f1 | grep -qx "$2"
}

shim_on

section "equal consecutive saves: one ref"
R=$TEST_ROOT/dedup
repo "$R"
printf 'lost once\n' >"$R/a.txt"
git -C "$R" checkout -q -- a.txt 2>/dev/null
printf 'lost once\n' >"$R/a.txt"
run_cmd git -C "$R" checkout -- a.txt
assert_eq 1 "$(count "$(saves "$R")")" "the same edit on the same HEAD, lost twice, is saved once"
assert_contains "$ERR" "already saved" "the second time names the save that holds it"
printf 'lost differently\n' >"$R/a.txt"
git -C "$R" checkout -q -- a.txt 2>/dev/null
assert_eq 2 "$(count "$(saves "$R")")" "a different edit gets a save of its own"

section "a clean tree: two git calls besides the command itself"
R=$TEST_ROOT/cost
repo "$R"
cat >"$TEST_ROOT/counting-git" <<EOS
#!/bin/sh
echo "\$*" >>"$TEST_ROOT/calls"
exec "$REAL_GIT" "\$@"
EOS
chmod +x "$TEST_ROOT/counting-git"
# The shim's exec-path mirror for a git it has not seen asks that git once: not counted.
(cd "$R" && GIT_GUARD_REAL_GIT=$TEST_ROOT/counting-git git status >/dev/null 2>&1)
for cmd in "checkout -- ." "reset --hard" "clean -fd"; do
    : >"$TEST_ROOT/calls"
    # shellcheck disable=SC2086
    (cd "$R" && GIT_GUARD_REAL_GIT=$TEST_ROOT/counting-git git $cmd >/dev/null 2>&1)
    calls=$(count "$(cat "$TEST_ROOT/calls")")
    assert_eq 3 "$calls" "$cmd on a clean tree: the guard.* listing, one question, then git itself; no site asked ($(tr '\n' ';' <"$TEST_ROOT/calls"))"
done
assert_eq "" "$(saves "$R")" "nothing saved on the clean tree"

section "routes: an alias, -C from elsewhere, a linked worktree"
R=$TEST_ROOT/routes
repo "$R"
git_real -C "$R" config alias.nuke "reset --hard"
printf 'via alias\n' >"$R/a.txt"
BLOB=$(git_real -C "$R" hash-object a.txt)
(cd "$R" && git nuke -q)
reachable "$R" "$BLOB" && pass "git nuke (alias for reset --hard): the edit is saved" || fail "the edit lost through an alias was not saved"
printf 'via -C\n' >"$R/b.txt"
BLOB=$(git_real -C "$R" hash-object b.txt)
(cd "$TEST_ROOT" && git -C routes checkout -- b.txt)
reachable "$R" "$BLOB" && pass "git -C routes checkout -- b.txt: the edit is saved" || fail "the edit lost through -C was not saved"
git_real -C "$R" worktree add -q "$TEST_ROOT/linked" -b linked
printf 'in a linked tree\n' >"$TEST_ROOT/linked/a.txt"
BLOB=$(git_real -C "$TEST_ROOT/linked" hash-object a.txt)
(cd "$TEST_ROOT/linked" && git reset -q --hard)
reachable "$R" "$BLOB" && pass "reset --hard in a linked worktree: the edit is saved" || fail "the edit lost in a linked worktree was not saved"
assert_ne "" "$(git_real -C "$R" for-each-ref refs/stranded/linked/)" "the linked tree's save is named after it"

section "routes: --git-dir and --work-tree from outside the tree"
git_real init -q --separate-git-dir="$TEST_ROOT/sep/store.git" "$TEST_ROOT/sep/wt"
commit_file "$TEST_ROOT/sep/wt" a.txt a
git_real -C "$TEST_ROOT/sep/wt" config guard.enabled true
printf 'separated\n' >"$TEST_ROOT/sep/wt/a.txt"
BLOB=$(git_real -C "$TEST_ROOT/sep/wt" hash-object a.txt)
(cd "$TEST_ROOT/sep" && git --git-dir=store.git --work-tree=wt reset -q --hard)
reachable "$TEST_ROOT/sep/wt" "$BLOB" && pass "git --git-dir --work-tree reset --hard: the edit is saved" ||
    fail "the edit lost through --git-dir/--work-tree was not saved"

section "commits a reset or a detached switch leaves on no ref are saved; others are not"
git_real init -q --bare "$TEST_ROOT/left.origin"
R=$TEST_ROOT/left
repo "$R"
git_real -C "$R" push -q "$TEST_ROOT/left.origin" main
git_real -C "$R" fetch -q "$TEST_ROOT/left.origin" main:refs/remotes/origin/main
commit_file "$R" c.txt "local one"
commit_file "$R" c.txt "local two"
LOCAL=$(git_real -C "$R" rev-parse HEAD)
run_cmd git -C "$R" reset --hard origin/main
assert_eq "" "$(git_real -C "$R" for-each-ref --contains "$LOCAL" refs/heads/)" "the local commits are on no branch after reset --hard origin/main"
reachable "$R" "$LOCAL" && pass "reset --hard origin/main: the two local commits are reachable from a save" ||
    fail "reset --hard origin/main lost the two local commits, not saved"
assert_contains "$ERR" "leaves on no ref" "one line names the save of the commits"
git_real -C "$R" branch -q keep "$LOCAL"
git_real -C "$R" reset -q --hard "$LOCAL"
before=$(count "$(saves "$R")")
run_cmd git -C "$R" reset --hard origin/main
assert_eq "$before" "$(count "$(saves "$R")")" "commits another branch holds: nothing saved"
assert_eq "" "$ERR" "commits another branch holds: nothing printed"
git_real -C "$R" checkout -q --detach origin/main
commit_file "$R" d.txt "detached work"
DETACHED=$(git_real -C "$R" rev-parse HEAD)
(cd "$R" && git checkout -q -f main 2>/dev/null)
reachable "$R" "$DETACHED" && pass "checkout -f main from a detached HEAD: its commit is reachable from a save" ||
    fail "checkout -f main lost the detached HEAD's commit, not saved"

section "a conflicted tree: saved whole, the resolution in progress stays reachable"
R=$TEST_ROOT/conflict
repo "$R"
git_real -C "$R" checkout -q -b side
commit_file "$R" a.txt side
git_real -C "$R" checkout -q main
commit_file "$R" a.txt main
git_real -C "$R" merge -q side >/dev/null 2>&1
printf 'half resolved\n' >"$R/a.txt"
BLOB=$(git_real -C "$R" hash-object a.txt)
run_cmd git -C "$R" reset --hard
assert_eq 0 "$RC" "reset --hard during a conflict runs"
reachable "$R" "$BLOB" && pass "the half-resolved a.txt is reachable from a save" || fail "the half-resolved a.txt was destroyed, not saved"
assert_eq "" "$(git_real -C "$R" for-each-ref refs/heads/stranded/)" "the whole-tree save is no branch either"

section "a save that cannot be written: refused, git does not run, the tree unchanged"
R=$TEST_ROOT/refused
repo "$R"
printf 'precious\n' >"$R/a.txt"
printf 'staged\n' >"$R/b.txt" && git_real -C "$R" add b.txt
rm -rf "$R/.git/refs/stranded" && : >"$R/.git/refs/stranded" # no ref can be created under it
cp "$R/.git/index" "$TEST_ROOT/index.before"
run_cmd git -C "$R" reset --hard
assert_eq 128 "$RC" "the refusal exits 128"
assert_eq "precious" "$(cat "$R/a.txt")" "the edit of a.txt is still in the tree"
assert_same_file "$TEST_ROOT/index.before" "$R/.git/index" "the index is byte for byte as it was"
assert_contains "$ERR" "refusing to run \`git reset --hard\`" "the message names the command"
assert_contains "$ERR" "a.txt" "the message names what it would destroy"
assert_contains "$ERR" "why: " "the message says why"
assert_contains "$ERR" "recover: " "the message says how to recover"
assert_contains "$ERR" "discard: " "the message says how to discard"
assert_eq "" "$OUT" "git did not run: nothing on stdout"
rm -f "$R/.git/refs/stranded"
recover=$(printf '%s\n' "$ERR" | sed -n 's/^  recover: //p')
(cd "$TEST_ROOT" && eval "$recover" >/dev/null 2>&1)
assert_eq "precious" "$(git_real -C "$R" show rescue/refused:a.txt 2>/dev/null)" "the pasted recover command keeps the edit on a branch"

finish
