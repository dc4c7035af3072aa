#!/usr/bin/env bash
# git guard doctor checks the shim's exec-path mirror (DESIGN §6, git's own children):
# after a git upgrade, or when an entry goes missing, a `git` started by git itself would
# bypass the guard. A private copy of the binaries keeps the build's own mirror intact.
source "$(dirname "$0")/lib.sh"

bin=$TEST_ROOT/bin
mkdir -p "$bin"
cp "$GUARD_BIN_DIR/git-guard" "$GUARD_BIN_DIR/git-guard-shim" "$GUARD_BIN_DIR/git-guard-hook" "$bin/"
repo=$TEST_ROOT/repo
new_repo "$repo"
commit_file "$repo" a.txt a
"$GUARD_BIN_DIR/git-guard" -C "$repo" install --shim-dir "$TEST_ROOT/shim" >/dev/null
exec_check() { "$bin/git-guard" -C "$repo" doctor --json 2>/dev/null | grep '"check":"exec_path"'; }

section "an intact mirror passes"
assert_contains "$(exec_check)" '"ok":true' "doctor passes the exec-path mirror after install"

section "a mirror that lost an entry of git's exec path fails, with the fix"
mirror=$(GIT_EXEC_PATH= "$bin/git-guard-shim" --guard-exec-path | head -1)
assert_file_exists "$mirror/git-upload-pack" "the mirror holds git-upload-pack"
rm "$mirror/git-upload-pack"
out=$(exec_check)
assert_contains "$out" '"ok":false' "doctor fails when the mirror lacks one of git's own commands"
assert_contains "$out" 'git-upload-pack' "doctor names the missing entry"
assert_contains "$out" 'rebuilds it' "doctor says how to fix it"

section "a mirror whose git is not the shim fails"
rm -rf "$mirror"
"$bin/git-guard-shim" --guard-exec-path >/dev/null 2>&1
mirror=$(GIT_EXEC_PATH= "$bin/git-guard-shim" --guard-exec-path | head -1)
ln -sf "$REAL_GIT" "$mirror/git"
assert_contains "$(exec_check)" '"ok":false' "doctor fails when the mirror's git bypasses the shim"

finish
