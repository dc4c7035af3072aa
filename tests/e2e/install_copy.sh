#!/usr/bin/env bash
# Install, uninstall and doctor act on the repository they run in (issue 19, DESIGN §13).
# Backups, sandboxes and CI caches copy repositories with `cp -a`, manifest and all; the
# manifest names the original's files. Uninstall in the copy restores the copy and never
# touches the original's hook, sidecar or config; doctor in the copy says it is one; install
# in a copy records the copy. The original stays guarded: its `branch -D` still saves.
source "$(dirname "$0")/lib.sh"
GUARD=$GUARD_BIN_DIR/git-guard

# fingerprint REPO: the original's hooks, config and manifest, byte for byte.
fingerprint() {
    (cd "$1/.git" && find hooks guard/manifest config -type f -print0 | LC_ALL=C sort -z | xargs -0 sha1sum &&
        find hooks -printf '%p %y %m %l\n' | LC_ALL=C sort)
}

A=$TEST_ROOT/a
new_repo "$A"
run_cmd "$GUARD" -C "$A" install --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "install in the original succeeds ($ERR)"
fingerprint "$A" >"$TEST_ROOT/a.before"

section "uninstall in a copy leaves the original alone"
cp -a "$A" "$TEST_ROOT/b"
B=$TEST_ROOT/b
run_cmd "$GUARD" -C "$B" doctor
assert_contains "$OUT" "was written for $A/.git" "doctor in the copy does not say its manifest is the original's"
run_cmd "$GUARD" -C "$B" uninstall
assert_eq 0 "$RC" "uninstall in the copy succeeds ($ERR)"
assert_contains "$OUT" "copied from $A/.git" "uninstall in the copy does not say the manifest came from the original"
fingerprint "$A" >"$TEST_ROOT/a.after"
assert_same_file "$TEST_ROOT/a.before" "$TEST_ROOT/a.after" \
    "uninstall in the copy changed the original's hook, sidecar, config or manifest: the original is unguarded"
assert_eq true "$(git_real -C "$A" config guard.enabled)" "uninstall in the copy unset the original's guard.enabled"
assert_eq "" "$(git_real -C "$B" config guard.enabled)" "uninstall in the copy left the copy's guard.enabled set"
assert_no_file "$B/.git/hooks/reference-transaction" "uninstall in the copy left the copy's hook"
assert_no_file "$B/.git/guard/manifest" "uninstall in the copy left the copy's manifest"

section "the original still saves what branch -D deletes"
git_real -C "$A" switch -q -c topic
commit_file "$A" t.txt "unpublished"
TIP=$(git_real -C "$A" rev-parse HEAD)
git_real -C "$A" switch -q main
run_cmd git_real -C "$A" branch -D topic
assert_eq 0 "$RC" "branch -D in the original works ($ERR)"
SAVED=$(git_real -C "$A" for-each-ref --format='%(objectname)' refs/heads/stranded/topic/)
assert_eq "$TIP" "$SAVED" "after uninstall in the copy, branch -D in the original lost topic's commit unsaved"

section "install in a copy records the copy"
fingerprint "$A" >"$TEST_ROOT/a.before2"
cp -a "$A" "$TEST_ROOT/c"
C=$TEST_ROOT/c
run_cmd "$GUARD" -C "$C" install --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "install in a copy succeeds ($ERR)"
assert_contains "$(cat "$C/.git/guard/manifest")" "$(printf 'repo\t%s' "$C/.git")" "the copy's manifest does not name the copy"
assert_not_contains "$(cat "$C/.git/guard/manifest")" "$A/" "the copy's manifest still names the original's files"
run_cmd "$GUARD" -C "$C" doctor
assert_contains "$OUT" "records this repository's install" "doctor in the re-installed copy still calls it a copy"
git_real -C "$C" switch -q -c ctopic
commit_file "$C" c.txt "copy's work"
git_real -C "$C" switch -q main
git_real -C "$C" branch -q -D ctopic
assert_ne "" "$(git_real -C "$C" for-each-ref refs/heads/stranded/ctopic/)" "the re-installed copy does not save a deleted branch"
run_cmd "$GUARD" -C "$C" uninstall
assert_eq 0 "$RC" "uninstall in the re-installed copy succeeds ($ERR)"
fingerprint "$A" >"$TEST_ROOT/a.after2"
assert_same_file "$TEST_ROOT/a.before2" "$TEST_ROOT/a.after2" "install or uninstall in the copy changed the original"
assert_file_exists "$TEST_ROOT/shim/git" "uninstall in a copy removed the shim the original still uses"

finish
