#!/usr/bin/env bash
# A guarded mirror keeps fetching (DESIGN §4.2). In a `clone --mirror`, `fetch --prune`
# deletes every ref its remote lacks, saves included, so the hook keeps what such a
# fetch deletes in a bundle under <git dir>/guard/bundles/, out of the refspec's reach.
# Three rounds of origin deleting branches, each followed by `fetch --prune`: every
# fetch succeeds, and every deleted branch that held unique commits is recoverable from
# its bundle with the command the hook printed.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GIT=$REAL_GIT
ORIGIN=$TEST_ROOT/origin.git
MIRROR=$TEST_ROOT/mirror.git
SEED=$TEST_ROOT/seed

new_repo "$SEED"
"$GIT" init -q --bare "$ORIGIN"
# work NAME: a branch NAME in the seed with one commit of its own.
work() {
    "$GIT" -C "$SEED" checkout -q -b "$1" main
    commit_file "$SEED" "$1.txt" "$1's work"
    "$GIT" -C "$SEED" checkout -q main
}
for b in m1 m2 m3 m4 m5; do work "$b"; done
"$GIT" -C "$SEED" branch merged main
"$GIT" -C "$SEED" push -q "$ORIGIN" 'refs/heads/*:refs/heads/*'
"$GIT" clone -q --mirror "$ORIGIN" "$MIRROR"
ln -s "$GUARD_BIN_DIR/git-guard-hook" "$MIRROR/hooks/reference-transaction"
"$GIT" -C "$MIRROR" config guard.enabled true
declare -A TIPS
for b in m1 m2 m3 m4 m5 merged; do TIPS[$b]=$("$GIT" -C "$MIRROR" rev-parse "refs/heads/$b"); done
# An older save in the mirror (made before it was a mirror), which origin lacks.
"$GIT" -C "$MIRROR" -c core.hooksPath=/dev/null update-ref refs/heads/stranded/old/20240101T000000.000Z \
    "$("$GIT" -C "$MIRROR" commit-tree "$("$GIT" -C "$MIRROR" rev-parse 'm5^{tree}')" -p m5 -m "old save")"
TIPS[stranded/old/20240101T000000.000Z]=$("$GIT" -C "$MIRROR" rev-parse refs/heads/stranded/old/20240101T000000.000Z)

# recoverable BRANCH: the hook said where BRANCH went, and fetching it from there
# restores its tip in a new repository.
recoverable() {
    local line bundle
    line=$(grep -h "kept refs/heads/$1 in " "$TEST_ROOT"/fetch.*.err | tail -1)
    bundle=$(printf '%s\n' "$line" | sed -E 's|.* in (.*) \(recover: .*|\1|')
    assert_file_exists "$bundle" "$1: the hook named its bundle ($line)"
    rm -rf "$TEST_ROOT/recover"
    "$GIT" init -q --bare "$TEST_ROOT/recover"
    "$GIT" -C "$TEST_ROOT/recover" fetch -q "$bundle" "refs/heads/$1:refs/heads/$1" 2>&1
    assert_eq "${TIPS[$1]}" "$("$GIT" -C "$TEST_ROOT/recover" rev-parse "refs/heads/$1" 2>&1)" \
        "$1: recovered from the bundle at its tip (its commits would be lost otherwise)"
}

round=0
# fetch_round BRANCH...: origin deletes the branches, the mirror fetches with --prune.
fetch_round() {
    round=$((round + 1))
    section "round $round: origin deletes $*, the mirror runs fetch --prune"
    local b
    for b in "$@"; do "$GIT" -C "$ORIGIN" update-ref -d "refs/heads/$b"; done
    (cd "$MIRROR" && "$GIT" fetch -q --prune) >"$TEST_ROOT/fetch.$round.out" 2>"$TEST_ROOT/fetch.$round.err" && rc=0 || rc=$?
    assert_eq 0 "$rc" "round $round: fetch --prune succeeds ($(head -c 300 "$TEST_ROOT/fetch.$round.err"))"
    for b in "$@"; do assert_no_ref "$MIRROR" "refs/heads/$b" "round $round: the mirror pruned $b as its remote did"; done
}

fetch_round m1 merged
recoverable m1
recoverable stranded/old/20240101T000000.000Z
assert_not_contains "$(cat "$TEST_ROOT/fetch.1.err")" "refs/heads/merged" "merged (held by main) needed no keeping"
assert_eq "" "$("$GIT" -C "$MIRROR" for-each-ref refs/heads/stranded/ refs/stranded/)" \
    "no save ref was made in the mirror (the next prune would delete it)"

fetch_round m2 m3
recoverable m2
recoverable m3

commit_file "$SEED" new.txt new
"$GIT" -C "$SEED" push -q "$ORIGIN" main
fetch_round m4
recoverable m4
assert_eq "$("$GIT" -C "$ORIGIN" rev-parse main)" "$("$GIT" -C "$MIRROR" rev-parse main)" "round 3: the mirror still follows origin"

section "a fourth fetch with nothing to prune"
(cd "$MIRROR" && "$GIT" fetch -q --prune) && rc=0 || rc=$?
assert_eq 0 "$rc" "the mirror keeps fetching"

finish
