#!/usr/bin/env bash
# The real lefthook (2.x, from npm): it renames a reference-transaction hook it did not
# write to .old and never runs it (LESSONS 19). git-guard registers as a job in lefthook's
# local config instead, which every `lefthook install` keeps (docs/decisions.md).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/install_fixtures.bash"
in_sandbox

lefthook=$(tool_path lefthook) || skip_tool lefthook
export PATH=${lefthook%/*}:$PATH BASE_PATH=${lefthook%/*}:$BASE_PATH
export NO_COLOR=1

# lefthook_repo DIR: a repository whose tracked lefthook.yml has its own
# reference-transaction job, which logs each state it sees to $HOME/job.log.
lefthook_repo() {
    new_repo "$1"
    printf '%s\n' 'reference-transaction:' '  jobs:' '    - name: log' \
        '      run: echo "job {1}" >>"$HOME/job.log"' >"$1/lefthook.yml"
    git_real -C "$1" add lefthook.yml
    git_real -C "$1" commit -q -m "lefthook"
}

lefthook_in() { (cd "$1" && shift && "$lefthook" "$@") >/dev/null 2>&1; }

section "lefthook install -> git guard install -> branch -D -> lefthook install -> branch -D"
repo=$TEST_ROOT/repo
lefthook_repo "$repo"
lefthook_in "$repo" install
assert_contains "$(cat "$repo/.git/hooks/reference-transaction")" LEFTHOOK "lefthook installed its hook"
cp "$repo/.git/info/exclude" "$TEST_ROOT/exclude.before"
run_cmd "$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "git guard install succeeds over lefthook: $ERR"
assert_contains "$(cat "$repo/.git/hooks/reference-transaction")" LEFTHOOK "lefthook's hook stays in place"
assert_contains "$(cat "$repo/lefthook-local.yml")" "git-guard" "git-guard's job is in lefthook-local.yml"
assert_eq "" "$(git_real -C "$repo" status --porcelain)" "lefthook-local.yml stays out of git status"
shim_on "$TEST_ROOT/shim"
run_cmd "$GUARD" -C "$repo" doctor
assert_eq 0 "$RC" "doctor passes with lefthook running the job: $(printf '%s\n' "$OUT" | grep FAIL)"
: >"$HOME/job.log"
tip=$(unpublished_branch "$repo" one)
git -C "$repo" branch -D one >/dev/null 2>&1
assert_saved "$repo" "$tip" "branch -D under lefthook lost the unpublished commit of 'one'"
assert_contains "$(cat "$HOME/job.log")" "job prepared" "lefthook's own job still runs"

for again in "install" "install -f"; do
    lefthook_in "$repo" $again
    : >"$HOME/job.log"
    tip=$(unpublished_branch "$repo" "two-${again// /}")
    git -C "$repo" branch -D "two-${again// /}" >/dev/null 2>&1
    assert_saved "$repo" "$tip" "after 'lefthook $again', branch -D lost the unpublished commit"
    assert_contains "$(cat "$HOME/job.log")" "job prepared" "lefthook's job runs after 'lefthook $again'"
done
run_cmd "$GUARD" -C "$repo" doctor
assert_eq 0 "$RC" "doctor still passes after lefthook install -f"

section "a worktree added after install is guarded too"
git -C "$repo" worktree add -q "$TEST_ROOT/wt" -b wt 2>/dev/null
assert_contains "$(cat "$TEST_ROOT/wt/lefthook-local.yml" 2>&1)" "git-guard" \
    "the new tree's lefthook config holds git-guard's job"
tip=$(unpublished_branch "$repo" three)
git -C "$TEST_ROOT/wt" branch -D three >/dev/null 2>&1
assert_saved "$repo" "$tip" "branch -D inside the new worktree lost the unpublished commit"

section "doctor names a missing job"
mv "$repo/lefthook-local.yml" "$TEST_ROOT/job.yml"
assert_contains "$(cd "$repo" && doctor_failures)" "hook" "doctor fails when lefthook runs without git-guard's job"
mv "$TEST_ROOT/job.yml" "$repo/lefthook-local.yml"

section "git guard uninstall leaves lefthook working and nothing of ours behind"
run_cmd "$GUARD" -C "$repo" uninstall
assert_eq 0 "$RC" "uninstall succeeds: $ERR"
assert_no_file "$repo/lefthook-local.yml" "the lefthook-local.yml install created is gone"
assert_no_file "$TEST_ROOT/wt/lefthook-local.yml" "so is the new tree's"
assert_same_file "$TEST_ROOT/exclude.before" "$repo/.git/info/exclude" "info/exclude is as before"
assert_nothing_of_ours "$repo/.git/hooks" "$repo/lefthook.yml"
: >"$HOME/job.log"
git_real -C "$repo" branch after-uninstall >/dev/null
assert_contains "$(cat "$HOME/job.log")" "job prepared" "lefthook's job runs after uninstall"
lefthook_in "$repo" install
assert_eq 0 "$?" "lefthook install still works after uninstall"

section "git guard install first, then lefthook install"
repo=$TEST_ROOT/first
lefthook_repo "$repo"
"$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim" >/dev/null
lefthook_in "$repo" install
assert_contains "$(cat "$repo/.git/hooks/reference-transaction")" LEFTHOOK "lefthook put its hook in place"
tip=$(unpublished_branch "$repo" four)
git -C "$repo" branch -D four >/dev/null 2>&1
assert_saved "$repo" "$tip" "after lefthook moved our hook to .old, branch -D lost the unpublished commit"
run_cmd "$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "doctor's fix, git guard install again, succeeds: $ERR"
lefthook_in "$repo" install
assert_eq 0 "$?" "the next lefthook install does not fail with 'file already exists'"
tip=$(unpublished_branch "$repo" five)
git -C "$repo" branch -D five >/dev/null 2>&1
assert_saved "$repo" "$tip" "after doctor's fix and lefthook install, branch -D lost the unpublished commit"

section "a job that runs another installation's front end is updated"
sed -i "s|'[^']*git-guard-hook'|'/old/libexec/git-guard/git-guard-hook'|" "$repo/lefthook-local.yml"
assert_contains "$(cd "$repo" && doctor_failures)" "hook" "doctor names a job that runs another front end"
run_cmd "$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim"
assert_contains "$OUT" "updated git-guard's job" "install updates the job"
assert_not_contains "$(cat "$repo/lefthook-local.yml")" "/old/libexec" "the old front end is gone from the job"
run_cmd "$GUARD" -C "$repo" uninstall
assert_not_contains "$OUT" "alone" "uninstall leaves nothing of ours alone"
assert_no_file "$repo/.git/hooks/reference-transaction.old" "uninstall removes our hook that lefthook renamed to .old"
assert_nothing_of_ours "$repo/.git/hooks"

section "a lefthook.yml without a reference-transaction job"
repo=$TEST_ROOT/pre-commit-only
new_repo "$repo"
printf '%s\n' 'pre-commit:' '  jobs:' '    - run: echo "lefthook pre-commit" >>"$HOME/job.log"' >"$repo/lefthook.yml"
git_real -C "$repo" add lefthook.yml
git_real -C "$repo" commit -q -m lefthook
lefthook_in "$repo" install
"$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim" >/dev/null
tip=$(unpublished_branch "$repo" six)
git -C "$repo" branch -D six >/dev/null 2>&1
assert_saved "$repo" "$tip" "branch -D with our own hook in place lost the unpublished commit"
# Our job makes lefthook take the hook over on its next install: the job still guards.
lefthook_in "$repo" install
tip=$(unpublished_branch "$repo" seven)
git -C "$repo" branch -D seven >/dev/null 2>&1
assert_saved "$repo" "$tip" "after lefthook took the hook over, branch -D lost the unpublished commit"
: >"$HOME/job.log"
commit_file "$repo" c.txt "c" >/dev/null 2>&1
assert_contains "$(cat "$HOME/job.log")" "lefthook pre-commit" "lefthook's pre-commit job still runs"
run_cmd "$GUARD" -C "$repo" uninstall
assert_not_contains "$OUT" "alone" "uninstall leaves nothing of ours alone"
assert_nothing_of_ours "$repo/.git/hooks"
assert_no_file "$repo/lefthook-local.yml" "no lefthook-local.yml is left"

finish
