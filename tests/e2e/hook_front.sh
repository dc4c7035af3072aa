#!/usr/bin/env bash
# The hook front end (git-guard-hook, run by the hooks/reference-transaction stub):
# the full git-guard runs only for a prepared transaction that deletes a branch, with
# the front end's classification of git's lines (each line as git wrote it, after its
# kind: D, U, H or O; issue 17: one parser); pack-refs and gc never start it; a chained hook sees exactly
# what git sent, in every state, and its refusal still aborts the transaction.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STUB=$GUARD_SOURCE_DIR/hooks/reference-transaction
LOG=$TEST_ROOT/log     # the guarded repository's fake git-guard and chained hook
TWIN=$TEST_ROOT/twin   # the unguarded twin's plain hook: what git sends
FRONT=$TEST_ROOT/front # a copy of the front end next to the fake git-guard
mkdir -p "$LOG" "$TWIN" "$FRONT"

# write_recorder FILE DIR NAME: a hook or fake binary recording each run's arguments
# and stdin as DIR/NAME.<n>.args and .in. It exits with DIR/NAME.status (default 0), or
# 1 in state prepared while DIR/NAME.fail exists.
write_recorder() {
    cat >"$1" <<EOF
#!/bin/sh
n=\$(( \$(ls '$2' | grep -c '^$3\..*\.args\$') + 1 ))
printf '%s\n' "\$@" >'$2/$3.'\$n.args
cat >'$2/$3.'\$n.in
if [ "\$1" = prepared ] && [ -f '$2/$3.fail' ]; then
    echo "$3 says no" >&2
    exit 1
fi
exit \$(cat '$2/$3.status' 2>/dev/null || echo 0)
EOF
    chmod +x "$1"
}

# assert_classified GIT_INPUT HANDED MESSAGE: HANDED is GIT_INPUT classified: the same
# lines, each after its kind (front/lines.h), a last line ended; no line lost or changed.
assert_classified() {
    { cat "$1"; [ -z "$(tail -c1 "$1")" ] || echo; } >"$TEST_ROOT/.git-lines"
    assert_eq "" "$(grep -Ev '^[DUHO] ' "$2" | head -c 200)" "$3 (every line carries its kind)"
    sed -E 's/^[DUHO] //' "$2" >"$TEST_ROOT/.handed-lines"
    assert_same_file "$TEST_ROOT/.git-lines" "$TEST_ROOT/.handed-lines" "$3"
}

# runs DIR NAME: how many times NAME ran.
runs() {
    ls "$1" | grep -c "^$2\..*\.args\$"
}

# install_stub REPO FRONT_END: the stub, with the placeholder replaced by FRONT_END.
install_stub() {
    sed "s|@GUARD_HOOK_FRONT@|$2|" "$STUB" >"$1/.git/hooks/reference-transaction"
    chmod +x "$1/.git/hooks/reference-transaction"
}

cp "$GUARD_BIN_DIR/git-guard-hook" "$FRONT/git-guard-hook"
write_recorder "$FRONT/git-guard" "$LOG" guard

section "setting up"
new_repo "$TEST_ROOT/origin"
commit_file "$TEST_ROOT/origin" b.txt b
git_real -C "$TEST_ROOT/origin" tag v1
git_real -C "$TEST_ROOT/origin" branch gone
for repo in repo twin-repo; do
    git_real clone -q "$TEST_ROOT/origin" "$TEST_ROOT/$repo"
    git_real -C "$TEST_ROOT/$repo" branch x
    git_real -C "$TEST_ROOT/$repo" branch x2
done
REPO=$TEST_ROOT/repo
install_stub "$REPO" "$FRONT/git-guard-hook"
write_recorder "$REPO/.git/hooks/reference-transaction.guard-chained" "$LOG" chained
write_recorder "$TEST_ROOT/twin-repo/.git/hooks/reference-transaction" "$TWIN" chained
assert_eq 1 "$(grep -c '^# git-guard reference-transaction hook$' "$STUB")" \
    "the stub carries its marker line"

# in_both DESCRIPTION COMMAND...: runs a git command in the guarded repository and in
# its twin; checks both end alike, and how often the full binary ran ($STARTED).
in_both() {
    local what=$1
    shift
    local before_guard before_chained
    before_guard=$(runs "$LOG" guard)
    before_chained=$(runs "$LOG" chained)
    (cd "$TEST_ROOT/twin-repo" && "$@") >"$TEST_ROOT/twin.out" 2>&1
    local twin_rc=$?
    (cd "$REPO" && "$@") >"$TEST_ROOT/repo.out" 2>&1
    local rc=$?
    assert_eq "$twin_rc" "$rc" "'$what' exits as it does without git-guard"
    STARTED=$(($(runs "$LOG" guard) - before_guard))
    FIRST_CHAINED=$((before_chained + 1))
    LAST_CHAINED=$(runs "$LOG" chained)
}

section "transactions that delete or force no branch never start git-guard"
printf 'change\n' >>"$REPO/README"
printf 'change\n' >>"$TEST_ROOT/twin-repo/README"
in_both "git commit" git commit -q -a -m change
assert_eq 0 "$STARTED" "'git commit' did not start git-guard"
in_both "git branch new" git branch new
assert_eq 0 "$STARTED" "'git branch new' did not start git-guard"
in_both "a fast-forward by three loose commits" sh -c 'c=$(git rev-parse HEAD); for i in 1 2 3; do
    c=$(git commit-tree -p "$c" -m "$i" "HEAD^{tree}"); done; git update-ref refs/heads/new "$c"'
assert_eq 0 "$STARTED" "a fast-forward the front end can prove from loose objects did not start git-guard"
in_both "a forced move" git update-ref refs/heads/new HEAD
assert_eq 1 "$STARTED" "a forced move (the old tip is no ancestor of the new) started git-guard once"
in_both "a fast-forward by three packed commits" sh -c 'c=$(git rev-parse refs/heads/new); for i in 1 2 3; do
    c=$(git commit-tree -p "$c" -m "packed $i" "HEAD^{tree}"); done; git branch -f packed-tip "$c" &&
    git repack -adq && git prune-packed && git update-ref refs/heads/new "$c"'
assert_eq 0 "$STARTED" "a fast-forward to commits git packed (a pull's, a rebase's) started git-guard: the front end reads commits in packs too"
assert_ne 0 "$(git_real -C "$REPO" verify-pack -v "$REPO"/.git/objects/pack/*.idx | grep -c '^[0-9a-f]* commit .* [0-9a-f]\{40\}$' || true)" \
    "setup: git stored no commit of that pack as a delta (the check above did not read one)"
in_both "a fast-forward by three commits packed as deltas named by id" sh -c 'c=$(git rev-parse refs/heads/new); for i in 1 2 3; do
    c=$(git commit-tree -p "$c" -m "by id $i" "HEAD^{tree}"); done; git branch -f packed-tip "$c" &&
    git -c repack.useDeltaBaseOffset=false repack -adq && git prune-packed && git update-ref refs/heads/new "$c"'
assert_eq 0 "$STARTED" "a fast-forward to commits packed as deltas on a base named by id started git-guard"
in_both "a forced move between packed commits" sh -c 'git repack -adq && git prune-packed && git update-ref refs/heads/new "$(git rev-parse refs/heads/new~2)"'
assert_eq 1 "$STARTED" "a forced move back to a packed ancestor (the tip is left on no branch) did not start git-guard once"
ON_BRANCH=$(git_real -C "$REPO" symbolic-ref --short HEAD)
in_both "HEAD detached at x" git checkout -q --detach x
in_both "HEAD attached to x, the branch at the commit HEAD was detached at" git checkout -q x
assert_eq 0 "$STARTED" "attaching HEAD to the branch whose tip it was detached at (a rebase's end) started git-guard: the branch holds that commit"
# git 2.46+ reports HEAD's symref update to the hook ("<old> ref:refs/heads/x HEAD"); older
# git does not, and a checkout that leaves a detached commit is the shim's to judge there.
SYMREF_LINES=$(cat "$TWIN"/chained.*.in | grep -c ' ref:refs/heads/x HEAD$' || true)
in_both "a commit on a detached HEAD" sh -c 'git checkout -q --detach x && git commit -q --allow-empty -m detached-only'
in_both "HEAD attached to x, leaving the detached commit" git checkout -q x
if [ "$SYMREF_LINES" -gt 0 ]; then
    assert_eq 1 "$STARTED" "attaching HEAD to a branch away from a commit only the detached HEAD held did not start git-guard once"
else
    echo "  (this git reports no symref update to the hook: the check that leaving a detached commit starts git-guard needs git 2.46+)"
fi
in_both "back to $ON_BRANCH" git checkout -q "$ON_BRANCH"
commit_file "$TEST_ROOT/origin" c.txt c
git_real -C "$TEST_ROOT/origin" tag v2
git_real -C "$TEST_ROOT/origin" branch fresh
git_real -C "$TEST_ROOT/origin" branch -q -D gone
in_both "git fetch --prune" git fetch -q --prune
assert_eq 0 "$STARTED" "'git fetch --prune' did not start git-guard"

section "pack-refs and gc report loose branches as deleted, and never start git-guard"
# prepared_deletions FIRST LAST: the chained hook's prepared inputs (runs FIRST..LAST)
# that hold a branch deletion.
prepared_deletions() {
    local i
    for ((i = $1; i <= $2; i++)); do
        [ "$(head -n1 "$LOG/chained.$i.args")" = prepared ] &&
            grep -Eq '^[^ ]+ (0{40}|0{64}) refs/heads/' "$LOG/chained.$i.in" && echo "$i"
    done
}
in_both "git pack-refs --all" git pack-refs --all
assert_ne "" "$(prepared_deletions "$FIRST_CHAINED" "$LAST_CHAINED")" \
    "git 2.39's pack-refs did report a pruned loose branch as deleted"
assert_eq 0 "$STARTED" "'git pack-refs --all' did not start git-guard"
in_both "git branch w" git branch w
in_both "git gc" git gc -q
assert_ne "" "$(prepared_deletions "$FIRST_CHAINED" "$LAST_CHAINED")" \
    "git gc's pack-refs did report a pruned loose branch as deleted"
assert_eq 0 "$STARTED" "'git gc' did not start git-guard"

section "a branch deletion starts git-guard once per prepared round, with git's input"
in_both "git branch -D x" git branch -q -D x
rounds=$(prepared_deletions "$FIRST_CHAINED" "$LAST_CHAINED")
assert_eq "$(echo "$rounds" | wc -l)" "$STARTED" \
    "git-guard ran once for each prepared round deleting refs/heads/x"
guard_run=$(($(runs "$LOG" guard) - STARTED))
for round in $rounds; do
    guard_run=$((guard_run + 1))
    assert_classified "$LOG/chained.$round.in" "$LOG/guard.$guard_run.in" \
        "git-guard got the whole input of prepared round $round"
    assert_eq "hook
reference-transaction
prepared
--classified" "$(<"$LOG/guard.$guard_run.args")" "git-guard ran as 'hook reference-transaction prepared --classified'"
done

section "the chained hook sees exactly what git sends, in every state"
assert_eq "$(runs "$TWIN" chained)" "$(runs "$LOG" chained)" \
    "the chained hook ran as often as the hook of an unguarded repository"
differing=
for ((i = 1; i <= $(runs "$TWIN" chained); i++)); do
    cmp -s "$TWIN/chained.$i.args" "$LOG/chained.$i.args" &&
        cmp -s "$TWIN/chained.$i.in" "$LOG/chained.$i.in" || differing="$differing $i"
done
assert_eq "" "$differing" "each of the chained hook's $((i - 1)) runs got git's own state and input"

section "the chained hook's verdict stands"
touch "$LOG/chained.fail"
run_cmd git_real -C "$REPO" branch y
assert_ne 0 "$RC" "the chained hook's refusal in prepared aborts 'git branch y'"
assert_contains "$ERR" "chained says no" "the chained hook's message reaches the user"
assert_no_ref "$REPO" refs/heads/y "the refused branch was not created"
rm "$LOG/chained.fail"
run_cmd git_real -C "$REPO" branch y
assert_eq "0:" "$RC:$ERR" "with the chained hook consenting, 'git branch y' goes through"
assert_ref_exists "$REPO" refs/heads/y "the branch was created"
chmod -x "$REPO/.git/hooks/reference-transaction.guard-chained"
before=$(runs "$LOG" chained)
run_cmd git_real -C "$REPO" branch y2
assert_eq "0:$before" "$RC:$(runs "$LOG" chained)" "a chained hook that is not executable is skipped"
chmod +x "$REPO/.git/hooks/reference-transaction.guard-chained"

section "git-guard's own verdict stands"
echo 3 >"$LOG/guard.status"
run_cmd git_real -C "$REPO" branch -D x2
assert_ne 0 "$RC" "git-guard's refusal aborts 'git branch -D x2'"
assert_ref_exists "$REPO" refs/heads/x2 "x2 was deleted although git-guard refused"
rm "$LOG/guard.status"

LONE=$TEST_ROOT/lone # the front end without git-guard beside it
mkdir -p "$LONE"
cp "$GUARD_BIN_DIR/git-guard-hook" "$LONE/git-guard-hook"
install_stub "$REPO" "$LONE/git-guard-hook"
run_cmd git_real -C "$REPO" branch -D x2
assert_ne 0 "$RC" "without git-guard, 'git branch -D x2' is refused"
assert_ref_exists "$REPO" refs/heads/x2 "x2 was deleted with nothing to save it"
assert_contains "$ERR" "git-guard: refusing to delete refs/heads/x2 unchecked: git-guard is missing (looked for $LONE/git-guard" \
    "the refusal names the branch and the missing git-guard"
run_cmd git_real -C "$REPO" branch z
assert_eq "0:" "$RC:$ERR" "without git-guard, 'git branch z' still works"
printf '#!/bin/sh\nexit 0\n' >"$LONE/git-guard" # present, but cannot start
run_cmd git_real -C "$REPO" branch -D x2
assert_ref_exists "$REPO" refs/heads/x2 "x2 was deleted although git-guard could not start"
assert_contains "$ERR" "git-guard: refusing to delete refs/heads/x2 unchecked: git-guard is missing (looked for $LONE/git-guard" \
    "a git-guard that cannot be executed counts as missing"

install_stub "$REPO" "$TEST_ROOT/nowhere/git-guard-hook"
before=$(runs "$LOG" chained)
run_cmd git_real -C "$REPO" branch z2
assert_eq 0 "$RC" "with the front end gone, 'git branch z2' still works"
assert_ref_exists "$REPO" refs/heads/z2 "with the front end gone, the branch was created"
assert_ne "$before" "$(runs "$LOG" chained)" "with the front end gone, the chained hook still runs"
run_cmd git_real -C "$REPO" branch -D z2
assert_contains "$ERR" "git-guard: $TEST_ROOT/nowhere/git-guard-hook is missing" \
    "with the front end gone, the stub says deletions are unguarded"
install_stub "$REPO" "$FRONT/git-guard-hook"

section "odd input is never a deletion"
Z40=0000000000000000000000000000000000000000
Z64=$Z40$(printf '0%.0s' {1..24})
OID=$(git_real -C "$REPO" rev-parse HEAD)
NOHOOKS=$TEST_ROOT/nohooks/reference-transaction
mkdir -p "$(dirname "$NOHOOKS")"
# direct INPUT STATE...: runs the front end as the stub would, outside git.
direct() {
    local before
    before=$(runs "$LOG" guard)
    printf '%b' "$1" >"$TEST_ROOT/direct.in"
    shift
    "$FRONT/git-guard-hook" "$NOHOOKS" "$@" <"$TEST_ROOT/direct.in" >"$TEST_ROOT/direct.out" 2>&1
    RC=$?
    STARTED=$(($(runs "$LOG" guard) - before))
}
expect_ignored() {
    direct "$1" "${@:3}"
    assert_eq "0 0" "$RC $STARTED" "$2: exit 0, git-guard not started"
}
expect_ignored "garbage\n" "a garbage line" prepared
expect_ignored "" "empty input" prepared
expect_ignored "$Z40 $Z40\n" "two fields" prepared
expect_ignored "$Z40 $Z40 refs/heads/x\n" "state 'preparing'" preparing
expect_ignored "$Z40 $Z40 refs/heads/x\n" "state 'committed'" committed
expect_ignored "$Z40 $Z40 refs/heads/x\n" "no state"
expect_ignored "$Z40 $Z40 refs/tags/v1\n" "a tag deletion" prepared
expect_ignored "$Z40 $Z40 refs/remotes/origin/x\n" "a remote-tracking deletion" prepared
expect_ignored "$Z40 ref:refs/heads/main refs/heads/new-symbolic\n" "a new symbolic branch (new value 'ref:')" prepared
expect_ignored "$Z40 ${Z40:1} refs/heads/x\n" "a 39-digit new value" prepared
expect_ignored "xyz $Z40 refs/heads/x\n" "a garbage old value" prepared
expect_ignored "$Z40 $Z40 refs/heads/\n" "an empty branch name" prepared

expect_started() {
    direct "$1" prepared
    assert_eq "0 1" "$RC $STARTED" "$2: git-guard started"
    assert_classified "$TEST_ROOT/direct.in" "$LOG/guard.$(runs "$LOG" guard).in" "$2: with the whole input, classified"
}
expect_started "$Z40 $Z40 refs/heads/x" "a deletion without a final newline"
expect_started "$Z64 $Z64 refs/heads/x\n" "a SHA-256 deletion"
expect_started "$OID ref:refs/heads/main refs/heads/x\n" "a branch turned into a symbolic ref (new value 'ref:', 2.46)"
expect_ignored "ref:refs/heads/main $Z40 refs/heads/sym\n" "a symbolic ref's deletion (old value 'ref:'), which holds no commits" prepared
{
    for ((i = 0; i < 5000; i++)); do
        printf '%s %s refs/tags/t%d\\n' "$Z40" "$OID" "$i"
    done
    printf '%s %s refs/heads/late\\n' "$OID" "$Z40"
} >"$TEST_ROOT/large.spec"
expect_started "$(<"$TEST_ROOT/large.spec")" "a deletion after 5,000 other lines"

run_cmd "$GUARD_BIN_DIR/git-guard-hook" --guard-version
[[ $OUT =~ ^git-guard-hook\ [0-9]+\.[0-9]+\.[0-9]+$ ]] &&
    pass "git-guard-hook --guard-version prints its version" ||
    fail "git-guard-hook --guard-version printed '$OUT'"

finish
