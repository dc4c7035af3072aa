#!/usr/bin/env bash
# A save is input from others (issue 19, DESIGN §13, LESSONS 24): one planted in a hub, a
# mirror or a backup remote names its own paths and branches. Restore checks every one of
# them before it writes: a nested repository at `../victim`, at an absolute path or under a
# symbolic link the save itself writes, and a branch name git would read as an option, are
# refused whole (exit 1), with the offending entry named, nothing written, and the refusal
# in `git guard log`. The victims are compared byte for byte.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/restore_fixture.bash"
PATH=$GUARD_BIN_DIR:$PATH

R=$TEST_ROOT/repo
base_repo "$R"
HEAD=$(git_real -C "$R" rev-parse HEAD)

# fingerprint DIR: every path under DIR (its .git too) with its type, mode and bytes.
fingerprint() {
    (cd "$1" && find . -printf '%p %y %m\n' | LC_ALL=C sort &&
        find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha1sum)
}

# A victim: an unrelated repository with a branch, an index and files.
victim() {
    new_repo "$1" >/dev/null
    commit_file "$1" precious.txt "precious"
    printf 'uncommitted\n' >"$1/precious.txt"
    fingerprint "$1" >"$1.before"
}

# The nested save every hostile save points at: a repository with a commit and work.
NSRC=$TEST_ROOT/nested-src
new_repo "$NSRC"
printf 'nested work\n' >"$NSRC/README"
N=$(NESTED_PATHS= layout2_commit "$NSRC" "worktree remove")
NHEAD=$(git_real -C "$NSRC" rev-parse HEAD)
git_real -C "$NSRC" update-ref refs/fixture/n "$N"
git_real -C "$R" fetch -q "$NSRC" "+refs/fixture/n:refs/fixture/n"
git_real -C "$R" update-ref -d refs/fixture/n

# hostile_save NAME TREE TRAILERS: a layout-2 save of TREE with the extra TRAILERS, as a
# hub or a backup remote could hand it over. Prints the ref.
hostile_save() {
    local commit ref
    commit=$(git_real -C "$R" commit-tree "$2" -p "$HEAD" -m "stranded: uncommitted work from $TEST_ROOT/orig (detached)

Stranded-Layout: 2
Stranded-Index: head
$3
Stranded-From: $TEST_ROOT/orig
Stranded-Branch: detached
Stranded-Head: $HEAD
Stranded-Reason: worktree remove")
    ref=refs/heads/stranded/$1/20240101T000000.000Z
    git_real -C "$R" update-ref "$ref" "$commit" ""
    printf '%s\n' "$ref"
}
nested_trailers() {
    printf 'Stranded-Nested: %s %s\nStranded-Nested-Head: %s %s\nStranded-Nested-Branch: main %s' "$N" "$1" "$NHEAD" "$1" "$1"
}
TREE=$(git_real -C "$R" rev-parse "HEAD^{tree}")

# refused NAME REF VICTIM TARGET NEEDLE: restore REF into TARGET is refused naming NEEDLE,
# VICTIM is byte for byte as it was, and TARGET was not made.
refused() {
    local name=$1 ref=$2 victim=$3 target=$4 needle=$5
    run_cmd git guard -C "$R" restore "$ref" "$target"
    assert_eq 1 "$RC" "$name: restore exits 1, refused ($OUT $ERR)"
    assert_contains "$ERR" "$needle" "$name: the refusal does not name the offending entry"
    fingerprint "$victim" >"$victim.after"
    assert_same_file "$victim.before" "$victim.after" \
        "$name: the restore overwrote the victim's files, index or branch outside its target"
    assert_no_file "$target" "$name: the refused restore left its target behind"
    assert_not_contains "$(git_real -C "$R" worktree list --porcelain)" "$target" \
        "$name: the refused restore registered a worktree"
}

section "a nested repository at ../victim is refused"
victim "$TEST_ROOT/victim"
REF=$(hostile_save dotdot "$TREE" "$(nested_trailers ../victim)")
refused "../victim" "$REF" "$TEST_ROOT/victim" "$TEST_ROOT/target" "../victim"

section "a nested repository at an absolute path is refused"
victim "$TEST_ROOT/abs-victim"
REF=$(hostile_save absolute "$TREE" "$(nested_trailers "$TEST_ROOT/abs-victim")")
refused "absolute" "$REF" "$TEST_ROOT/abs-victim" "$TEST_ROOT/target-abs" "$TEST_ROOT/abs-victim"

section "a nested repository under a symbolic link the save writes is refused"
victim "$TEST_ROOT/link-victim"
LINK=$(printf '%s' "$TEST_ROOT/link-victim" | git_real -C "$R" hash-object -w --stdin)
LTREE=$( (git_real -C "$R" ls-tree "$TREE"; printf '120000 blob %s\tout\n' "$LINK") | git_real -C "$R" mktree)
REF=$(hostile_save symlinked "$LTREE" "$(nested_trailers out/sub)")
refused "symlinked" "$REF" "$TEST_ROOT/link-victim" "$TEST_ROOT/target-link" "out/sub"

section "a nested repository inside git's own directory is refused"
REF=$(hostile_save dotgit "$TREE" "$(nested_trailers .git/hooks)")
run_cmd git guard -C "$R" restore "$REF" "$TEST_ROOT/target-git"
assert_eq 1 "$RC" "a nested path in .git is refused ($ERR)"
assert_contains "$ERR" ".git/hooks" "the refusal does not name the .git path"
assert_no_file "$TEST_ROOT/target-git" "the refused restore left its target behind"

section "a branch name git would read as an option is refused"
C=$(git_real -C "$R" commit-tree "$TREE" -p "$HEAD" -m "planted")
git_real -C "$R" update-ref "refs/heads/stranded/-f/20240101T000000.000Z" "$C" ""
BRANCHES=$(git_real -C "$R" for-each-ref --format='%(refname) %(objectname)')
run_cmd git guard -C "$R" restore "stranded/-f/20240101T000000.000Z"
assert_eq 1 "$RC" "restoring the branch '-f' exits 1, refused ($OUT $ERR)"
assert_contains "$ERR" "'-f'" "the refusal does not name the branch"
assert_eq "$BRANCHES" "$(git_real -C "$R" for-each-ref --format='%(refname) %(objectname)')" \
    "the refused restore created or moved a branch (git branch read the name as an option)"

section "a tree save's branch outside refs/heads/ is refused"
BAD=$(git_real -C "$R" commit-tree "$TREE" -m "stranded: uncommitted work from $TEST_ROOT/orig2 (x)

Stranded-Layout: 2
Stranded-Index: worktree
Stranded-From: $TEST_ROOT/orig2
Stranded-Branch: ../../config
Stranded-Head: unborn
Stranded-Reason: worktree remove")
git_real -C "$R" update-ref refs/heads/stranded/badbranch/20240101T000000.000Z "$BAD" ""
CONFIG=$(cat "$R/.git/config")
run_cmd git guard -C "$R" restore stranded/badbranch/20240101T000000.000Z "$TEST_ROOT/target-branch"
assert_eq 1 "$RC" "the branch ../../config is refused ($ERR)"
assert_contains "$ERR" "../../config" "the refusal does not name the branch"
assert_eq "$CONFIG" "$(cat "$R/.git/config")" "the refused restore changed the repository's config"
assert_no_file "$TEST_ROOT/target-branch" "the refused restore left its target behind"

section "a save from elsewhere goes only where it is told"
git_real -C "$R" worktree add -q --detach "$TEST_ROOT/wt"
printf 'work\n' >"$TEST_ROOT/wt/new.txt"
REF=$(layout2_commit "$TEST_ROOT/wt" "worktree remove")
git_real -C "$R" update-ref refs/heads/stranded/planted/20240101T000000.000Z "$REF" ""
git_real -C "$R" worktree remove --force "$TEST_ROOT/wt"
run_cmd git guard -C "$R" restore stranded/planted/20240101T000000.000Z
assert_eq 1 "$RC" "a save not made here is not restored where it claims to come from ($ERR)"
assert_contains "$ERR" "was not made in this repository" "the refusal does not say the save came from elsewhere"
assert_no_file "$TEST_ROOT/wt" "the refused restore wrote where the planted save pointed"
run_cmd git guard -C "$R" restore stranded/planted/20240101T000000.000Z "$TEST_ROOT/chosen"
assert_eq 0 "$RC" "the same save restores at a path the user names ($ERR)"
assert_eq "work" "$(cat "$TEST_ROOT/chosen/new.txt" 2>&1)" "the named restore lost the save's file"

section "restore never writes into a directory it did not make"
mkdir "$TEST_ROOT/existing"
run_cmd git guard -C "$R" restore stranded/planted/20240101T000000.000Z "$TEST_ROOT/existing"
assert_eq 1 "$RC" "an existing (empty) directory is refused ($ERR)"
assert_eq "" "$(ls -A "$TEST_ROOT/existing")" "the refused restore wrote into the existing directory"

section "every refusal is in git guard log"
run_cmd git guard -C "$R" log --json
REFUSALS=$(printf '%s\n' "$OUT" | jq -r 'select(.kind == "refusal" and .reason == "restore") | .detail')
for needle in "../victim" "$TEST_ROOT/abs-victim" "out/sub" ".git/hooks" "'-f'" "../../config" "was not made"; do
    assert_contains "$REFUSALS" "$needle" "the journal lacks the refused restore naming $needle"
done

finish
