#!/usr/bin/env bash
# Branch deletions that no git-guard hook would see (DESIGN §6): core.hooksPath moved after
# install, or another tool's reference-transaction hook put in place of ours. The shim
# then judges `git branch -d|-D|--delete` itself, as the hook would, before git runs.
# Hooks switched off by the caller itself are hooks_off.sh's (our hook runs alone).
# With the hook in effect, the hook alone saves (once). `git guard doctor` reports the
# broken hook either way.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

source "$(dirname "${BASH_SOURCE[0]}")/branch_fixtures.bash"

# stranded REPO BRANCH: the stranded branches saved for BRANCH.
stranded() {
    git_real -C "$1" for-each-ref --format='%(objectname) %(refname)' "refs/heads/stranded/$2/"
}

make_clone repo
REPO=$TEST_ROOT/repo
git_real -C "$REPO" config guard.enabled true
install_hook "$REPO"
shim_on
cd "$REPO" || exit 1

section "the hook in effect: branch -D through the shim saves once, by the hook"
TIP=$(unpushed "$REPO" in-effect)
run_cmd git branch -D in-effect
assert_eq 0 "$RC" "branch -D failed ($ERR)"
assert_eq 1 "$(stranded "$REPO" in-effect | grep -c "^$TIP ")" "the unpushed commit of in-effect was lost, or saved more than once"

section "core.hooksPath moved after install: the shim saves branch -D's unpushed commits"
mkdir -p "$TEST_ROOT/elsewhere-hooks"
git_real -C "$REPO" config core.hooksPath "$TEST_ROOT/elsewhere-hooks"
TIP=$(unpushed "$REPO" moved)
run_cmd git branch -D moved
assert_eq 0 "$RC" "branch -D failed ($ERR)"
assert_eq 1 "$(stranded "$REPO" moved | grep -c "^$TIP ")" "the unpushed commit of moved was destroyed, not saved"
assert_contains "$ERR" "saved branch moved to stranded/moved/" "the save's line is missing"
assert_no_ref "$REPO" refs/heads/moved "git did not delete the branch"
TIP=$(unpushed "$REPO" moved-long)
run_cmd git branch --delete --force moved-long
assert_eq 1 "$(stranded "$REPO" moved-long | grep -c "^$TIP ")" "branch --delete --force: the unpushed commit was destroyed, not saved"

section "with core.hooksPath moved, a pushed branch and a merged -d save nothing"
unpushed "$REPO" pushed >/dev/null
git_real -C "$REPO" push -q origin pushed
run_cmd git branch -D pushed
assert_eq 0 "$RC" "branch -D of a pushed branch failed ($ERR)"
assert_eq "" "$(stranded "$REPO" pushed)" "a pushed branch was saved"
git_real -C "$REPO" branch merged main
run_cmd git branch -d merged
assert_eq 0 "$RC" "branch -d of a merged branch failed ($ERR)"
assert_eq "" "$(stranded "$REPO" merged)" "a branch merged into main was saved"
section "hooks switched off by the caller are not the guard off (DESIGN §2.4): each deletion is saved"
TIP=$(unpushed "$REPO" off-c)
run_cmd git -c core.hooksPath=/dev/null branch -D off-c
assert_eq 0 "$RC" "branch -D with the hooks off failed ($ERR)"
assert_no_ref "$REPO" refs/heads/off-c "git did not delete the branch"
assert_eq 1 "$(stranded "$REPO" off-c | grep -c "^$TIP ")" "-c core.hooksPath=/dev/null: the unpushed commit was destroyed, not saved"
TIP=$(unpushed "$REPO" off-env)
run_cmd env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null git branch -D off-env
assert_eq 1 "$(stranded "$REPO" off-env | grep -c "^$TIP ")" "GIT_CONFIG_COUNT core.hooksPath=/dev/null: the unpushed commit was destroyed, not saved"
TIP=$(unpushed "$REPO" off-params)
run_cmd env "GIT_CONFIG_PARAMETERS='core.hooksPath'='/dev/null'" git branch -D off-params
assert_eq 1 "$(stranded "$REPO" off-params | grep -c "^$TIP ")" "GIT_CONFIG_PARAMETERS core.hooksPath=/dev/null: the unpushed commit was destroyed, not saved"
TIP=$(unpushed "$REPO" off-config-env)
run_cmd env HP=/dev/null git --config-env=core.hooksPath=HP branch -D off-config-env
assert_no_ref "$REPO" refs/heads/off-config-env "git did not delete the branch (--config-env)"
assert_eq 1 "$(stranded "$REPO" off-config-env | grep -c "^$TIP ")" "--config-env core.hooksPath: the unpushed commit was destroyed, not saved"
section "t3204: branch -D @{upstream}, judged by the shim, deletes the upstream branch as git does"
TIP=$(unpushed "$REPO" up-target)
git_real -C "$REPO" checkout -q -b up-follower main
git_real -C "$REPO" branch -q --set-upstream-to=up-target
run_cmd git branch -D '@{upstream}'
assert_eq 0 "$RC" "branch -D @{upstream} failed where git deletes the branch ($ERR)"
assert_no_ref "$REPO" refs/heads/up-target "git did not delete the upstream branch"
assert_eq 1 "$(stranded "$REPO" up-target | grep -c "^$TIP ")" "branch -D @{upstream}: the unpushed commit of up-target was destroyed, not saved"
git_real -C "$REPO" checkout -q main
git_real -C "$REPO" config --unset core.hooksPath

section "another tool's reference-transaction hook in place of ours: the shim saves, theirs still runs"
HOOK=$REPO/.git/hooks/reference-transaction
cp "$HOOK" "$TEST_ROOT/our-hook"
printf '#!/bin/sh\necho "$1" >>"%s"\ncat >/dev/null\n' "$TEST_ROOT/theirs.log" >"$HOOK"
chmod +x "$HOOK"
TIP=$(unpushed "$REPO" replaced)
run_cmd git branch -D replaced
assert_eq 0 "$RC" "branch -D failed ($ERR)"
assert_eq 1 "$(stranded "$REPO" replaced | grep -c "^$TIP ")" "the unpushed commit of replaced was destroyed, not saved"
assert_contains "$(cat "$TEST_ROOT/theirs.log")" "prepared" "the other tool's hook did not run"

section "no save can be made: the deletion is refused, the branch stays"
cp "$TEST_ROOT/our-hook" "$HOOK"
make_clone blocked
BLOCKED=$TEST_ROOT/blocked
git_real -C "$BLOCKED" config guard.enabled true
git_real -C "$BLOCKED" config core.hooksPath "$TEST_ROOT/elsewhere-hooks"
TIP=$(unpushed "$BLOCKED" wip)
: >"$BLOCKED/.git/refs/heads/stranded" # a file there makes every save's name impossible
run_cmd git -C "$BLOCKED" branch -D wip
assert_ne 0 "$RC" "branch -D went ahead although no save could be made"
assert_eq "$TIP" "$(git_real -C "$BLOCKED" rev-parse -q --verify refs/heads/wip)" "the branch whose save failed was deleted: its commit is lost"
assert_ne "" "$ERR" "the refusal gave no reason"

cd "$TEST_ROOT" || exit 1
shim_off
finish
