#!/usr/bin/env bash
# The records (issue 9 items 2-5, 7, 9; DESIGN §10, §13), made by the real product: the
# journal and `git guard log`, `list` with source and reason for every save (branch
# deletions too), `show`, guard.onSave (bounded), `drop` and `drop --published`, and the
# one JSON vocabulary.
source "$(dirname "$0")/lib.sh"
PATH=$GUARD_BIN_DIR:$PATH

assert_jq() { printf '%s\n' "$1" | jq -es "$2" >/dev/null 2>&1 && pass "$3" || { fail "$3"; printf '       in: %s\n' "$1" | head -20; }; }

make_clone r
R=$TEST_ROOT/r
git_real -C "$R" config guard.enabled true
install_hook "$R"

section "a save, a refusal, a discard and a drop are journaled, in order"
git_real -C "$R" worktree add -q -b one "$TEST_ROOT/one"
printf 'one\n' >"$TEST_ROOT/one/one.txt"
run_cmd git guard -C "$R" save --json "$TEST_ROOT/one"
assert_eq 0 "$RC" "save exits 0 ($ERR)"
assert_jq "$OUT" '.[0] | (.ref | startswith("refs/heads/stranded/one/")) and (has("stranded") | not)' \
    "save --json names the save ref 'ref' (one vocabulary)"
SAVE1=$(printf '%s' "$OUT" | jq -r .ref)
git_real -C "$R" worktree add -q --detach "$TEST_ROOT/two"
printf 'two\n' >"$TEST_ROOT/two/two.txt"
printf 'in the way\n' >"$R/.git/refs/heads/stranded-block"
mv "$R/.git/refs/heads/stranded" "$TEST_ROOT/stranded.aside"
printf 'a file where the stranded directory goes\n' >"$R/.git/refs/heads/stranded"
run_cmd git guard -C "$R" save "$TEST_ROOT/two"
assert_eq 1 "$RC" "a save that cannot write its ref is refused"
rm -f "$R/.git/refs/heads/stranded" "$R/.git/refs/heads/stranded-block"
mv "$TEST_ROOT/stranded.aside" "$R/.git/refs/heads/stranded"
run_cmd git guard -C "$R" discard "$TEST_ROOT/two"
assert_eq 0 "$RC" "discard exits 0 ($ERR)"
git_real -C "$R" worktree add -q -b three "$TEST_ROOT/three"
printf 'three\n' >"$TEST_ROOT/three/three.txt"
run_cmd git guard -C "$R" save --json "$TEST_ROOT/three"
SAVE3=$(printf '%s' "$OUT" | jq -r .ref)
run_cmd git guard -C "$R" drop "$SAVE3"
assert_eq 0 "$RC" "drop of a save with unique work exits 0, although the hook protects saves ($ERR)"
assert_no_ref "$R" "$SAVE3" "the dropped save is still there"
run_cmd git guard -C "$R" log --json
LOG=$OUT
assert_jq "$LOG" '[.[] | .kind] == ["save", "refusal", "discard", "save", "drop"]' \
    "the journal does not hold save, refusal, discard, save, drop in order"
assert_jq "$LOG" 'all(.[]; (.path != null or .branch != null) and (.reason | length > 0) and (.time | test("^[0-9-]+T[0-9:.]+Z$")))' \
    "a journal record lacks its source, reason or time"
assert_jq "$LOG" ".[0].ref == \"$SAVE1\" and .[0].path == \"$TEST_ROOT/one\" and .[0].branch == \"one\"" \
    "the save record does not name its ref, absolute path and branch"
assert_jq "$LOG" '.[1].path | endswith("/two")' "the refusal record does not name the tree"
assert_jq "$LOG" 'all(.[]; all(.[]; . != ""))' "a journal record has \"\" where null belongs"
run_cmd git guard -C "$R" log
assert_contains "$OUT" "refusal" "git guard log (text) lacks the refusal"

section "list names the source and reason of every save, branch deletions included"
git_real -C "$R" switch -q -c topic
commit_file "$R" topic.txt "topic"
git_real -C "$R" switch -q main
run_cmd git_real -C "$R" branch -D topic
assert_eq 0 "$RC" "branch -D exits 0 ($ERR)"
run_cmd git guard -C "$R" list --json
assert_jq "$OUT" 'map(select(.branch == "topic")) | length == 1 and .[0].reason == "branch delete" and .[0].path == null and .[0].kind == "commits"' \
    "the branch deletion's save shows no branch or reason in list"
assert_jq "$OUT" 'all(.[]; (.path != null or .branch != null) and (.reason | length > 0))' \
    "a save in list has an empty source or reason"
assert_jq "$OUT" 'all(.[]; .backed_up == null)' "backed_up is not null without guard.backupRemote"
run_cmd git guard -C "$R" list
assert_contains "$OUT" "branch topic  branch delete" "list (text) does not name the branch and the reason"
assert_not_contains "$OUT" "()" "list (text) still prints an empty source"
run_cmd git guard -C "$R" list --source topic --json
assert_jq "$OUT" 'length == 1 and .[0].branch == "topic"' "--source does not filter"
run_cmd git guard -C "$R" list --since "2099-01-01" --json
assert_eq "" "$OUT" "--since a future date still lists saves"

section "an old save without a record: source from its ref name, reason never empty"
OLDTIP=$(git_real -C "$R" rev-parse main)
git_real -C "$R" update-ref refs/heads/stranded/legacy/20230101T000000.000Z "$OLDTIP"
run_cmd git guard -C "$R" list --json
assert_jq "$OUT" 'map(select(.ref | contains("legacy"))) | .[0] | .branch == "legacy" and (.reason | length > 0) and .time == "2023-01-01T00:00:00.000Z"' \
    "an unrecorded save gets no source, reason or time from its ref name"

section "in-place saves (refs/stranded/) are listed with --all"
git_real -C "$R" update-ref refs/stranded/r/20240101T000000.000Z "$OLDTIP"
run_cmd git guard -C "$R" list --json
assert_jq "$OUT" 'all(.[]; .in_place == false)' "list without --all shows in-place saves"
run_cmd git guard -C "$R" list
assert_contains "$OUT" "1 in-place save(s) not shown" "list does not say in-place saves are hidden"
run_cmd git guard -C "$R" list --all --json
assert_jq "$OUT" 'map(select(.in_place)) | length == 1' "list --all does not show the in-place save"

section "an in-place save (reset --hard through the shim) is journaled with its absolute path"
printf 'edit before reset\n' >"$R/a.txt"
shim_on
run_cmd git -C "$R" reset -q --hard
shim_off
PATH=$GUARD_BIN_DIR:$PATH
assert_eq 0 "$RC" "reset --hard through the shim exits 0 ($ERR)"
run_cmd git guard -C "$R" log --json
assert_jq "$OUT" "map(select(.kind == \"save\" and .reason == \"reset --hard\")) | length == 1 and .[0].path == \"$R\" and (.[0].ref | startswith(\"refs/stranded/\"))" \
    "the in-place save is not journaled with its reason and absolute path"
run_cmd git guard -C "$R" list --all --json
assert_jq "$OUT" "map(select(.in_place and .reason == \"reset --hard\")) | length == 1" "list --all does not show the in-place save"

section "show: what a save holds, from where, when and why"
run_cmd git guard -C "$R" show "$SAVE1"
assert_eq 0 "$RC" "show exits 0 ($ERR)"
assert_contains "$OUT" "untracked 1: one.txt" "show does not list the untracked file"
assert_contains "$OUT" "$TEST_ROOT/one (one)" "show does not say where the save came from"
run_cmd git guard -C "$R" show --json "$SAVE1"
assert_jq "$OUT" '.[0] | .ref and .commit and .head and (.changes | map(.path) == ["one.txt"]) and .backed_up == null' \
    "show --json lacks ref, commit, head or changes"

TOPIC=$(git guard -C "$R" list --source topic --json | jq -r .ref)
run_cmd git guard -C "$R" show --json "$TOPIC"
assert_jq "$OUT" '.[0] | .kind == "commits" and (.commits | length == 1) and .branch == "topic" and .reason == "branch delete"' \
    "show of a deleted branch's save does not list its one unique commit, branch and reason"

section "version --json"
run_cmd git guard version --json
assert_jq "$OUT" '.[0].version | length > 0' "version --json prints no version"

section "guard.onSave gets the save's record on stdin"
git_real -C "$R" config guard.onSave "cat >>'$TEST_ROOT/onsave.jsonl'"
git_real -C "$R" worktree add -q -b four "$TEST_ROOT/four"
printf 'four\n' >"$TEST_ROOT/four/four.txt"
run_cmd git guard -C "$R" remove "$TEST_ROOT/four"
assert_eq 0 "$RC" "remove with guard.onSave exits 0 ($ERR)"
assert_jq "$(cat "$TEST_ROOT/onsave.jsonl" 2>/dev/null)" ".[0].kind == \"save\" and .[0].path == \"$TEST_ROOT/four\" and (.[0].ref | startswith(\"refs/heads/stranded/four/\"))" \
    "guard.onSave did not receive the save's record"

section "a hanging guard.onSave does not hold the removal past guard.onSaveTimeout"
git_real -C "$R" config guard.onSave "echo \$\$ >'$TEST_ROOT/onsave.pid'; exec sleep 300"
git_real -C "$R" config guard.onSaveTimeout 1
git_real -C "$R" worktree add -q -b five "$TEST_ROOT/five"
printf 'five\n' >"$TEST_ROOT/five/five.txt"
run_cmd timeout 60 git guard -C "$R" remove "$TEST_ROOT/five"
assert_eq 0 "$RC" "the removal with a hanging onSave did not finish by itself (exit 124 is the test's own 60 s limit)"
assert_no_file "$TEST_ROOT/five" "the tree was not removed"
run_cmd git guard -C "$R" log --json
assert_jq "$OUT" 'map(select(.kind == "notify")) | length == 1 and .[0].ok == false and (.[0].detail | contains("guard.onSaveTimeout"))' \
    "the onSave timeout is not journaled as a failed notification"
if kill -0 "$(cat "$TEST_ROOT/onsave.pid")" 2>/dev/null; then
    fail "the hanging onSave command was left running"
    kill "$(cat "$TEST_ROOT/onsave.pid")"
else
    pass "the hanging onSave command was ended at its bound"
fi
git_real -C "$R" config guard.onSave "exit 3"
git_real -C "$R" worktree add -q -b six "$TEST_ROOT/six"
printf 'six\n' >"$TEST_ROOT/six/six.txt"
run_cmd git guard -C "$R" remove "$TEST_ROOT/six"
assert_eq 0 "$RC" "a failing onSave made the removal fail"
git_real -C "$R" config --unset guard.onSave

section "drop --published drops what was pushed later and keeps what is unique"
git_real -C "$R" switch -q -c shipped
commit_file "$R" shipped.txt "shipped"
git_real -C "$R" switch -q -c unique
commit_file "$R" unique.txt "unique"
git_real -C "$R" switch -q main
git_real -C "$R" branch -D shipped unique >/dev/null 2>&1
SHIPPED=$(git guard -C "$R" list --source shipped --json | jq -r .ref)
UNIQUE=$(git guard -C "$R" list --source unique --json | jq -r .ref)
assert_ne "" "$SHIPPED" "the deleted branch shipped was not saved"
git_real -C "$R" push -q origin "$(git_real -C "$R" rev-parse "$SHIPPED"):refs/heads/main"
git_real -C "$R" fetch -q origin
run_cmd git guard -C "$R" drop --published
assert_eq 0 "$RC" "drop --published exits 0 ($ERR)"
assert_contains "$OUT" "$SHIPPED" "drop --published does not list the save it dropped"
assert_no_ref "$R" "$SHIPPED" "the published save was kept"
assert_ref_exists "$R" "$UNIQUE" "drop --published dropped a save whose commits exist nowhere else"
assert_ref_exists "$R" "$SAVE1" "drop --published dropped an unpublished tree save"

finish
