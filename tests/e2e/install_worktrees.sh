#!/usr/bin/env bash
# Install run from a linked worktree guards the common repository and covers every
# worktree; a user's own reference-transaction hook keeps running and can still reject.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/install_fixtures.bash"

repo=$TEST_ROOT/repo
new_repo "$repo"
layout_user_hook "$repo"
git_real -C "$repo" worktree add -q "$TEST_ROOT/a" -b a
git_real -C "$repo" worktree add -q --detach "$TEST_ROOT/b"

section "install from a linked worktree"
run_cmd "$GUARD" -C "$TEST_ROOT/a" install --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "install from a linked worktree succeeds: $ERR"
assert_file_exists "$repo/.git/guard/manifest" "the manifest lives under the common git dir"
assert_no_file "$repo/.git/worktrees/a/guard/manifest" "nothing is written to the worktree's own admin dir"
assert_eq true "$(git_real -C "$repo" config guard.enabled)" "guard.enabled is set in the common config"
assert_contains "$(cat "$HOME/.local/share/git-guard/repos")" "$repo/.git" \
    "the registry names the common git dir"
for tree in "$repo" "$TEST_ROOT/a" "$TEST_ROOT/b"; do
    hooks=$(cd "$tree" && git_real rev-parse --path-format=absolute --git-path hooks)
    assert_contains "$(cat "$hooks/reference-transaction")" "# git-guard reference-transaction hook" \
        "git run in $(basename "$tree") finds git-guard's hook"
done
shim_on "$TEST_ROOT/shim"
for tree in "$repo" "$TEST_ROOT/a" "$TEST_ROOT/b"; do
    run_cmd "$GUARD" -C "$tree" doctor
    assert_eq 0 "$RC" "doctor passes in $(basename "$tree")"
done
shim_off
run_cmd "$GUARD" -C "$TEST_ROOT/b" install --shim-dir "$TEST_ROOT/shim"
assert_contains "$OUT" "nothing changed" "a second install from another worktree is a no-op"

section "the user's hook keeps working"
: >"$HOME/user-hook.log"
git_real -C "$TEST_ROOT/a" commit -q --allow-empty -m "an ordinary commit"
assert_contains "$(cat "$HOME/user-hook.log")" "prepared" "the user's hook still runs in the prepared state"
assert_contains "$(cat "$HOME/user-hook.log")" "committed" "the user's hook still runs in the committed state"
assert_contains "$(cat "$HOME/user-hook.log")" "refs/heads/a" "the user's hook gets the transaction on stdin"
run_cmd git_real -C "$repo" branch blocked
assert_ne 0 "$RC" "the user's hook can still reject an ordinary update"
assert_contains "$ERR" "policy: refs/heads/blocked is not allowed" "the user's hook's message reaches the user"
assert_no_ref "$repo" refs/heads/blocked "the rejected branch was not created"
run_cmd git_real -C "$repo" branch allowed
assert_eq 0 "$RC" "an update the user's hook allows goes through"

section "uninstall from another worktree"
run_cmd "$GUARD" -C "$TEST_ROOT/b" uninstall
assert_eq 0 "$RC" "uninstall from a linked worktree succeeds: $ERR"
assert_eq '#!/bin/sh' "$(head -1 "$repo/.git/hooks/reference-transaction")" "the user's hook is back"
assert_eq 750 "$(stat -c %a "$repo/.git/hooks/reference-transaction")" "with its own mode"
assert_no_file "$repo/.git/hooks/reference-transaction.guard-chained" "no chained copy is left"
run_cmd git_real -C "$repo" branch blocked
assert_ne 0 "$RC" "the restored user's hook still rejects"

finish
