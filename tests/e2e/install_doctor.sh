#!/usr/bin/env bash
# git guard doctor names each broken check with its fix; install refuses what it must.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/install_fixtures.bash"

repo=$TEST_ROOT/repo
new_repo "$repo"
layout_user_hook "$repo"
"$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim" >/dev/null
cd "$repo" || exit 1
shim_on "$TEST_ROOT/shim"

section "a healthy install"
run_cmd "$GUARD" doctor
assert_eq 0 "$RC" "doctor passes after install"
assert_eq "" "$(doctor_failures)" "no check fails"
run_cmd "$GUARD" doctor --json
assert_eq "$(printf '%s\n' "$OUT" | wc -l)" "$(printf '%s\n' "$OUT" | grep -c '^{"check":')" \
    "doctor --json prints one JSON object per line"
assert_contains "$OUT" '"check":"limits"' "doctor states the limits"
assert_contains "$OUT" "/usr/bin/git" "the limits name a git called by absolute path"
assert_contains "$OUT" "rm -rf" "the limits name tools that bypass git"
assert_contains "$OUT" "$TEST_ROOT/repo: main, clean" "doctor gives each worktree's state in one line"

section "the hook is removed"
mv .git/hooks/reference-transaction "$TEST_ROOT/saved-hook"
run_cmd "$GUARD" doctor
assert_ne 0 "$RC" "doctor fails when the hook is gone"
assert_eq "hook " "$(doctor_failures)" "doctor names the missing hook, and only it"
assert_contains "$OUT" "fix: run 'git guard install'" "doctor prints the fix"
mv "$TEST_ROOT/saved-hook" .git/hooks/reference-transaction

section "the chained hook is not executable"
chmod -x .git/hooks/reference-transaction.guard-chained
assert_eq "hook " "$(doctor_failures)" "doctor names a chained hook that no longer runs"
chmod 0750 .git/hooks/reference-transaction.guard-chained

section "the shim comes after git on PATH"
PATH=$BASE_PATH:$TEST_ROOT/shim
assert_eq "shim_on_path " "$(doctor_failures)" "doctor names the shim that git on PATH bypasses"
run_cmd "$GUARD" doctor
assert_contains "$OUT" "export PATH=\"$TEST_ROOT/shim:\$PATH\"" "doctor prints the line that fixes PATH"
shim_on "$TEST_ROOT/shim"

section "a global core.hooksPath"
git_real config --global core.hooksPath "$TEST_ROOT/global-hooks"
assert_eq "hook hooks_path " "$(doctor_failures)" "doctor names the global core.hooksPath that hides the hook"
run_cmd "$GUARD" doctor
assert_contains "$OUT" "global config" "doctor says where core.hooksPath comes from"
git_real config --global --unset core.hooksPath

section "guard.enabled is unset"
git_real config --unset guard.enabled
assert_eq "enabled " "$(doctor_failures)" "doctor names guard.enabled"
git_real config guard.enabled true

section "the hook front end is another version"
mkdir -p "$TEST_ROOT/other/bin"
cp "$GUARD" "$GUARD_BIN_DIR/git-guard-shim" "$TEST_ROOT/other/bin/"
write_hook "$TEST_ROOT/other/bin/git-guard-hook" '#!/bin/sh
echo "git-guard-hook 0.0.1"'
run_cmd "$TEST_ROOT/other/bin/git-guard" doctor
assert_contains "$OUT" "FAIL  version" "doctor names a hook front end of another version"
assert_ne 0 "$RC" "doctor exits non-zero"

section "doctor through git judges the caller's PATH"
# `git guard doctor`: git runs git-guard with its exec path put first on PATH.
mkdir -p "$TEST_ROOT/guard-bin"
ln -sf "$GUARD" "$TEST_ROOT/guard-bin/git-guard"
PATH=$TEST_ROOT/shim:$TEST_ROOT/guard-bin:$BASE_PATH
hash -r
run_cmd git guard doctor
assert_eq 0 "$RC" "'git guard doctor' exits 0 with the shim first on PATH: $(printf '%s\n' "$OUT" | grep FAIL)"
assert_contains "$OUT" "git on PATH is the shim" "doctor through git sees the shim first"
run_cmd git guard install --shim-dir "$TEST_ROOT/shim"
assert_not_contains "$OUT" "put the shim first on PATH" \
    "install through git prints no PATH hint when the shim is first already"
assert_contains "$OUT" "first on PATH already" "and says the shim is first"
PATH=$TEST_ROOT/guard-bin:$BASE_PATH:$TEST_ROOT/shim
hash -r
run_cmd git guard doctor
assert_ne 0 "$RC" "'git guard doctor' fails when the shim is not first on PATH"
assert_contains "$OUT" "FAIL  shim_on_path" "and names the shim check"
assert_contains "$OUT" "export PATH=\"$TEST_ROOT/shim:\$PATH\"" "with the fix"
run_cmd git guard install --shim-dir "$TEST_ROOT/shim"
assert_contains "$OUT" "put the shim first on PATH" "install through git prints the PATH hint then"
run_cmd env GIT_GUARD_CALLER_PATH="$TEST_ROOT/shim:$BASE_PATH" git guard doctor
assert_eq 0 "$RC" "a caller PATH handed in GIT_GUARD_CALLER_PATH is the one judged"
shim_on "$TEST_ROOT/shim"

section "gc.worktreePruneExpire"
git_real config gc.worktreePruneExpire 3.days.ago
assert_eq "gc_prune " "$(doctor_failures)" "doctor names gc.worktreePruneExpire when it is not never"
run_cmd "$GUARD" doctor
assert_contains "$OUT" "git guard install" "and the fix"
git_real config gc.worktreePruneExpire never

section "the limits name each kind of caller the guard cannot see"
run_cmd "$GUARD" doctor
for caller in libgit2 JGit go-git isomorphic-git "rm -rf" "core.hooksPath" "absolute path"; do
    assert_contains "$OUT" "$caller" "doctor's limits name $caller"
done

section "doctor outside a repository"
run_cmd "$GUARD" -C "$TEST_ROOT" doctor
assert_ne 0 "$RC" "doctor outside a repository fails"
assert_contains "$ERR" "not in a git repository" "and says why"
shim_off
cd "$TEST_ROOT" || exit 1

section "refusals"
# SHA-256, and reftable on a git that has it, are guarded: tests/e2e/install_formats.sh.
if git_real init -q --ref-format=reftable "$TEST_ROOT/probe-reftable" 2>/dev/null; then
    echo "  skip reftable on a git without it: $(git_real --version) has reftable (install_formats.sh guards it)"
else
    new_repo "$TEST_ROOT/reftable"
    git_real -C "$TEST_ROOT/reftable" config core.repositoryformatversion 1
    git_real -C "$TEST_ROOT/reftable" config extensions.refStorage reftable
    run_cmd "$GUARD" -C "$TEST_ROOT/reftable" install --shim-dir "$TEST_ROOT/shim"
    assert_eq 1 "$RC" "install refuses a reftable repository this git cannot read"
    assert_contains "$ERR" "refstorage" "and says why, in git's words"
    assert_contains "$(cd "$TEST_ROOT/reftable" && doctor_failures)" repository \
        "doctor names a repository git itself cannot read"
fi

new_repo "$TEST_ROOT/old-git"
write_hook "$TEST_ROOT/old-git.sh" "#!/bin/sh
[ \"\$1\" = --version ] && { echo 'git version 2.37.1'; exit 0; }
exec $REAL_GIT \"\$@\""
run_cmd env GIT_GUARD_REAL_GIT="$TEST_ROOT/old-git.sh" "$GUARD" -C "$TEST_ROOT/old-git" install --shim-dir "$TEST_ROOT/shim"
assert_eq 1 "$RC" "install refuses git 2.37"
assert_contains "$ERR" "merge-tree --write-tree" "and says what is lost"
assert_eq "" "$(git_real -C "$TEST_ROOT/old-git" config guard.enabled)" "a refused install changes nothing"
run_cmd env GIT_GUARD_REAL_GIT="$TEST_ROOT/old-git.sh" "$GUARD" -C "$TEST_ROOT/old-git" install --force --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "install --force accepts git 2.37"
assert_contains "$OUT" "warning:" "and warns about what is lost"

new_repo "$TEST_ROOT/global"
git_real config --global core.hooksPath "$TEST_ROOT/global-hooks"
run_cmd "$GUARD" -C "$TEST_ROOT/global" install --shim-dir "$TEST_ROOT/shim"
assert_eq 1 "$RC" "install refuses a core.hooksPath from global config"
assert_contains "$ERR" "every repository" "and says why"
assert_no_file "$TEST_ROOT/global-hooks/reference-transaction" "nothing is written there"
run_cmd "$GUARD" -C "$TEST_ROOT/global" install --force --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "install --force writes into the global hooks directory"
assert_file_exists "$TEST_ROOT/global-hooks/reference-transaction" "the hook is there"
assert_not_contains "$(cd "$TEST_ROOT/global" && doctor_failures)" hooks_path \
    "doctor accepts a global core.hooksPath that holds git-guard's hook"
"$GUARD" -C "$TEST_ROOT/global" uninstall >/dev/null
assert_no_file "$TEST_ROOT/global-hooks" "uninstall removes the directory it created"
git_real config --global --unset core.hooksPath

new_repo "$TEST_ROOT/real-git"
mkdir -p "$TEST_ROOT/has-git"
cp "$REAL_GIT" "$TEST_ROOT/has-git/git"
run_cmd "$GUARD" -C "$TEST_ROOT/real-git" install --shim-dir "$TEST_ROOT/has-git"
assert_ne 0 "$RC" "install refuses a shim directory that holds a real git"
assert_contains "$ERR" "never replaces a real git" "and says why"
assert_same_file "$REAL_GIT" "$TEST_ROOT/has-git/git" "the real git there is untouched"

new_repo "$TEST_ROOT/chained"
layout_user_hook "$TEST_ROOT/chained"
write_hook "$TEST_ROOT/chained/.git/hooks/reference-transaction.guard-chained" '#!/bin/sh'
run_cmd "$GUARD" -C "$TEST_ROOT/chained" install --shim-dir "$TEST_ROOT/shim"
assert_ne 0 "$RC" "install refuses when the chained name is taken"
assert_contains "$(cat "$TEST_ROOT/chained/.git/hooks/reference-transaction")" "my own policy hook" \
    "the user's hook is left in place"

run_cmd "$GUARD" -C "$TEST_ROOT/real-git" uninstall
assert_ne 0 "$RC" "uninstall where nothing was installed fails"
assert_contains "$ERR" "not installed" "and says so"

finish
