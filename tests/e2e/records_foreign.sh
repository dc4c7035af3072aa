#!/usr/bin/env bash
# Saves that arrive from elsewhere (issue 19, DESIGN §13). A save is made here when this
# repository's journal recorded making it; any other (fetched from a backup remote, pushed
# in, planted) is marked [from elsewhere] by `git guard list`, and `show` says where it
# claims to come from. The round trip: saves pushed to guard.backupRemote from one clone are
# fetched into a fresh clone, and restore there puts them back exactly, at a path named.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/restore_fixture.bash"
PATH=$GUARD_BIN_DIR:$PATH

make_clone r
R=$TEST_ROOT/r
base_files "$R"
git_real -C "$R" push -q origin main
git_real -C "$R" config guard.enabled true
install_hook "$R"
git_real init -q --bare "$TEST_ROOT/backup.git"
git_real -C "$R" remote add backup "$TEST_ROOT/backup.git"
git_real -C "$R" config guard.backupRemote backup

section "saves made here: a removed tree and a deleted branch, backed up"
git_real -C "$R" worktree add -q -b feature "$TEST_ROOT/wt"
work_tree_with_everything "$TEST_ROOT/wt"
snapshot_tree "$TEST_ROOT/wt" "$TEST_ROOT/before"
run_cmd git guard -C "$R" remove "$TEST_ROOT/wt"
assert_eq 0 "$RC" "git guard remove saves and removes the tree ($ERR)"
TREF=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/wt/)
git_real -C "$R" switch -q -c topic
commit_file "$R" topic.txt "unpublished topic"
TIP=$(git_real -C "$R" rev-parse HEAD)
git_real -C "$R" switch -q main
git_real -C "$R" branch -q -D feature topic
BREF=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/topic/)
assert_ne "" "$TREF" "the removed tree was not saved: the test cannot go on"
assert_ne "" "$BREF" "the deleted branch was not saved: the test cannot go on"
# The saves start their own pushes in the background: wait for them, then push the rest.
for _ in $(seq 1 300); do
    pgrep -f "git-guard -C $R/.git push" >/dev/null || break
    sleep 0.1
done
run_cmd git guard -C "$R" push
assert_eq 0 "$RC" "git guard push backs the saves up ($ERR)"
run_cmd git guard -C "$R" list
assert_not_contains "$OUT" "[from elsewhere]" "a save made in this repository is marked as from elsewhere"
run_cmd git guard -C "$R" show "$TREF"
assert_contains "$OUT" "made:      here" "show does not say a save made here was made here"

section "in a fresh clone, the fetched saves are marked as from elsewhere"
git_real clone -q "$TEST_ROOT/r.origin" "$TEST_ROOT/fresh"
F=$TEST_ROOT/fresh
git_real -C "$F" config guard.enabled true
git_real -C "$F" fetch -q "$TEST_ROOT/backup.git" 'refs/heads/stranded/*:refs/heads/stranded/*'
run_cmd git guard -C "$F" list
assert_eq 2 "$(printf '%s\n' "$OUT" | grep -c '\[from elsewhere\]')" "git guard list does not mark the two fetched saves as from elsewhere"
run_cmd git guard -C "$F" list --json
assert_eq "true true" "$(printf '%s\n' "$OUT" | jq -r '.foreign' | tr '\n' ' ' | sed 's/ $//')" "list --json does not say the saves are foreign"
run_cmd git guard -C "$F" show "$TREF"
assert_contains "$OUT" "made:      elsewhere" "show does not say the save was made elsewhere"
assert_contains "$OUT" "claims:    made from $TEST_ROOT/wt" "show does not say where the save claims to come from"
assert_contains "$OUT" "git-guard <git-guard@localhost>" "show does not say who claims to have made the save"

section "restore in the fresh clone puts them back exactly"
run_cmd git guard -C "$F" restore "$TREF"
assert_eq 1 "$RC" "a save from elsewhere is restored where it claims to come from, unasked"
assert_no_file "$TEST_ROOT/wt" "the refused restore wrote at the save's claimed path"
run_cmd git guard -C "$F" restore "$TREF" "$TEST_ROOT/wt-back"
assert_eq 0 "$RC" "the backed-up tree save restores in the fresh clone ($ERR)"
git_real -C "$F" branch -q feature "$(git_real -C "$TEST_ROOT/wt-back" rev-parse HEAD)"
git_real -C "$TEST_ROOT/wt-back" symbolic-ref HEAD refs/heads/feature
snapshot_tree "$TEST_ROOT/wt-back" "$TEST_ROOT/after"
assert_same_file "$TEST_ROOT/before" "$TEST_ROOT/after" \
    "the tree restored from the backup differs from the one removed (staged, unstaged, modes, links or untracked files lost)"
run_cmd git guard -C "$F" restore "$BREF"
assert_eq 0 "$RC" "the backed-up branch save restores in the fresh clone ($ERR)"
assert_eq "$TIP" "$(git_real -C "$F" rev-parse -q --verify refs/heads/topic)" "the deleted branch did not come back at its tip from the backup"

finish
