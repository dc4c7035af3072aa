#!/usr/bin/env bash
# installer/install.sh from nothing: a clean clone of this checkout, a fresh build
# directory, a fresh HOME. It must leave a working guard: a forced worktree removal
# through the shim then saves. The prefix and shim directory are under the test's own
# directory (--prefix, --shim-dir) so the machine's /usr/local is left alone; the
# defaults (~/.local, /usr/local as root) differ only in those two paths. To stay well
# inside the suite's time limit, the test configures the fresh build directory itself
# with BUILD_TESTING=OFF (install.sh would build the unit tests too, which it does not
# need); install.sh then finds it configured and builds, installs and guards as usual.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/install_fixtures.bash"

section "install.sh on a clean clone"
git_real clone -q "$GUARD_SOURCE_DIR" "$TEST_ROOT/src"
repo=$TEST_ROOT/repo
new_repo "$repo"
git_real -C "$repo" worktree add -q "$TEST_ROOT/T" -b T
export GUARD_BUILD_DIR=$TEST_ROOT/build
cmake -S "$TEST_ROOT/src" -B "$GUARD_BUILD_DIR" -DBUILD_TESTING=OFF >/dev/null
prefix=$TEST_ROOT/prefix
run_cmd bash "$TEST_ROOT/src/installer/install.sh" --prefix "$prefix" --shim-dir "$TEST_ROOT/shim" "$repo"
assert_eq 0 "$RC" "install.sh succeeds"
[ "$RC" -eq 0 ] || printf '%s\n%s\n' "$OUT" "$ERR" | tail -30 | sed 's/^/       /'
for step in "1/5 packages" "2/5 build" "3/5 install" "4/5 guard" "5/5 check" "done:"; do
    assert_contains "$OUT" "install.sh: $step" "install.sh reports the step '$step'"
done
for file in bin/git-guard bin/git-guard-shim bin/git-guard-hook share/man/man1/git-guard.1 \
    share/bash-completion/completions/git-guard share/git-guard/hooks/reference-transaction \
    share/git-guard/hooks/post-checkout; do
    assert_file_exists "$prefix/$file" "cmake --install put $file in place"
done
assert_eq true "$(git_real -C "$repo" config guard.enabled)" "install.sh guarded the repository"
assert_contains "$(cat "$repo/.git/hooks/reference-transaction")" "$prefix/bin/git-guard-hook" \
    "the hook runs the installed front end"
assert_eq "$prefix/bin/git-guard-shim" "$(readlink "$TEST_ROOT/shim/git")" "the shim link points at the installed shim"

section "the guard works"
shim_on "$TEST_ROOT/shim"
PATH=$SHIM_DIR:$prefix/bin:$BASE_PATH
echo "unsaved work" >"$TEST_ROOT/T/notes.txt"
run_cmd git -C "$repo" worktree remove --force "$TEST_ROOT/T"
assert_eq 0 "$RC" "a forced worktree removal through the shim succeeds: $ERR"
assert_no_file "$TEST_ROOT/T" "the tree is removed"
ref=$(git_real -C "$repo" for-each-ref --format='%(refname)' 'refs/heads/stranded/T/')
assert_ne "" "$ref" "the removal saved the tree to stranded/T/..."
assert_eq "unsaved work" "$(git_real -C "$repo" show "$ref:notes.txt" 2>&1)" \
    "the untracked file was saved, not destroyed"
assert_eq "git-guard $(sed -n 's/^project(git-guard VERSION \([0-9.]*\).*/\1/p' "$GUARD_SOURCE_DIR/CMakeLists.txt")" \
    "$(git guard version)" "git guard version runs the installed git-guard"
run_cmd env MANPAGER=cat PAGER=cat git guard --help
assert_contains "$OUT" "--lock-worktrees" "git guard --help shows the man page"
shim_off

section "a second run, standing in the repository"
run_cmd bash -c "cd '$repo' && bash '$TEST_ROOT/src/installer/install.sh' --prefix '$prefix' --shim-dir '$TEST_ROOT/shim'"
assert_eq 0 "$RC" "install.sh run again succeeds"
assert_contains "$OUT" "nothing changed" "it guards the repository it stands in, and changes nothing"

finish
