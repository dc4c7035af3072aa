#!/usr/bin/env bash
# guard.backupRemote (issue 9 item 6, DESIGN §13): each new save is pushed there with no
# hook running; an unreachable remote never blocks or fails the operation; list, show and
# status say what is not backed up; `git guard push` (and the next save) retries.
source "$(dirname "$0")/lib.sh"
PATH=$GUARD_BIN_DIR:$PATH

# backed_up_ref REF: REF's id in the backup once it arrives there (the push runs in the
# background: wait up to 30 s), or nothing.
backed_up_ref() {
    local i
    for i in $(seq 1 300); do
        if git_real -C "$TEST_ROOT/backup.git" rev-parse -q --verify "$1" 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
}

# quiet_journal: waits until no background push of ours is still running for this repository.
quiet_journal() {
    local i
    for i in $(seq 1 300); do
        pgrep -f "git-guard -C $R/.git push" >/dev/null || return 0
        sleep 0.1
    done
}

assert_jq() { printf '%s\n' "$1" | jq -es "$2" >/dev/null 2>&1 && pass "$3" || { fail "$3"; printf '       in: %s\n' "$1" | head -20; }; }

make_clone r
R=$TEST_ROOT/r
git_real -C "$R" config guard.enabled true
install_hook "$R"
git_real init -q --bare "$TEST_ROOT/backup.git"
git_real -C "$R" remote add backup "$TEST_ROOT/backup.git"
git_real -C "$R" config guard.backupRemote backup
# A pre-push hook that refuses everything, and a hook in the backup that would too: the
# backup push runs no hook here.
printf '#!/bin/sh\necho "pre-push says no" >&2\nexit 1\n' >"$R/.git/hooks/pre-push"
chmod +x "$R/.git/hooks/pre-push"

section "a save is pushed to the backup remote: the ref and its objects arrive"
git_real -C "$R" worktree add -q -b one "$TEST_ROOT/one"
printf 'one\n' >"$TEST_ROOT/one/one.txt"
run_cmd git guard -C "$R" remove "$TEST_ROOT/one"
assert_eq 0 "$RC" "remove with a backup remote exits 0 ($ERR)"
REF1=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/one/)
C1=$(git_real -C "$R" rev-parse "$REF1")
assert_eq "$C1" "$(backed_up_ref "$REF1")" "the save's ref did not arrive in the backup"
quiet_journal
assert_eq "one" "$(git_real -C "$TEST_ROOT/backup.git" show "$REF1:one.txt" 2>&1)" "the save's content did not arrive in the backup"
assert_eq "" "$(git_real -C "$R" for-each-ref refs/remotes/backup/)" "the backup push wrote remote-tracking refs here"
run_cmd git guard -C "$R" list --json
assert_jq "$OUT" "map(select(.ref == \"$REF1\")) | .[0].backed_up == true" "list does not say the save is backed up"

section "a slow remote never holds the operation: the push runs in the background"
git_real -C "$R" remote set-url backup "ext::sleep 20"
git_real -C "$R" config protocol.ext.allow always
git_real -C "$R" config guard.backupTimeout 300
git_real -C "$R" worktree add -q -b slow "$TEST_ROOT/slow"
printf 'slow\n' >"$TEST_ROOT/slow/slow.txt"
run_cmd timeout 15 git guard -C "$R" remove "$TEST_ROOT/slow"
assert_eq 0 "$RC" "the removal waited for a hanging backup push (exit 124 is the test's own 15 s limit; $ERR)"
# The hanging push ends by itself within 20 s; it pushes nowhere the checks below look.
git_real -C "$R" config --unset protocol.ext.allow
git_real -C "$R" config --unset guard.backupTimeout
git_real -C "$R" remote set-url backup "$TEST_ROOT/backup.git"
git guard -C "$R" push >/dev/null 2>&1

section "an unreachable remote: the removal still saves, proceeds and exits 0"
git_real -C "$R" remote set-url backup "$TEST_ROOT/no-such-backup.git"
git_real -C "$R" worktree add -q -b two "$TEST_ROOT/two"
printf 'two\n' >"$TEST_ROOT/two/two.txt"
run_cmd git guard -C "$R" remove "$TEST_ROOT/two"
assert_eq 0 "$RC" "a failed backup push made the removal fail ($ERR)"
assert_no_file "$TEST_ROOT/two" "a failed backup push kept the tree"
REF2=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/two/)
assert_ne "" "$REF2" "the save was not made"
quiet_journal
run_cmd git guard -C "$R" list --json
assert_jq "$OUT" "map(select(.ref == \"$REF2\")) | .[0].backed_up == false" "list does not mark the save as not backed up"
run_cmd git guard -C "$R" list
assert_contains "$OUT" "[not backed up]" "list (text) does not mark the save as not backed up"
run_cmd git guard -C "$R" show "$REF2"
assert_contains "$OUT" "backed up: no" "show does not say the save is not backed up"
run_cmd git guard -C "$R" status
assert_contains "$OUT" "not backed up" "status does not say a save is not backed up"
run_cmd git -C "$TEST_ROOT" guard status "$R"
assert_contains "$OUT" "not backed up" "status of a repository named by path (run from outside it) does not say a save is not backed up"
run_cmd git guard -C "$R" push
assert_eq 1 "$RC" "git guard push to an unreachable remote does not exit 1"

section "git guard push backs it up later"
git_real -C "$R" remote set-url backup "$TEST_ROOT/backup.git"
run_cmd git guard -C "$R" push
assert_eq 0 "$RC" "git guard push exits 0 ($ERR)"
assert_contains "$OUT" "backed up $REF2" "git guard push does not name what it backed up"
assert_eq "$(git_real -C "$R" rev-parse "$REF2")" "$(git_real -C "$TEST_ROOT/backup.git" rev-parse -q --verify "$REF2")" \
    "the retried save did not arrive in the backup"
run_cmd git guard -C "$R" list --json
assert_jq "$OUT" 'all(.[]; .backed_up == true)' "list still marks a pushed save as not backed up"
run_cmd git guard -C "$R" push
assert_contains "$OUT" "every save is backed up" "a second push does not say everything is backed up"

section "the next save retries what an earlier one could not push"
git_real -C "$R" remote set-url backup "$TEST_ROOT/no-such-backup.git"
git_real -C "$R" worktree add -q -b three "$TEST_ROOT/three"
printf 'three\n' >"$TEST_ROOT/three/three.txt"
git guard -C "$R" remove "$TEST_ROOT/three" >/dev/null 2>&1
quiet_journal
REF3=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/three/)
git_real -C "$R" remote set-url backup "$TEST_ROOT/backup.git"
git_real -C "$R" switch -q -c four
commit_file "$R" four.txt "four"
git_real -C "$R" switch -q main
git_real -C "$R" branch -q -D four 2>/dev/null
assert_eq "$(git_real -C "$R" rev-parse "$REF3")" "$(backed_up_ref "$REF3")" \
    "the next save (a branch deletion, through the hook) did not retry the earlier push"
quiet_journal
run_cmd git guard -C "$R" log --json
assert_jq "$OUT" 'map(select(.kind == "push" and .ok == false)) | length >= 2' "failed pushes are not journaled"

section "one branch -D of five branches: every save arrives in the backup"
for b in b1 b2 b3 b4 b5; do
    BLOB=$(printf '%s\n' "$b" | git_real -C "$R" hash-object -w --stdin)
    TREE=$(printf '100644 blob %s\t%s.txt\n' "$BLOB" "$b" | git_real -C "$R" mktree)
    git_real -C "$R" update-ref "refs/heads/$b" "$(git_real -C "$R" commit-tree -p main -m "$b" "$TREE")"
done
run_cmd git_real -C "$R" branch -D b1 b2 b3 b4 b5
assert_eq 0 "$RC" "branch -D of five branches exits 0 ($ERR)"
MISSING=0
for ref in $(git_real -C "$R" for-each-ref --format='%(refname)' 'refs/heads/stranded/b[1-5]/*'); do
    [ "$(git_real -C "$R" rev-parse "$ref")" = "$(backed_up_ref "$ref")" ] || MISSING=$((MISSING + 1))
done
assert_eq 5 "$(git_real -C "$R" for-each-ref 'refs/heads/stranded/b[1-5]/*' | wc -l)" "the five branches were not saved"
assert_eq 0 "$MISSING" "saves of one transaction did not all reach the backup"

finish
