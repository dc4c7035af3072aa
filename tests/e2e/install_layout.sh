#!/usr/bin/env bash
# The installed layout (contract C5): <prefix>/bin/git-guard, the front ends in
# <prefix>/libexec/git-guard/, and reference-transaction placed as a copy of the
# installed git-guard-hook beside a git-guard.path sidecar, which git then runs directly
# (argv[0] = the hook path, argv[1] = the state). The front end here is a stand-in that says it knows the C5 form
# (it names git-guard.path, the sidecar) and logs how git ran it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/install_fixtures.bash"

prefix=$TEST_ROOT/prefix
mkdir -p "$prefix/bin" "$prefix/libexec/git-guard" "$prefix/share/git-guard/hooks"
cp "$GUARD_BIN_DIR/git-guard" "$prefix/bin/git-guard"
cp "$GUARD_BIN_DIR/git-guard-shim" "$prefix/libexec/git-guard/"
cp "$GUARD_SOURCE_DIR"/hooks/* "$prefix/share/git-guard/hooks/"
write_hook "$prefix/libexec/git-guard/git-guard-hook" '#!/bin/sh
# a stand-in front end that knows the C5 form: it would read git-guard.path
[ "$1" = --guard-version ] && { echo "git-guard-hook 0"; exit 0; }
echo "$0 $*" >>"$HOME/front.log"
cat >/dev/null'
guard=$prefix/bin/git-guard

section "install places reference-transaction as a copy of the installed front end"
repo=$TEST_ROOT/repo
new_repo "$repo"
layout_user_hook "$repo"
cp -p "$repo/.git/hooks/reference-transaction" "$TEST_ROOT/user-hook"
run_cmd "$guard" -C "$repo" install --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "install succeeds in the installed layout: $ERR"
hook=$repo/.git/hooks/reference-transaction
assert_eq "" "$(readlink "$hook")" "reference-transaction is a file of its own, not a link"
assert_same_file "$prefix/libexec/git-guard/git-guard-hook" "$hook" \
    "reference-transaction is a copy of <prefix>/libexec/git-guard/git-guard-hook"
assert_eq "$prefix/bin/git-guard" "$(cat "$repo/.git/hooks/git-guard.path")" \
    "the sidecar names the full binary"
assert_eq "$prefix/libexec/git-guard/git-guard-shim" "$(readlink "$TEST_ROOT/shim/git")" \
    "the shim link points into libexec/git-guard/"
: >"$HOME/front.log"
git_real -C "$repo" branch b
assert_contains "$(cat "$HOME/front.log")" ".git/hooks/reference-transaction prepared" \
    "git runs the front end directly: argv[0] is the hook path, argv[1] the state"

section "doctor in the installed layout"
PATH=$TEST_ROOT/shim:$prefix/bin:$BASE_PATH
hash -r
run_cmd git -C "$repo" guard doctor
assert_contains "$OUT" "ok    hook: $hook is git-guard's, and runs the previous hook" \
    "doctor accepts the copy as git-guard's current hook"
run_cmd "$guard" -C "$repo" doctor
assert_contains "$OUT" "real_git: git 2." "git-guard run directly finds a real git"
assert_not_contains "$OUT" "at $TEST_ROOT/shim/git" \
    "and not the shim, whose target is in libexec/git-guard/, not next to git-guard"
run_cmd git -C "$repo" worktree list
assert_eq 0 "$RC" "the shim in libexec/git-guard/ finds the real git (no loop): $ERR"
shim_off

section "a second install changes nothing; uninstall puts the user's hook back"
run_cmd "$guard" -C "$repo" install --shim-dir "$TEST_ROOT/shim"
assert_contains "$OUT" "nothing changed" "a second install keeps the copy"
run_cmd "$guard" -C "$repo" uninstall
assert_eq 0 "$RC" "uninstall succeeds: $ERR"
assert_same_file "$TEST_ROOT/user-hook" "$hook" "uninstall restores the user's hook byte for byte"
assert_nothing_of_ours "$repo/.git/hooks"

section "a copy that a hook manager renamed is ours to remove"
repo=$TEST_ROOT/renamed
new_repo "$repo"
"$guard" -C "$repo" install --shim-dir "$TEST_ROOT/shim" >/dev/null
mv "$repo/.git/hooks/reference-transaction" "$repo/.git/hooks/reference-transaction.old"
write_hook "$repo/.git/hooks/reference-transaction" '#!/bin/sh
# a manager wrote this'
run_cmd "$guard" -C "$repo" uninstall
assert_no_file "$repo/.git/hooks/reference-transaction.old" "uninstall removes our renamed copy"
assert_contains "$(cat "$repo/.git/hooks/reference-transaction")" "a manager wrote this" \
    "and leaves the manager's hook"
assert_eq 1 "$(printf '%s\n' "$OUT" | grep -c 'reference-transaction')" \
    "uninstall names each hook file once: $OUT"

section "git-guard removed without uninstall: the copy still says so on a branch deletion"
# The real front end this time; then the whole installation goes, the hook's copy stays.
prefix2=$TEST_ROOT/prefix2
mkdir -p "$prefix2/bin" "$prefix2/libexec/git-guard" "$prefix2/share/git-guard/hooks"
cp "$GUARD_BIN_DIR/git-guard" "$prefix2/bin/git-guard"
cp "$GUARD_BIN_DIR/git-guard-shim" "$GUARD_BIN_DIR/git-guard-hook" "$prefix2/libexec/git-guard/"
cp "$GUARD_SOURCE_DIR"/hooks/* "$prefix2/share/git-guard/hooks/"
repo=$TEST_ROOT/gone
new_repo "$repo"
commit_file "$repo" a.txt a
"$prefix2/bin/git-guard" -C "$repo" install --shim-dir "$TEST_ROOT/shim2" >/dev/null
git_real -C "$repo" switch -q -c unpushed
commit_file "$repo" b.txt "work that exists nowhere else"
git_real -C "$repo" switch -q main
rm -rf "$prefix2"
run_cmd git_real -C "$repo" branch -D unpushed
assert_ne 0 "$RC" "with git-guard gone, branch -D of unpushed work is refused, not let through unchecked"
assert_ref_exists "$repo" refs/heads/unpushed "the unpushed branch was deleted although git-guard was gone"
assert_contains "$ERR" "$prefix2/bin/git-guard" "the refusal names the missing git-guard"
run_cmd git_real -C "$repo" update-ref refs/tags/t HEAD
assert_eq 0 "$RC" "an unrelated ref update still passes with git-guard gone: $ERR"

finish
