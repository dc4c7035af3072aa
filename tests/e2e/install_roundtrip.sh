#!/usr/bin/env bash
# git guard install -> doctor -> install again -> uninstall, over each hook manager's
# layout: uninstall must leave the hooks directory and .git/config byte-identical.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/install_fixtures.bash"

# round_trip NAME LAYOUT [INSTALL OPTIONS...]
round_trip() {
    local name=$1 layout=$2 repo=$TEST_ROOT/$1
    shift 2
    section "round trip: $name ${*:-}"
    new_repo "$repo"
    "$layout" "$repo"
    local hooks wt_hooks
    git_real -C "$repo" worktree add -q "$TEST_ROOT/$name-wt" -b "$name-wt"
    hooks=$(cd "$repo" && git_real rev-parse --path-format=absolute --git-path hooks)
    wt_hooks=$(cd "$TEST_ROOT/$name-wt" && git_real rev-parse --path-format=absolute --git-path hooks)
    repo_snapshot "$repo" "$hooks" "$wt_hooks" >"$TEST_ROOT/$name.before"

    run_cmd "$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim" "$@"
    assert_eq 0 "$RC" "install succeeds over the $name layout: $ERR"
    assert_contains "$(guard_hook_text "$repo" "$hooks")" "# git-guard reference-transaction" \
        "the reference-transaction hook in $hooks is git-guard's (or lefthook runs git-guard's job)"
    assert_eq true "$(git_real -C "$repo" config guard.enabled)" "install sets guard.enabled"

    shim_on "$TEST_ROOT/shim"
    run_cmd "$GUARD" -C "$repo" doctor
    assert_eq 0 "$RC" "doctor passes after install over the $name layout"
    [ "$RC" -eq 0 ] || printf '%s\n' "$OUT" | grep FAIL -A1 | sed 's/^/       /'
    shim_off

    repo_snapshot "$repo" "$hooks" "$wt_hooks" >"$TEST_ROOT/$name.installed"
    cp "$repo/.git/guard/manifest" "$TEST_ROOT/$name.manifest"
    run_cmd "$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim" "$@"
    assert_eq 0 "$RC" "a second install succeeds"
    assert_contains "$OUT" "nothing changed" "a second install says it changed nothing"
    repo_snapshot "$repo" "$hooks" "$wt_hooks" >"$TEST_ROOT/$name.again"
    assert_same_file "$TEST_ROOT/$name.installed" "$TEST_ROOT/$name.again" \
        "a second install changes no hook and no config"
    assert_same_file "$TEST_ROOT/$name.manifest" "$repo/.git/guard/manifest" \
        "a second install records nothing new"

    run_cmd "$GUARD" -C "$repo" uninstall
    assert_eq 0 "$RC" "uninstall succeeds: $ERR"
    repo_snapshot "$repo" "$hooks" "$wt_hooks" >"$TEST_ROOT/$name.after"
    assert_same_file "$TEST_ROOT/$name.before" "$TEST_ROOT/$name.after" \
        "uninstall restores the $name hooks and .git/config byte for byte"
    assert_no_file "$TEST_ROOT/shim/git" "uninstall removes the shim link no other repository uses"
    assert_no_file "$HOME/.local/share/git-guard/repos" "uninstall empties the registry"
}

round_trip plain layout_plain
round_trip user-hook layout_user_hook
round_trip husky layout_husky
round_trip lefthook layout_lefthook
round_trip pre-commit layout_precommit --lock-worktrees
round_trip user-hook-locked layout_user_hook --lock-worktrees

section "husky: the hook in a linked worktree stays out of git status"
repo=$TEST_ROOT/husky-status
new_repo "$repo"
layout_husky "$repo"
git_real -C "$repo" worktree add -q "$TEST_ROOT/husky-status-wt" -b hs
"$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim" >/dev/null
assert_file_exists "$TEST_ROOT/husky-status-wt/.husky/_/reference-transaction" \
    "the linked worktree's .husky/_ gets the hook too (git runs hooks from the tree's root)"
assert_eq "" "$(git_real -C "$TEST_ROOT/husky-status-wt" status --porcelain)" \
    "the hook added to the linked worktree leaves it clean"
assert_eq "" "$(git_real -C "$repo" status --porcelain)" "the main worktree stays clean"
"$GUARD" -C "$repo" uninstall >/dev/null
assert_no_file "$TEST_ROOT/husky-status-wt/.husky/_" "uninstall removes the directories it created"
assert_file_exists "$TEST_ROOT/husky-status-wt/.husky/pre-commit" "uninstall keeps the tracked .husky/ it did not create"

section "a hook manager writes its hook over ours again"
repo=$TEST_ROOT/reinstalled
new_repo "$repo"
write_hook "$repo/.git/hooks/reference-transaction" '#!/bin/sh
# my-manager: generated, do not edit
echo "my-manager $*" >>"$HOME/manager.log"'
cp -p "$repo/.git/hooks/reference-transaction" "$TEST_ROOT/manager-hook"
"$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim" >/dev/null
# The manager installs again: it writes its own script over ours.
rm "$repo/.git/hooks/reference-transaction"
cp -p "$TEST_ROOT/manager-hook" "$repo/.git/hooks/reference-transaction"
assert_contains "$(cd "$repo" && doctor_failures)" "hook" "doctor notices that the hook was written over"
run_cmd "$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "install again puts git-guard's hook back: $ERR"
assert_contains "$(guard_hook_text "$repo" "$repo/.git/hooks")" "# git-guard reference-transaction hook" \
    "git-guard's hook is in place again"
assert_same_file "$TEST_ROOT/manager-hook" "$repo/.git/hooks/reference-transaction.guard-chained" \
    "the manager's hook is still the chained one"
: >"$HOME/manager.log"
git_real -C "$repo" commit -q --allow-empty -m "after reinstall"
assert_contains "$(cat "$HOME/manager.log")" "my-manager" "the manager's hook still runs"
run_cmd "$GUARD" -C "$repo" uninstall
assert_same_file "$TEST_ROOT/manager-hook" "$repo/.git/hooks/reference-transaction" \
    "uninstall gives the manager its hook back"
assert_no_file "$repo/.git/hooks/reference-transaction.guard-chained" "no chained copy is left"

section "config changed after install: uninstall restores key by key"
repo=$TEST_ROOT/later-config
new_repo "$repo"
"$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim" >/dev/null
git_real -C "$repo" config user.signingkey ABC
run_cmd "$GUARD" -C "$repo" uninstall
assert_contains "$OUT" "key by key" "uninstall says it could not restore the config byte for byte"
assert_eq "" "$(git_real -C "$repo" config --get-regexp '^guard\.')" "no guard.* key is left"
assert_not_contains "$(cat "$repo/.git/config")" "[guard]" "no empty [guard] section is left"
assert_eq ABC "$(git_real -C "$repo" config user.signingkey)" "the user's own later change is kept"

section "two repositories share the shim"
new_repo "$TEST_ROOT/one"
new_repo "$TEST_ROOT/two"
"$GUARD" -C "$TEST_ROOT/one" install --shim-dir "$TEST_ROOT/shared" >/dev/null
"$GUARD" -C "$TEST_ROOT/two" install --shim-dir "$TEST_ROOT/shared" >/dev/null
run_cmd "$GUARD" -C "$TEST_ROOT/one" uninstall
assert_file_exists "$TEST_ROOT/shared/git" "the shim stays while another guarded repository uses it"
assert_contains "$OUT" "kept the shim" "uninstall says why the shim stays"
"$GUARD" -C "$TEST_ROOT/two" uninstall >/dev/null
assert_no_file "$TEST_ROOT/shared/git" "the last uninstall removes the shim"

finish
