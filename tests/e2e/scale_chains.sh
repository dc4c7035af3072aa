#!/usr/bin/env bash
# Few refs however many saves (DESIGN §2.6, §13):
#   - 60 saves (removals, branch deletions, in-place) with guard.keepBranches=10: every
#     save's content stays reachable, at most 10 stranded/ branches and 10 in-place refs,
#     the older ones on chains, every save listed once and restorable, folded ones included;
#   - a chain only moves forward; deleting one is refused like a save's deletion;
#   - drop of a folded save: a drop link hides it, the chain does not move back;
#   - migration: an earlier version's thousands of loose save refs are folded by
#     `git guard fold` and on the first save, verified, each save listed once.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GUARD=$GUARD_BIN_DIR/git-guard

# reachable REPO BLOB...: how many of the BLOBs some ref reaches.
reachable() {
    local repo=$1
    shift
    git_real -C "$repo" rev-list --objects --all | cut -d' ' -f1 | sort -u >"$TEST_ROOT/.objects"
    printf '%s\n' "$@" | sort -u | comm -12 - "$TEST_ROOT/.objects" | grep -c .
}

blob() { printf '%s\n' "$1" | git_real hash-object --stdin; }

count_refs() { git_real -C "$1" for-each-ref --format=x "$2" | grep -c . || true; }

listed() { "$GUARD" -C "$1" list --all --json; }

R=$TEST_ROOT/many
new_repo "$R"
commit_file "$R" a.txt a
git_real -C "$R" config guard.enabled true
git_real -C "$R" config guard.keepBranches 10
install_hook "$R"
shim_on

section "60 saves with guard.keepBranches=10"
BLOBS=()
for i in $(seq 1 25); do
    git -C "$R" worktree add -q "$TEST_ROOT/t$i" -b "t$i" 2>/dev/null
    printf 'removed work %s\n' "$i" >"$TEST_ROOT/t$i/work.txt"
    BLOBS+=("$(blob "removed work $i")")
    git -C "$R" worktree remove --force "$TEST_ROOT/t$i" 2>/dev/null
    git_real -C "$R" branch -q -D "t$i" 2>/dev/null # no commits of its own: nothing to save
done
for i in $(seq 1 20); do
    git_real -C "$R" checkout -q -b "b$i" main
    commit_file "$R" "b$i.txt" "branch work $i"
    BLOBS+=("$(blob "branch work $i")")
    git_real -C "$R" checkout -q main
    git_real -C "$R" branch -q -D "b$i" 2>/dev/null
done
for i in $(seq 1 15); do
    printf 'in-place work %s\n' "$i" >"$R/a.txt"
    BLOBS+=("$(blob "in-place work $i")")
    git -C "$R" reset -q --hard 2>/dev/null
done
assert_eq 60 "$(reachable "$R" "${BLOBS[@]}")" "every one of the 60 saves' content is reachable (a save was lost)"
# A fold after a save leaves a kind that went over 10 at 9 (fold_floor): 9 or 10 stay.
assert_within 9 10 "$(count_refs "$R" refs/heads/stranded/)" "removal and branch saves beyond the newest 10 are folded"
assert_eq "refs/stranded/chain/archive
refs/stranded/chain/tree/many" "$(git_real -C "$R" for-each-ref --format='%(refname)' refs/stranded/chain/)" \
    "folded saves live on the archive chain and their tree's chain"
assert_within 11 12 "$(count_refs "$R" refs/stranded/)" "in-place saves beyond the newest 10 are folded onto their tree's chain (9 or 10, and 2 chains)"
run_cmd listed "$R"
assert_eq 60 "$(printf '%s\n' "$OUT" | grep -c '"ref"')" "git guard list --all shows all 60 saves"
assert_eq 60 "$(printf '%s\n' "$OUT" | grep -o '"ref":"[^"]*"' | sort -u | grep -c .)" "each save is listed once"
run_cmd "$GUARD" -C "$R" list
assert_contains "$OUT" "15 in-place save(s) not shown" "the people's listing counts the in-place saves"

section "restore and show take a folded save by its handle"
OLDEST=$(printf '%s\n' "$(listed "$R")" | grep -o '"ref":"refs/heads/stranded/t1/[^"]*"' | cut -d'"' -f4)
assert_ne "" "$OLDEST" "the first removal's save is listed under its stranded/t1/<stamp> name"
assert_eq "" "$(git_real -C "$R" for-each-ref "$OLDEST")" "the first removal's save is folded (no branch left)"
run_cmd "$GUARD" -C "$R" show "${OLDEST#refs/heads/}"
assert_eq 0 "$RC" "show takes the folded save by its short name: $ERR"
run_cmd "$GUARD" -C "$R" restore "${OLDEST#refs/heads/}" "$TEST_ROOT/back1"
assert_eq 0 "$RC" "restore takes the folded save: $ERR"
assert_eq "removed work 1" "$(cat "$TEST_ROOT/back1/work.txt" 2>/dev/null)" "the folded removal's file is restored"
B1=$(printf '%s\n' "$(listed "$R")" | grep -o '"ref":"refs/heads/stranded/b1/[^"]*"' | cut -d'"' -f4)
run_cmd "$GUARD" -C "$R" restore "$B1"
assert_eq 0 "$RC" "restore takes a folded branch save: $ERR"
assert_eq "branch work 1" "$(git_real -C "$R" show b1:b1.txt 2>/dev/null)" "the folded branch comes back at its tip"
IN1=$(git_real -C "$R" log --first-parent --format='%(trailers:key=Stranded-Save,valueonly,separator=)' \
    refs/stranded/chain/tree/many | grep . | tail -1)
assert_eq "" "$(git_real -C "$R" for-each-ref "$IN1")" "the first in-place save is folded (no ref left)"
run_cmd "$GUARD" -C "$R" show "$IN1"
assert_contains "$OUT" "a.txt" "show of a folded in-place save names the file it holds"
run_cmd "$GUARD" -C "$R" restore "$IN1" "$TEST_ROOT/back-in"
assert_eq "in-place work 1" "$(cat "$TEST_ROOT/back-in/a.txt" 2>/dev/null)" "the folded in-place save's edit is restored"

section "a chain only moves forward"
TIP=$(git_real -C "$R" rev-parse refs/stranded/chain/tree/many)
# The in-place refs stand at 9 or 10: at most two more saves take them over 10, and fold.
for more in 1 2; do
    printf 'one more %s\n' "$more" >"$R/a.txt"
    git -C "$R" checkout -- a.txt 2>/dev/null
done
NEW=$(git_real -C "$R" rev-parse refs/stranded/chain/tree/many)
assert_ne "$TIP" "$NEW" "two new in-place saves move their tree's chain"
git_real -C "$R" merge-base --is-ancestor "$TIP" "$NEW" && pass "the old tip is an ancestor of the new" ||
    fail "the chain moved backwards: earlier in-place saves fell off it"

section "drop of a folded save: a drop link, nothing moves back"
ARCH=$(git_real -C "$R" rev-parse refs/stranded/chain/archive)
run_cmd "$GUARD" -C "$R" drop "$OLDEST"
assert_eq 0 "$RC" "drop takes the folded save: $ERR"
assert_not_contains "$(listed "$R")" "\"$OLDEST\"" "the dropped save is no longer listed"
git_real -C "$R" merge-base --is-ancestor "$ARCH" refs/stranded/chain/archive && pass "the archive moved forward only" ||
    fail "drop moved the archive backwards: other folded saves fell off it"
assert_eq 61 "$(printf '%s\n' "$(listed "$R")" | grep -c '"ref"')" "59 saves plus the 2 new ones stay listed"

section "deleting or force-moving a chain is judged like a branch"
run_cmd git_real -C "$R" update-ref -d refs/stranded/chain/archive
assert_ne 0 "$RC" "deleting the archive chain, whose saves exist nowhere else, is refused"
assert_ne "" "$(git_real -C "$R" for-each-ref refs/stranded/chain/archive)" "the archive chain is still there"
# A forced move of a chain (update-ref onto a commit that does not contain it) is the
# hook's to judge by effect, like a branch's forced move; that judgement is not in this
# suite's build yet (the hook judges forced moves of refs/heads/* only).

section "the chains' index: a stale or planted index never hides or invents a save"
INDEX=$R/.git/guard/chains.index
[ -f "$INDEX" ] && pass "list keeps an index of the chains" || fail "list wrote no index of the chains"
EXPECT=$(listed "$R" | grep -o '"ref":"[^"]*"' | sort)
printf 'two more\n' >"$R/a.txt"
git -C "$R" reset -q --hard 2>/dev/null
NOW=$(listed "$R" | grep -o '"ref":"[^"]*"' | sort)
assert_eq "$(($(printf '%s\n' "$EXPECT" | grep -c .) + 1))" "$(printf '%s\n' "$NOW" | grep -c .)" \
    "a save appended after the index was written is listed (the links above its tip were read)"
# An index whose tips are no ancestors of the chains (from another repository, or a chain
# force-moved since): the chains are walked whole.
python3 - "$INDEX" <<'PY'
import sys
path = sys.argv[1]
data = open(path, "rb").read()
head, _, rest = data.partition(b"\n")
fields, at = rest.split(b"\0"), 0
while fields[at] != b"refs/stranded/chain/tree/many": # chain, tip, count, 7 fields a link
    at += 3 + 7 * int(fields[at + 2])
fields[at + 1] = b"0123456789abcdef0123456789abcdef01234567" # the tree chain's indexed tip: unknown
open(path, "wb").write(head + b"\n" + b"\0".join(fields))
PY
printf 'three more\n' >"$R/a.txt"
git -C "$R" reset -q --hard 2>/dev/null
NOW=$(printf '%s\n%s\n' "$NOW" "$(git_real -C "$R" for-each-ref --sort=-refname --format='"ref":"%(refname)"' refs/stranded/many/ | head -1)" | sort)
assert_eq "$NOW" "$(listed "$R" | grep -o '"ref":"[^"]*"' | sort)" \
    "with a planted index tip, every save is still listed once, the newest too (the chain was walked whole)"
printf 'git-guard chains index 1\nrefs/stranded/chain/archive\0%s\0' "$(git_real -C "$R" rev-parse refs/stranded/chain/archive)" >"$INDEX"
assert_eq "$NOW" "$(listed "$R" | grep -o '"ref":"[^"]*"' | sort)" "with a torn index, every save is still listed once"

section "migration: loose save refs of an earlier version are folded"
M=$TEST_ROOT/migrate
new_repo "$M"
git_real -C "$M" config guard.enabled true
git_real -C "$M" config guard.keepBranches 10
# Synthetic saves of the earlier version's shape: commits-only saves, each its own ref.
{
    for i in $(seq 1 300); do
        c=$(printf 'old save %s\n' "$i" | GIT_COMMITTER_DATE="2024-01-01 12:$((i % 60)):00 +0000" \
            git_real -C "$M" commit-tree "$(git_real -C "$M" rev-parse HEAD^{tree})" -p HEAD)
        printf 'create refs/heads/stranded/old/20240101T12%04d.000Z %s\n' "$i" "$c"
        c=$(printf 'old in-place %s\n' "$i" | git_real -C "$M" commit-tree "$(git_real -C "$M" rev-parse HEAD^{tree})" -p HEAD)
        printf 'create refs/stranded/migrate/20240101T12%04d.000Z %s\n' "$i" "$c"
    done
} | git_real -C "$M" update-ref --stdin
BEFORE=$(git_real -C "$M" for-each-ref --format='%(objectname)' refs/heads/stranded/ refs/stranded/ | sort)
run_cmd "$GUARD" -C "$M" fold
assert_eq 0 "$RC" "git guard fold succeeds: $ERR"
assert_contains "$OUT" "folded 290 branch save(s)" "fold says what it folded"
assert_eq 10 "$(count_refs "$M" refs/heads/stranded/)" "the newest 10 branch saves stay branches"
assert_eq 12 "$(count_refs "$M" refs/stranded/)" "the 300 loose in-place refs became 10 and one chain (plus the archive)"
AFTER=$(git_real -C "$M" rev-list --all | sort)
assert_eq "" "$(comm -23 <(printf '%s\n' "$BEFORE") <(printf '%s\n' "$AFTER"))" "every migrated save is still reachable"
assert_eq 600 "$("$GUARD" -C "$M" list --all --json | grep -o '"ref":"[^"]*"' | sort -u | grep -c .)" \
    "all 600 migrated saves are listed, each once"
# A link is dated like its save (never older than the link below): a walk by date then meets
# each save beside its link, where links all stamped at fold time made git 2.39's walk quadratic.
LINKS=$(git_real -C "$M" log --first-parent --format='%ct %P' refs/stranded/chain/archive)
assert_eq "" "$(printf '%s\n' "$LINKS" | awk 'NR > 1 && $1 > above { print "link " NR " is newer than the link above it" } { above = $1 }')" \
    "the archive's link dates never go down along the chain"
read -r oldest_time _ oldest_save < <(printf '%s\n' "$LINKS" | awk 'NF == 3' | tail -n 1)
assert_eq "$(git_real -C "$M" log -1 --format=%ct "$oldest_save")" "$oldest_time" \
    "the oldest folded save's link carries its save's date, not the time of the fold"
git_real -C "$M" branch -q stranded/old/20240101T129999.000Z HEAD
git_real -C "$M" branch -q stranded/old/20240101T129998.000Z HEAD
printf 'x\n' >"$M/README"
git -C "$M" reset -q --hard 2>/dev/null
assert_eq 9 "$(count_refs "$M" refs/heads/stranded/)" "the first save folds the branch saves beyond the bound again, in a step down to 9"
assert_eq 11 "$(count_refs "$M" refs/stranded/)" "and the in-place saves beyond the bound (11 made 9, and 2 chains)"

section "a migration into many chains leaves its packs joined"
P=$TEST_ROOT/packs
new_repo "$P"
git_real -C "$P" config guard.enabled true
git_real -C "$P" config guard.keepBranches 10
c=$(printf 'old in-place\n' | git_real -C "$P" commit-tree "$(git_real -C "$P" rev-parse HEAD^{tree})" -p HEAD)
for t in 1 2 3 4 5 6 7 8 9; do
    for i in $(seq 100 219); do printf 'create refs/stranded/p%s/20240101T12%04d.000Z %s\n' "$t" "$i" "$c"; done
done | git_real -C "$P" update-ref --stdin
git_real -C "$P" repack -q -a -d
run_cmd "$GUARD" -C "$P" fold
assert_eq 0 "$RC" "git guard fold of 1,080 in-place refs into 9 chains succeeds: $ERR"
assert_eq 1070 "$(git_real -C "$P" log --first-parent --format='%(trailers:key=Stranded-Save,valueonly,separator=)' \
    $(git_real -C "$P" for-each-ref --format='%(refname)' refs/stranded/chain/) | grep -c . || true)" \
    "every folded save has its link on a chain"
PACKS=$(find "$P/.git/objects/pack" -name '*.pack' | grep -c . || true)
assert_within 1 2 "$PACKS" "the 9 chains' packs were joined (each fast-import leaves one; every git opens each)"

section "list shows the same facts of a save whether it is a ref, folded, or read from the index"
F=$TEST_ROOT/facts
new_repo "$F"
git_real -C "$F" config guard.enabled true
git_real -C "$F" config guard.keepBranches 2
head=$(git_real -C "$F" rev-parse HEAD)
mkdir -p "$F/.git/guard"
# Saves of the product's shape (as bench/scale_saves.py makes them): in-place save commits
# with git-guard's message and trailers, branch saves, and their journal lines.
{
    for i in $(seq 10 39); do
        stamp=20240101T1200$i.000Z iso=2024-01-01T12:00:$i.000Z
        tree=$(printf 'work %s\n' "$i" | git_real -C "$F" hash-object -w --stdin |
            xargs printf '100644 blob %s\tREADME\n' | git_real -C "$F" mktree)
        c=$(printf 'stranded: what reset --hard destroyed in %s (main)\n\nHeld 1 path(s): README.\n\nStranded-Layout: 2\nStranded-Index: head\nStranded-Scope: destroyed\nStranded-From: %s/t%s\nStranded-Branch: main\nStranded-Head: %s\nStranded-Reason: reset --hard\n' \
            "$F/t$i" "$F" "$((i % 3))" "$head" | git_real -C "$F" commit-tree "$tree" -p "$head")
        printf 'create refs/stranded/t%s/%s %s\n' "$((i % 3))" "$stamp" "$c" >&3
        printf '{"time":"%s","kind":"save","ref":"refs/stranded/t%s/%s","commit":null,"path":"%s/t%s","branch":"main","reason":"reset --hard","detail":"1 path(s)","remote":null,"ok":true,"pid":1}\n' \
            "$iso" "$((i % 3))" "$stamp" "$F" "$((i % 3))"
        c=$(printf 'work on b%s\n' "$i" | git_real -C "$F" commit-tree "$tree" -p "$head")
        printf 'create refs/heads/stranded/b%s/%s %s\n' "$((i % 2))" "$stamp" "$c" >&3
        printf '{"time":"%s","kind":"save","ref":"refs/heads/stranded/b%s/%s","commit":null,"path":null,"branch":"b%s","reason":"branch delete","detail":"commits only","remote":null,"ok":true,"pid":1}\n' \
            "$iso" "$((i % 2))" "$stamp" "$((i % 2))"
    done 3>"$TEST_ROOT/facts.refs"
} >>"$F/.git/guard/journal.jsonl"
git_real -C "$F" update-ref --stdin <"$TEST_ROOT/facts.refs"
AS_REFS=$(listed "$F" | sort)
assert_eq 60 "$(printf '%s\n' "$AS_REFS" | grep -c '"summary":')" "the 60 saves are listed as refs"
assert_contains "$AS_REFS" '"summary":"Held 1 path(s): README."' "an in-place save's listing holds its summary"
run_cmd "$GUARD" -C "$F" fold
assert_eq 0 "$RC" "git guard fold succeeds: $ERR"
assert_eq 2 "$(count_refs "$F" refs/heads/stranded/)" "fold left the newest 2 branch saves as branches"
rm -f "$F/.git/guard/chains.index"
assert_eq "$AS_REFS" "$(listed "$F" | sort)" \
    "every fact list shows of a save (source, reason, time, kind, summary, foreign) is the same once folded"
[ -f "$F/.git/guard/chains.index" ] && pass "the walk wrote the chains index" || fail "list wrote no chains index"
assert_eq "$AS_REFS" "$(listed "$F" | sort)" "and the same again when read from the chains index"
assert_eq "$("$GUARD" -C "$F" list --all)" "$(rm -f "$F/.git/guard/chains.index"; "$GUARD" -C "$F" list --all)" \
    "the people's listing is the same from the index as from a whole walk"

finish
