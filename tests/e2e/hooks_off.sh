#!/usr/bin/env bash
# Hooks off is not guard off (DESIGN §2.4, LESSONS 21, issue 16 item 2). A widely used
# coding agent runs every git with core.hooksPath=/dev/null and
# hook.reference-transaction.enabled=false in GIT_CONFIG_COUNT, and deletes its branches
# with `git branch -D --end-of-options <name>`. Through the shim, such a ref writer runs
# with git-guard's own hook alone (a private hooks directory), so the hook saves what it
# always saves, and none of the user's hooks runs. Read-only calls keep the fast path;
# unguarded repositories get git untouched.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

AGENT_ENV=(GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null
    GIT_CONFIG_KEY_1=hook.reference-transaction.enabled GIT_CONFIG_VALUE_1=false)

source "$(dirname "${BASH_SOURCE[0]}")/branch_fixtures.bash"
# saved_tip REPO TIP: the stranded branches pointing at TIP.
saved_tip() {
    git_real -C "$1" for-each-ref --points-at "$2" --format='%(refname)' refs/heads/stranded/
}

make_clone repo
REPO=$TEST_ROOT/repo
# The user's own hooks: chained behind ours by install, and one more; each logs its runs.
for hook in reference-transaction post-checkout; do
    printf '#!/bin/sh\necho "%s $1" >>"%s"\ncat >/dev/null\n' "$hook" "$TEST_ROOT/user-hooks.log" >"$REPO/.git/hooks/$hook"
    chmod +x "$REPO/.git/hooks/$hook"
done
mv "$REPO/.git/hooks/reference-transaction" "$REPO/.git/hooks/reference-transaction.guard-chained"
git_real -C "$REPO" config guard.enabled true
install_hook "$REPO"
shim_on
cd "$REPO" || exit 1

section "the agent's environment: branch -D --end-of-options <name> saves the unpushed commit"
TIP=$(unpushed "$REPO" agent-wip)
: >"$TEST_ROOT/user-hooks.log"
run_cmd env "${AGENT_ENV[@]}" git branch -D --end-of-options agent-wip
assert_eq 0 "$RC" "branch -D in the agent's environment failed ($ERR)"
assert_no_ref "$REPO" refs/heads/agent-wip "git did not delete the branch"
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "the agent's branch -D destroyed the unpushed commit of agent-wip, not saved"
assert_eq "" "$(cat "$TEST_ROOT/user-hooks.log")" "a hook of the user's ran although the caller switched hooks off"

section "update-ref -d and -c core.hooksPath=/dev/null: saved; git's own output"
TIP=$(unpushed "$REPO" plumbing-wip)
run_cmd env "${AGENT_ENV[@]}" git update-ref -d refs/heads/plumbing-wip
assert_eq 0 "$RC" "update-ref -d with the hooks off failed ($ERR)"
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "update-ref -d with the hooks off destroyed the unpushed commit, not saved"
TIP=$(unpushed "$REPO" c-wip)
run_cmd git -c core.hooksPath=/dev/null -c hook.reference-transaction.enabled=false branch -D c-wip
assert_eq "Deleted branch c-wip (was ${TIP:0:7})." "$OUT" "branch -D's stdout is not git's own"
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "-c core.hooksPath=/dev/null branch -D destroyed the unpushed commit, not saved"

section "fetch --prune into refs/heads/ with the hooks off: the pruned branch's commit is saved"
TIP=$(unpushed "$REPO" pruned-wip)
git_real -C "$REPO" checkout -q --detach main
run_cmd env "${AGENT_ENV[@]}" git fetch -q --prune origin '+refs/heads/pruned-*:refs/heads/pruned-*'
assert_eq 0 "$RC" "fetch --prune with the hooks off failed ($ERR)"
assert_no_ref "$REPO" refs/heads/pruned-wip "git did not prune the branch"
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "fetch --prune with the hooks off destroyed the unpushed commit of pruned-wip, not saved"
git_real -C "$REPO" checkout -q main

section "an alias that switches hooks off itself: saved"
git_real -C "$REPO" config alias.nuke '-c core.hooksPath=/dev/null branch -D'
TIP=$(unpushed "$REPO" alias-wip)
run_cmd git nuke alias-wip
assert_eq 0 "$RC" "the alias failed ($ERR)"
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "an alias with -c core.hooksPath=/dev/null destroyed the unpushed commit, not saved"

section "a pushed branch with the hooks off: deleted, nothing saved"
unpushed "$REPO" pushed >/dev/null
git_real -C "$REPO" push -q origin pushed
run_cmd env "${AGENT_ENV[@]}" git branch -D pushed
assert_eq 0 "$RC" "branch -D of a pushed branch failed ($ERR)"
assert_eq "" "$(git_real -C "$REPO" for-each-ref refs/heads/stranded/pushed/)" "a pushed branch was saved"

section "read-only calls with the hooks off keep the fast path (the full binary never starts)"
LOG=$REPO/.git/guard/guard.log
: >"$LOG"
run_cmd env "${AGENT_ENV[@]}" git status --short
run_cmd env "${AGENT_ENV[@]}" git log --oneline -1
assert_not_contains "$(cat "$LOG")" "shim: git" "a read-only call with the hooks off left the fast path"

section "an unguarded repository with the hooks off: git untouched, nothing saved"
make_clone plain
PLAIN=$TEST_ROOT/plain
unpushed "$PLAIN" gone >/dev/null
run_cmd env "${AGENT_ENV[@]}" git -C "$PLAIN" branch -D gone
assert_eq 0 "$RC" "branch -D in an unguarded repository failed ($ERR)"
assert_eq "" "$(git_real -C "$PLAIN" for-each-ref refs/heads/stranded/)" "an unguarded repository got a save"
assert_no_file "$PLAIN/.git/guard" "an unguarded repository got a guard directory"

section "guard.enabled=false stays the way to delete with the guard off"
TIP=$(unpushed "$REPO" let-go)
run_cmd env "${AGENT_ENV[@]}" git -c guard.enabled=false branch -D let-go
assert_eq "" "$(saved_tip "$REPO" "$TIP")" "a deletion with guard.enabled=false was saved"

cd "$TEST_ROOT" || exit 1
shim_off
finish
