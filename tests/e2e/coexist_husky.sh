#!/usr/bin/env bash
# The real husky 9 (from npm): `npx husky`, which every `npm install` runs, rewrites its
# standard hooks in .husky/_/ (post-checkout among them) and keeps the others; a worktree
# added later has no .husky/_/ at all (it is ignored, so not checked out).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/install_fixtures.bash"
in_sandbox

husky=$(tool_path husky) || skip_tool husky

husky_in() { (cd "$1" && "$husky") >/dev/null 2>&1; }

repo=$TEST_ROOT/repo
new_repo "$repo"
mkdir -p "$repo/.husky"
printf 'echo "husky pre-commit ran" >>"$HOME/husky.log"\n' >"$repo/.husky/pre-commit"
git_real -C "$repo" add .husky
git_real -C "$repo" commit -q -m husky
husky_in "$repo"
assert_eq ".husky/_" "$(git_real -C "$repo" config core.hooksPath)" "husky set core.hooksPath"

section "npx husky -> git guard install --lock-worktrees -> branch -D -> npx husky -> branch -D"
run_cmd "$GUARD" -C "$repo" install --lock-worktrees --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "git guard install succeeds over husky: $ERR"
shim_on "$TEST_ROOT/shim"
run_cmd "$GUARD" -C "$repo" doctor
assert_eq 0 "$RC" "doctor passes over husky: $(printf '%s\n' "$OUT" | grep FAIL)"
tip=$(unpublished_branch "$repo" one)
git -C "$repo" branch -D one >/dev/null 2>&1
assert_saved "$repo" "$tip" "branch -D under husky lost the unpublished commit of 'one'"
husky_in "$repo"
tip=$(unpublished_branch "$repo" two)
git -C "$repo" branch -D two >/dev/null 2>&1
assert_saved "$repo" "$tip" "after npx husky, branch -D lost the unpublished commit of 'two'"
: >"$HOME/husky.log"
commit_file "$repo" a.txt "husky still commits"
assert_contains "$(cat "$HOME/husky.log")" "husky pre-commit ran" "husky's own hook still runs"

section "a worktree added after install (and after npx husky dropped our post-checkout)"
run_cmd git -C "$repo" worktree add "$TEST_ROOT/wt" -b wt
assert_eq 0 "$RC" "worktree add through the shim succeeds: $ERR"
assert_contains "$(git_real -C "$repo" worktree list --porcelain)" "locked git-guard" \
    "the new tree is locked (--lock-worktrees) although npx husky dropped our post-checkout"
tip=$(unpublished_branch "$repo" three)
(cd "$TEST_ROOT/wt" && git branch -D three >/dev/null 2>&1)
assert_saved "$repo" "$tip" "branch -D inside the new worktree (no .husky/_ there) lost the unpublished commit"
assert_eq "" "$(git_real -C "$TEST_ROOT/wt" status --porcelain)" "the new tree's hook stays out of git status"
run_cmd "$GUARD" -C "$repo" doctor
assert_contains "$OUT" "FAIL  lock_hook" "doctor names the post-checkout hook npx husky replaced"

section "git guard uninstall leaves husky working and nothing of ours behind"
git_real -C "$repo" worktree unlock "$TEST_ROOT/wt" 2>/dev/null
git_real -C "$repo" worktree lock --reason git-guard "$TEST_ROOT/wt"
run_cmd "$GUARD" -C "$repo" uninstall
assert_eq 0 "$RC" "uninstall succeeds: $ERR"
assert_nothing_of_ours "$repo/.husky" "$TEST_ROOT/wt/.husky" "$repo/.git/hooks"
assert_not_contains "$(git_real -C "$repo" worktree list --porcelain)" "locked git-guard" \
    "uninstall lifts git-guard's locks"
assert_eq ".husky/_" "$(git_real -C "$repo" config core.hooksPath)" "husky's core.hooksPath stays"
: >"$HOME/husky.log"
commit_file "$repo" b.txt "after uninstall"
assert_contains "$(cat "$HOME/husky.log")" "husky pre-commit ran" "husky's hook runs after uninstall"
husky_in "$repo"
assert_eq 0 "$?" "npx husky still works after uninstall"

finish
