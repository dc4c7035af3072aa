#!/usr/bin/env bash
# installer/install.sh from nothing: a clean clone of this checkout, a fresh build
# directory, a fresh HOME. It must leave a working guard: a forced worktree removal
# through the shim then saves. The prefix and shim directory are under the test's own
# directory (--prefix, --shim-dir) so the machine's /usr/local is left alone; the
# defaults (~/.local, /usr/local as root) differ only in those two paths.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/install_fixtures.bash"

section "install.sh on a clean clone"
# The clone and its build directory lie below the suite's own build directory, as
# <clone>/build lies beside <checkout>/build: with the ccache tests/run.sh sets up
# (CCACHE_BASEDIR is the checkout), the installer's compilations read like the suite
# build's and come from its cache. The installer still configures, compiles and links
# from the clean clone; without ccache it compiles everything.
clone=$(dirname "$GUARD_BIN_DIR")/install-sh
rm -rf "$clone"
git_real clone -q "$GUARD_SOURCE_DIR" "$clone"
repo=$TEST_ROOT/repo
new_repo "$repo"
git_real -C "$repo" worktree add -q "$TEST_ROOT/T" -b T
export GUARD_BUILD_DIR=$clone/build
prefix=$TEST_ROOT/prefix
run_cmd bash "$clone/installer/install.sh" --prefix "$prefix" --shim-dir "$TEST_ROOT/shim" "$repo"
assert_eq 0 "$RC" "install.sh succeeds"
[ "$RC" -eq 0 ] || printf '%s\n%s\n' "$OUT" "$ERR" | tail -30 | sed 's/^/       /'
for step in "1/5 packages" "2/5 build" "3/5 install" "4/5 guard" "5/5 check" "done:"; do
    assert_contains "$OUT" "install.sh: $step" "install.sh reports the step '$step'"
done
for file in bin/git-guard libexec/git-guard/git-guard-shim libexec/git-guard/git-guard-hook \
    share/man/man1/git-guard.1 share/bash-completion/completions/git-guard \
    share/git-guard/hooks/reference-transaction share/git-guard/hooks/post-checkout; do
    assert_file_exists "$prefix/$file" "cmake --install put $file in place"
done
for file in bin/git-guard-shim bin/git-guard-hook; do
    assert_no_file "$prefix/$file" "no $file: git would list it as a command"
done
assert_eq "Release" "$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$GUARD_BUILD_DIR/CMakeCache.txt")" \
    "install.sh builds a release configuration"
assert_eq "OFF" "$(sed -n 's/^BUILD_TESTING:BOOL=//p' "$GUARD_BUILD_DIR/CMakeCache.txt")" \
    "install.sh builds without the tests"
assert_no_file "$GUARD_BUILD_DIR/bin/guard_unit_tests" "no unit tests are built"
assert_eq 0 "$(readelf -S "$prefix/bin/git-guard" | grep -c '\.symtab\|\.debug_')" \
    "the installed git-guard is stripped"
assert_eq true "$(git_real -C "$repo" config guard.enabled)" "install.sh guarded the repository"
hook=$repo/.git/hooks/reference-transaction
assert_same_file "$prefix/libexec/git-guard/git-guard-hook" "$hook" \
    "the hook is a copy of the installed front end, which git runs directly (contract C5)"
assert_eq "$prefix/bin/git-guard" "$(cat "$repo/.git/hooks/git-guard.path")" \
    "the hook's sidecar names the installed git-guard"
assert_eq "$prefix/libexec/git-guard/git-guard-shim" "$(readlink "$TEST_ROOT/shim/git")" \
    "the shim link points at the installed shim"

section "git lists guard, and no other git-guard entry"
run_cmd env PATH="$prefix/bin:$BASE_PATH" git help -a
assert_eq "guard" "$(printf '%s\n' "$OUT" | grep -o '^ *guard[^ ]*' | tr -d ' ' | tr '\n' ' ' | sed 's/ $//')" \
    "git help -a lists guard and nothing else of git-guard"
assert_eq "guard" "$(env PATH="$prefix/bin:$BASE_PATH" git --list-cmds=others | grep guard | tr '\n' ' ' | sed 's/ $//')" \
    "completion's command list (git --list-cmds=others) holds guard only"
run_cmd env PATH="$prefix/bin:$BASE_PATH" git guard-shim
assert_not_contains "$ERR" "cannot handle" "git guard-shim is no broken builtin"

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
git_real -C "$repo" branch doomed
commit_file "$repo" doomed.txt "x" >/dev/null
git_real -C "$repo" checkout -q -b doomed-work
commit_file "$repo" doomed.txt "unpublished work" >/dev/null
git_real -C "$repo" checkout -q main
tip=$(git_real -C "$repo" rev-parse doomed-work)
git -C "$repo" branch -D doomed-work >/dev/null 2>&1
assert_ne "" "$(git_real -C "$repo" for-each-ref --points-at "$tip" 'refs/heads/stranded/')" \
    "the installed hook saved the deleted branch's unpublished commit"
shim_off

section "a second run, standing in the repository"
run_cmd bash -c "cd '$repo' && bash '$clone/installer/install.sh' --prefix '$prefix' --shim-dir '$TEST_ROOT/shim'"
assert_eq 0 "$RC" "install.sh run again succeeds"
assert_contains "$OUT" "nothing changed" "it guards the repository it stands in, and changes nothing"

section "a run outside any repository still tells about the shim and PATH"
mkdir -p "$TEST_ROOT/nowhere"
run_cmd bash -c "cd '$TEST_ROOT/nowhere' && GIT_CEILING_DIRECTORIES='$TEST_ROOT' bash '$clone/installer/install.sh' --prefix '$prefix' --shim-dir '$TEST_ROOT/shim'"
assert_eq 0 "$RC" "install.sh outside a repository succeeds"
assert_contains "$OUT" "none is guarded yet" "it says no repository is guarded"
assert_contains "$OUT" "export PATH=\"$TEST_ROOT/shim:\$PATH\"" "it prints the line that puts the shim first on PATH"
assert_contains "$OUT" "hash -r" "it mentions hash -r for open shells"

rm -rf "$clone"
finish
