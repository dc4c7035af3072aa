#!/usr/bin/env bash
# `git gc` runs `git worktree prune` itself (DESIGN §6). Through the shim, gc's own child
# reaches the shim by the exec-path mirror and is guarded like any prune (issue 16, item
# 9). A git that bypasses the shim does not: the scheduled maintenance job, which names
# the real git (maintenance_schedule.sh), cron, an absolute path. So install still sets
# gc.worktreePruneExpire=never, says so and why, and uninstall puts back the previous
# value byte for byte (issue 7, item 9).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/install_fixtures.bash"

# detached_commit REPO TREE: a linked tree on a detached HEAD with a commit that no ref
# holds, whose directory is then deleted. Prints the commit.
detached_commit() {
    git_real -C "$1" worktree add -q --detach "$2"
    commit_file "$2" lost.txt "only in the deleted tree" >/dev/null
    git_real -C "$2" rev-parse HEAD
    rm -rf "$2"
}

section "git gc with gc.worktreePruneExpire=now keeps a deleted detached tree's commits"
repo=$TEST_ROOT/repo
new_repo "$repo"
git_real -C "$repo" config gc.worktreePruneExpire now
cp "$repo/.git/config" "$TEST_ROOT/config.before"
run_cmd "$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "install succeeds: $ERR"
assert_eq never "$(git_real -C "$repo" config gc.worktreePruneExpire)" \
    "install overrides gc.worktreePruneExpire=now with never"
assert_contains "$OUT" "it was now" "install says it overrode the value set before"
commit=$(detached_commit "$repo" "$TEST_ROOT/detached")
# gc prunes objects before worktrees: the second gc is the one that loses the commit.
git_real -C "$repo" -c gc.pruneExpire=now gc -q
git_real -C "$repo" -c gc.pruneExpire=now gc -q
git_real -C "$repo" cat-file -e "$commit" 2>/dev/null
assert_eq 0 "$?" "the commit made in the deleted detached tree was lost to git gc"
assert_contains "$(git_real -C "$repo" worktree list --porcelain)" "$TEST_ROOT/detached" \
    "git gc left the deleted tree's admin entry for the shim's guarded prune"
run_cmd "$GUARD" -C "$repo" uninstall
assert_same_file "$TEST_ROOT/config.before" "$repo/.git/config" \
    "uninstall restores the config, gc.worktreePruneExpire=now included, byte for byte"

section "git gc through the shim: its own worktree prune is guarded, not kept from pruning"
repo=$TEST_ROOT/children
new_repo "$repo"
git_real -C "$repo" config guard.enabled true
install_hook "$repo"
commit=$(detached_commit "$repo" "$TEST_ROOT/child-tree")
shim_on
run_cmd git -C "$repo" -c gc.worktreePruneExpire=now -c gc.pruneExpire=now gc -q
shim_off
assert_eq 0 "$RC" "git gc succeeds through the shim: $ERR"
assert_eq "" "$(ls "$repo/.git/worktrees" 2>/dev/null)" "git gc pruned the deleted tree's admin entry itself"
assert_ne "" "$(git_real -C "$repo" for-each-ref --contains "$commit" --format='%(refname)' refs/heads/stranded/)" \
    "git gc's own worktree prune lost the deleted tree's detached commit (the shim never saw it)"
assert_contains "$ERR" "git-guard: saved" "gc's prune names the save on stderr"

section "install says why it sets gc.worktreePruneExpire=never"
repo=$TEST_ROOT/why
new_repo "$repo"
run_cmd "$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim"
assert_contains "$OUT" "set gc.worktreePruneExpire=never" "install names the key it sets"
assert_contains "$OUT" "bypasses the shim" "install says which prunes the key is for"
"$GUARD" -C "$repo" uninstall >/dev/null

section "absent stays absent"
repo=$TEST_ROOT/absent
new_repo "$repo"
cp "$repo/.git/config" "$TEST_ROOT/absent.before"
"$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim" >/dev/null
assert_eq never "$(git_real -C "$repo" config gc.worktreePruneExpire)" "install sets never"
"$GUARD" -C "$repo" uninstall >/dev/null
assert_same_file "$TEST_ROOT/absent.before" "$repo/.git/config" "uninstall leaves no gc key behind"

section "config changed after install: the old value comes back key by key"
repo=$TEST_ROOT/later
new_repo "$repo"
git_real -C "$repo" config gc.worktreePruneExpire 2.weeks.ago
"$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim" >/dev/null
git_real -C "$repo" config user.signingkey ABC
"$GUARD" -C "$repo" uninstall >/dev/null
assert_eq 2.weeks.ago "$(git_real -C "$repo" config gc.worktreePruneExpire)" \
    "uninstall restores the value set before install"
assert_eq ABC "$(git_real -C "$repo" config user.signingkey)" "and keeps the later change"

section "a value from global config is overridden locally, and comes back"
repo=$TEST_ROOT/global
new_repo "$repo"
git_real config --global gc.worktreePruneExpire now
"$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim" >/dev/null
assert_eq never "$(git_real -C "$repo" config gc.worktreePruneExpire)" "the local never wins"
"$GUARD" -C "$repo" uninstall >/dev/null
assert_eq now "$(git_real -C "$repo" config gc.worktreePruneExpire)" "the global value applies again"
assert_eq "" "$(git_real -C "$repo" config --local gc.worktreePruneExpire)" "no local key is left"
git_real config --global --unset gc.worktreePruneExpire

finish
