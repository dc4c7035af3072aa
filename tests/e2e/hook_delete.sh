#!/usr/bin/env bash
# The reference-transaction hook's promise (DESIGN §4.2, §6), with the real git
# called by ABSOLUTE path (no shim anywhere): every deletion of a branch whose
# commits exist nowhere else leaves exactly one stranded branch at its tip, whatever
# git command deletes it; published history (pushed, rebased and force-pushed,
# squash-merged) is not saved; a rename, pack-refs, gc and the automatic gc are not
# deletions; stranded branches are protected; garbage on stdin never blocks; a
# previously installed hook still runs with the same input and its status counts.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GIT=$REAL_GIT # by absolute path: the shim plays no part in this suite
GUARD=$GUARD_BIN_DIR/git-guard
ZERO=0000000000000000000000000000000000000000

# --- local helpers --------------------------------------------------------------------

# install_hook REPO: the stub, pointing at this build's git-guard-hook.

# write_recorder FILE LOG FAILFLAG: a hook appending "== <state>" and its stdin to LOG;
# it exits 1 in state prepared while FAILFLAG exists.
write_recorder() {
    cat >"$1" <<EOF
#!/bin/sh
echo "== \$1" >>'$2'
cat >>'$2'
if [ "\$1" = prepared ] && [ -f '$3' ]; then
    echo "recorder says no" >&2
    exit 1
fi
exit 0
EOF
    chmod +x "$1"
}

# make_clone NAME: a bare $TEST_ROOT/NAME.origin and its clone $TEST_ROOT/NAME (main
# holds README and a.txt; origin/HEAD is set). Deterministic.
make_clone() {
    local seed=$TEST_ROOT/$1.seed
    new_repo "$seed"
    commit_file "$seed" a.txt "a"
    "$GIT" init -q --bare "$TEST_ROOT/$1.origin"
    "$GIT" -C "$seed" push -q "$TEST_ROOT/$1.origin" main
    "$GIT" clone -q "$TEST_ROOT/$1.origin" "$TEST_ROOT/$1"
    rm -rf "$seed"
}

# unique_commit REPO NAME [BASE]: prints a new commit on BASE (default main) adding
# NAME.txt, made with plumbing (no checkout, no ref update).
unique_commit() {
    local repo=$1 name=$2 base=${3:-main} index=$TEST_ROOT/.tmp-index blob tree
    rm -f "$index"
    GIT_INDEX_FILE=$index "$GIT" -C "$repo" read-tree "$base"
    blob=$(printf 'work on %s\n' "$name" | "$GIT" -C "$repo" hash-object -w --stdin)
    GIT_INDEX_FILE=$index "$GIT" -C "$repo" update-index --add --cacheinfo "100644,$blob,$(echo "$name" | tr / -).txt"
    tree=$(GIT_INDEX_FILE=$index "$GIT" -C "$repo" write-tree)
    rm -f "$index"
    "$GIT" -C "$repo" commit-tree "$tree" -p "$base" -m "work on $name"
}

# unpushed REPO NAME [BASE]: creates branch NAME holding one commit found nowhere else.
unpushed() {
    "$GIT" -C "$1" branch "$2" "$(unique_commit "$1" "$2" "${3:-main}")"
}

# stranded REPO [PREFIX]: the stranded branches (short names) under PREFIX.
stranded() {
    "$GIT" -C "$1" for-each-ref --format='%(refname:short)' "refs/heads/stranded/${2:-}"
}

count() {
    if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | grep -c .; fi
}

# expect_saved_once WHAT BRANCH TIP: exactly one stranded/BRANCH/<stamp>, at TIP.
expect_saved_once() {
    local refs
    refs=$(stranded "$REPO" "$2/" | grep -E "^stranded/$2/[0-9]{8}T[0-9.]+Z(-[0-9]+)?$")
    assert_eq 1 "$(count "$refs")" "$1: exactly one stranded branch for $2 (commits lost or saved twice otherwise)"
    assert_eq "$3" "$("$GIT" -C "$REPO" rev-parse "${refs:-none}" 2>/dev/null | head -1)" \
        "$1: the deleted branch's commit was lost, not saved (stranded/$2 is not at its tip)"
    assert_no_ref "$REPO" "refs/heads/$2" "$1: git deleted the branch"
}

# expect_no_save WHAT BEFORE: no stranded branch was added since BEFORE (a list).
expect_no_save() {
    assert_eq "$2" "$(stranded "$REPO")" "$1: no stranded branch is created"
}

make_clone repo
REPO=$TEST_ROOT/repo
"$GIT" -C "$REPO" config guard.enabled true
install_hook "$REPO"
CHAINED_LOG=$TEST_ROOT/chained.log
CHAINED_FAIL=$TEST_ROOT/chained.fail
write_recorder "$REPO/.git/hooks/reference-transaction.guard-chained" "$CHAINED_LOG" "$CHAINED_FAIL"
# Another clone, playing a colleague who pushes, rebases and squash-merges.
"$GIT" clone -q "$TEST_ROOT/repo.origin" "$TEST_ROOT/other"
OTHER=$TEST_ROOT/other
cd "$REPO" || exit 1

# --- branch -D -------------------------------------------------------------------------

section "git branch -D of an unpushed branch saves its tip"
unpushed "$REPO" feat
tip=$("$GIT" rev-parse feat)
run_cmd "$GIT" branch -D feat
assert_eq 0 "$RC" "branch -D succeeds"
assert_eq "Deleted branch feat (was ${tip:0:7})." "$OUT" "branch -D: stdout is git's own"
expect_saved_once "branch -D" feat "$tip"
assert_eq 1 "$(count "$ERR")" "branch -D: one stderr line"
assert_contains "$ERR" "$(stranded "$REPO" feat/)" "branch -D: the stderr line names the stranded branch"

section "a branch name with slashes keeps them: topic/x -> stranded/topic/x/<stamp>"
unpushed "$REPO" topic/x
tip=$("$GIT" rev-parse topic/x)
run_cmd "$GIT" branch -D topic/x
expect_saved_once "branch -D topic/x" topic/x "$tip"

# --- published history ---------------------------------------------------------------

section "a pushed branch leaves no stranded branch"
before=$(stranded "$REPO")
unpushed "$REPO" pushed
"$GIT" push -q origin pushed
run_cmd "$GIT" branch -D pushed
assert_eq 0 "$RC" "branch -D of a pushed branch succeeds"
assert_eq "" "$ERR" "branch -D of a pushed branch: stderr is git's own (empty)"
expect_no_save "pushed branch" "$before"

section "a branch rebased and force-pushed by someone else leaves no stranded branch"
unpushed "$REPO" rb
"$GIT" push -q -u origin rb
"$GIT" -C "$OTHER" fetch -q origin
commit_file "$OTHER" main2.txt "main moves on" "main moves on"
"$GIT" -C "$OTHER" push -q origin main
"$GIT" -C "$OTHER" checkout -q -b rb origin/rb
"$GIT" -C "$OTHER" rebase -q main
"$GIT" -C "$OTHER" push -q --force origin rb
"$GIT" -C "$OTHER" checkout -q main
"$GIT" fetch -q origin
assert_ne "$("$GIT" rev-parse rb)" "$("$GIT" rev-parse origin/rb)" "rb's local tip is the pre-rebase commit"
assert_eq "" "$("$GIT" branch -r --contains rb)" "rb's local tip is on no remote branch"
before=$(stranded "$REPO")
run_cmd "$GIT" branch -D rb
assert_eq 0 "$RC" "branch -D of the rebased branch succeeds"
expect_no_save "rebased and force-pushed (old local tip)" "$before"

section "a branch rebased locally and force-pushed leaves no stranded branch"
unpushed "$REPO" rb2 origin/main~1
"$GIT" push -q -u origin rb2
"$GIT" worktree add -q "$TEST_ROOT/rb2-tree" rb2
"$GIT" -C "$TEST_ROOT/rb2-tree" rebase -q origin/main
"$GIT" -C "$TEST_ROOT/rb2-tree" push -q --force origin rb2
"$GIT" worktree remove "$TEST_ROOT/rb2-tree"
before=$(stranded "$REPO")
run_cmd "$GIT" branch -D rb2
expect_no_save "rebased and force-pushed (own rebase)" "$before"

section "a branch squash-merged into origin/main, then deleted from origin, leaves no stranded branch"
"$GIT" branch sq "$(unique_commit "$REPO" sq1 "$(unique_commit "$REPO" sq0)")"
"$GIT" push -q -u origin sq
"$GIT" -C "$OTHER" pull -q --ff-only origin main
"$GIT" -C "$OTHER" fetch -q origin
"$GIT" -C "$OTHER" merge -q --squash origin/sq >/dev/null 2>&1
"$GIT" -C "$OTHER" commit -q -m "squash of sq"
"$GIT" -C "$OTHER" push -q origin main :sq
"$GIT" fetch -q --prune origin
assert_no_ref "$REPO" refs/remotes/origin/sq "origin/sq is gone after fetch --prune"
assert_eq "" "$("$GIT" branch -r --contains sq)" "sq's commits are on no remote branch (only squashed)"
before=$(stranded "$REPO")
run_cmd "$GIT" branch -D sq
assert_eq 0 "$RC" "branch -D of the squash-merged branch succeeds"
expect_no_save "squash-merged" "$before"

# --- every way to delete saves exactly once -------------------------------------------

section "git update-ref -d saves exactly once"
unpushed "$REPO" u1
tip=$("$GIT" rev-parse u1)
run_cmd "$GIT" update-ref -d refs/heads/u1
assert_eq 0 "$RC" "update-ref -d succeeds"
expect_saved_once "update-ref -d" u1 "$tip"

section "update-ref --stdin deleting a branch whose commit object is gone, beside an unpushed one"
# The refs listing names the broken branch's old value; the walk then finds the object
# gone, asks which tips are missing, and walks again: the unpushed branch is still saved.
unpushed "$REPO" beside
tip=$("$GIT" rev-parse beside)
broken=$("$GIT" commit-tree -p HEAD -m "object to be lost" "HEAD^{tree}")
"$GIT" update-ref refs/heads/broken "$broken"
rm -f ".git/objects/${broken:0:2}/${broken:2}"
run_cmd "$GIT" update-ref --stdin <<<"$(printf 'delete refs/heads/broken\ndelete refs/heads/beside')"
assert_eq 0 "$RC" "deleting a broken branch beside an unpushed one succeeds: $ERR"
expect_saved_once "a deletion beside a branch whose object is gone" beside "$tip"
assert_no_ref "$REPO" refs/heads/broken "git deleted the broken branch"
printf '%s\n' "$broken" >.git/refs/heads/broken2 # git refuses to name a missing object itself
run_cmd "$GIT" branch -D broken2
assert_not_contains "$ERR" "git-guard" "a branch whose tip object is gone: git-guard added words to git's stderr"

section "git update-ref --stdin deleting two branches in one transaction saves each once"
unpushed "$REPO" u2
unpushed "$REPO" u3 u2 # u3 holds u2's commit too: refs the transaction deletes are no holders
tip2=$("$GIT" rev-parse u2)
tip3=$("$GIT" rev-parse u3)
printf 'delete refs/heads/u2\ndelete refs/heads/u3\n' >"$TEST_ROOT/stdin"
run_cmd "$GIT" update-ref --stdin <"$TEST_ROOT/stdin"
assert_eq 0 "$RC" "update-ref --stdin succeeds"
expect_saved_once "update-ref --stdin (first)" u2 "$tip2"
expect_saved_once "update-ref --stdin (second)" u3 "$tip3"

section "git update-ref --stdin: a branch the same transaction creates holds the commits"
unpushed "$REPO" u4
tip=$("$GIT" rev-parse u4)
before=$(stranded "$REPO")
printf 'create refs/heads/u4-new %s\ndelete refs/heads/u4\n' "$tip" >"$TEST_ROOT/stdin"
run_cmd "$GIT" update-ref --stdin <"$TEST_ROOT/stdin"
assert_eq 0 "$RC" "update-ref --stdin (create + delete) succeeds"
expect_no_save "delete with the commits moved to a new branch in the same transaction" "$before"
assert_eq "$tip" "$("$GIT" rev-parse u4-new)" "the created branch holds the tip"

section "git push . :feat saves exactly once"
unpushed "$REPO" pf
tip=$("$GIT" rev-parse pf)
run_cmd "$GIT" push -q . :pf
assert_eq 0 "$RC" "push . :pf succeeds"
expect_saved_once "push . :pf" pf "$tip"

section "deleting a packed branch saves exactly once"
unpushed "$REPO" pk
tip=$("$GIT" rev-parse pk)
before=$(stranded "$REPO")
"$GIT" pack-refs --all
expect_no_save "pack-refs --all" "$before"
assert_no_file "$REPO/.git/refs/heads/pk" "pk is packed (no loose file)"
run_cmd "$GIT" branch -D pk
assert_eq 0 "$RC" "branch -D of a packed branch succeeds"
expect_saved_once "branch -D of a packed branch" pk "$tip"

section "deleting a branch both packed and loose saves exactly once, at the loose tip"
unpushed "$REPO" pk2
"$GIT" pack-refs --all
"$GIT" update-ref refs/heads/pk2 "$(unique_commit "$REPO" pk2-more pk2)"
tip=$("$GIT" rev-parse pk2)
assert_file_exists "$REPO/.git/refs/heads/pk2" "pk2 has a loose copy over its packed one"
run_cmd "$GIT" update-ref -d refs/heads/pk2
expect_saved_once "update-ref -d of a packed+loose branch" pk2 "$tip"

# --- not deletions ----------------------------------------------------------------------

section "git branch -m saves nothing"
unpushed "$REPO" mv1
tip=$("$GIT" rev-parse mv1)
before=$(stranded "$REPO")
run_cmd "$GIT" branch -m mv1 mv1-renamed
assert_eq 0 "$RC" "branch -m succeeds"
assert_eq "" "$ERR" "branch -m: stderr is git's own (empty)"
expect_no_save "branch -m (loose)" "$before"
assert_eq "$tip" "$("$GIT" rev-parse mv1-renamed)" "the renamed branch keeps the tip"
"$GIT" pack-refs --all
run_cmd "$GIT" branch -m mv1-renamed mv1-again
expect_no_save "branch -m (packed)" "$before"
unpushed "$REPO" mv2
rm -f "$REPO/.git/logs/refs/heads/mv2"
run_cmd "$GIT" branch -m mv2 mv2-renamed
assert_eq 0 "$RC" "branch -m of a branch without a reflog succeeds"
expect_no_save "branch -m of a branch without a reflog" "$before"
unpushed "$REPO" mv3
run_cmd "$GIT" -c core.logAllRefUpdates=false branch -M mv3 mv3-renamed
expect_no_save "branch -M with core.logAllRefUpdates=false" "$before"
"$GIT" config alias.rn "branch -m"
unpushed "$REPO" mv4
rm -f "$REPO/.git/logs/refs/heads/mv4"
run_cmd "$GIT" rn mv4 mv4-renamed
expect_no_save "an alias for branch -m, of a branch without a reflog" "$before"

section "git branch -M over an existing branch saves the branch it overwrites"
# The rename deletes the old name (no loss) and the overwritten target (a loss).
# expect_overwrite_saved WHAT DST SRC [GIT OPTIONS...]
expect_overwrite_saved() {
    local what=$1 dst=$2 src=$3 tip saved
    shift 3
    unpushed "$REPO" "$dst"
    tip=$("$GIT" rev-parse "$dst")
    "$GIT" branch "$src" main
    run_cmd "$GIT" "$@" branch -M "$src" "$dst"
    assert_eq 0 "$RC" "$what: branch -M succeeds"
    saved=$(stranded "$REPO" "$dst/")
    assert_eq 1 "$(count "$saved")" "$what: the overwritten branch's commits were lost, not saved"
    assert_eq "$tip" "$("$GIT" rev-parse "${saved:-none}" 2>/dev/null | head -1)" \
        "$what: stranded/$dst is not at the overwritten tip"
    assert_eq "" "$(stranded "$REPO" "$src/")" "$what: the renamed branch was saved, though it lives on"
}
expect_overwrite_saved "-M over a branch, with reflogs" ow1 ow1-src
rm -rf "$REPO/.git/logs/refs/heads"
expect_overwrite_saved "-M over a branch, without reflogs" ow2 ow2-src -c core.logAllRefUpdates=false

section "a stale .tmp-renamed-log (a rename that crashed) does not switch the guard off"
unpushed "$REPO" after-crash
tip=$("$GIT" rev-parse after-crash)
mkdir -p "$REPO/.git/logs/refs"
printf '%s %s X <x@y> 1700000000 +0000\tbranch: renamed\n' "$ZERO" "$tip" >"$REPO/.git/logs/refs/.tmp-renamed-log"
run_cmd "$GIT" branch -D after-crash
expect_saved_once "branch -D while a stale .tmp-renamed-log lies around" after-crash "$tip"
rm -f "$REPO/.git/logs/refs/.tmp-renamed-log"

section "git pack-refs --all, git gc and the automatic gc save nothing"
for b in g1 g2 g3; do unpushed "$REPO" "$b"; done
g1_tip=$("$GIT" rev-parse g1)
before=$(stranded "$REPO")
: >"$CHAINED_LOG"
run_cmd "$GIT" pack-refs --all
assert_eq 0 "$RC" "pack-refs --all succeeds"
expect_no_save "pack-refs --all" "$before"
assert_contains "$(cat "$CHAINED_LOG")" "== prepared
$g1_tip $ZERO refs/heads/g1" "pack-refs really showed the hook g1's pruning as a deletion (the test is not vacuous)"
for b in g4 g5; do unpushed "$REPO" "$b"; done
run_cmd "$GIT" gc -q
assert_eq 0 "$RC" "gc succeeds"
expect_no_save "git gc" "$before"
assert_no_file "$REPO/.git/refs/heads/g4" "git gc packed g4"
# The automatic gc, from a commit: 2 packs > gc.autoPackLimit=1 makes `git gc --auto` run.
# Newer git (2.4x+) packs refs in an automatic gc only past a number of loose refs, and
# 2.5x's automatic maintenance needs the gc strategy: give it both (2.39 ignores them).
pad_loose_refs() {
    local i
    for ((i = 0; i < 40; i++)); do echo "update refs/tags/pad-$1-$i HEAD"; done | "$GIT" update-ref --stdin
}
unpushed "$REPO" g6
"$GIT" repack -q
pad_loose_refs g6
packs=$(ls "$REPO"/.git/objects/pack/*.pack | grep -c .)
[ "$packs" -ge 2 ] && pass "$packs packs: the automatic gc has a reason to run" || fail "only $packs pack: the automatic gc would not run"
run_cmd "$GIT" -c maintenance.auto=true -c maintenance.strategy=gc -c gc.auto=1 -c gc.autoPackLimit=1 \
    -c gc.autoDetach=false -c maintenance.autoDetach=false \
    commit -q --allow-empty -m "a commit that triggers the automatic gc"
assert_eq 0 "$RC" "the commit with the automatic gc succeeds ($ERR)"
assert_no_file "$REPO/.git/refs/heads/g6" "the automatic gc ran and packed g6"
expect_no_save "automatic gc after a commit" "$before"
unpushed "$REPO" g7
"$GIT" repack -q
pad_loose_refs g7
run_cmd "$GIT" -c gc.auto=1 -c gc.autoPackLimit=1 gc --auto
assert_no_file "$REPO/.git/refs/heads/g7" "gc --auto ran and packed g7"
expect_no_save "git gc --auto" "$before"
"$GIT" reset -q --hard origin/main

section "afterwards, branch -D of a branch living only in packed-refs still saves"
assert_no_file "$REPO/.git/refs/heads/g1" "g1 has no loose file"
grep -q " refs/heads/g1$" "$REPO/.git/packed-refs" && pass "g1 lives in packed-refs" || fail "g1 is not in packed-refs"
run_cmd "$GIT" branch -D g1
expect_saved_once "branch -D of a branch only in packed-refs" g1 "$g1_tip"
g7_tip=$("$GIT" rev-parse g7)
run_cmd "$GIT" update-ref -d refs/heads/g7
expect_saved_once "update-ref -d of a branch packed by gc --auto" g7 "$g7_tip"

# --- stranded branches are protected ---------------------------------------------------

section "stranded branches are protected; git guard drop lets one go"
victim=$(stranded "$REPO" feat/ | head -1)
victim_tip=$("$GIT" rev-parse "$victim")
before=$(stranded "$REPO")
run_cmd "$GIT" branch -D "$victim"
assert_ne 0 "$RC" "branch -D of a stranded branch is refused"
assert_eq "$victim_tip" "$("$GIT" rev-parse "$victim" 2>&1)" "the refused branch -D destroyed the stranded branch"
assert_contains "$ERR" "git guard drop" "the refusal names 'git guard drop'"
run_cmd "$GIT" update-ref -d "refs/heads/$victim"
assert_ne 0 "$RC" "update-ref -d of a stranded branch is refused"
assert_eq "$victim_tip" "$("$GIT" rev-parse "$victim" 2>&1)" "the refused update-ref -d destroyed the stranded branch"
expect_no_save "refused deletions of a stranded branch" "$before"
"$GIT" branch stranded/dup/copy main
run_cmd "$GIT" branch -D stranded/dup/copy
assert_eq 0 "$RC" "a stranded branch whose commits are elsewhere may be deleted ($ERR)"
run_cmd env PATH="$GUARD_BIN_DIR:$PATH" "$GIT" guard drop "$victim"
assert_eq 0 "$RC" "git guard drop succeeds ($ERR)"
assert_no_ref "$REPO" "refs/heads/$victim" "git guard drop deleted the stranded branch"
assert_eq "$(printf '%s\n' "$before" | grep -vx "$victim")" "$(stranded "$REPO")" \
    "git guard drop saved nothing new"

# --- garbage in, exit 0 ---------------------------------------------------------------

section "garbage on the hook's stdin and unknown states exit 0"
HOOK=$REPO/.git/hooks/reference-transaction
before=$(stranded "$REPO")
unpushed "$REPO" keep
keep_tip=$("$GIT" rev-parse keep)
# feed NAME STATE FILE: runs the installed hook and the full binary on FILE.
feed() {
    local rc1 rc2
    (cd "$REPO" && timeout 20 "$HOOK" "$2" <"$3" >/dev/null 2>"$TEST_ROOT/feed.err")
    rc1=$?
    (cd "$REPO" && timeout 20 "$GUARD" hook reference-transaction "$2" <"$3" >/dev/null 2>>"$TEST_ROOT/feed.err")
    rc2=$?
    assert_eq "0 0" "$rc1 $rc2" "$1 ($2): the hook and git-guard exit 0 $(head -c 200 "$TEST_ROOT/feed.err")"
    assert_eq "$before" "$(stranded "$REPO")" "$1 ($2): no stranded branch is created"
}
G=$TEST_ROOT/garbage
mkdir -p "$G"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import random,sys; random.seed(20240101); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(200000)))' >"$G/random"
else
    for i in $(seq 1 2000); do printf '%s' "$i" | sha256sum; done | xxd -r -p >"$G/random"
fi
head -c 3000000 /dev/zero | tr '\0' a >"$G/huge-line"
{ printf '%s %s refs/heads/' "$ZERO" "$ZERO"; head -c 1000000 /dev/zero | tr '\0' b; echo; } >"$G/huge-ref"
printf 'xyz %s refs/heads/keep\n%s zzzz refs/heads/keep\n%s %s refs/heads/keep\n' "$ZERO" "$keep_tip" "${keep_tip:0:20}" "${ZERO:0:20}" >"$G/bad-oids"
printf '%s %s\n%s\n\n   \n%s %s refs/heads/\n' "$keep_tip" "$ZERO" "$keep_tip" "$keep_tip" "$ZERO" >"$G/missing-fields"
printf '%s %s refs/heads/does-not-exist\n' "$ZERO" "$ZERO" >"$G/no-such-branch"
printf 'ref:refs/heads/main %s refs/heads/symref\nref:refs/heads/main ref:refs/heads/keep HEAD\n' "$ZERO" >"$G/symref"
printf '%s %s refs/tags/v1\n%s %s refs/remotes/origin/x\n' "$keep_tip" "$ZERO" "$keep_tip" "$ZERO" >"$G/not-branches"
printf '\0\0\0%s %s refs/heads/keep\0\n' "$keep_tip" "$ZERO" >"$G/nul-bytes"
for f in random huge-line huge-ref bad-oids missing-fields no-such-branch symref not-branches nul-bytes; do
    feed "$f" prepared "$G/$f"
done
printf '%s %s refs/heads/keep\n' "$keep_tip" "$ZERO" >"$G/deletes-keep"
for state in preparing committed aborted bogus ""; do
    feed "a deletion in an unknown or later state" "$state" "$G/deletes-keep"
done
(cd "$REPO" && "$HOOK" </dev/null >/dev/null 2>&1)
assert_eq 0 "$?" "the hook with no state at all exits 0"
expect_no_save "garbage and states other than prepared" "$before"
assert_eq "$keep_tip" "$("$GIT" rev-parse keep)" "the hook runs left branch keep alone"

# --- a previously installed hook --------------------------------------------------------

section "a hook moved to reference-transaction.guard-chained runs with identical stdin; its status counts"
make_clone chain
make_clone twin
CH=$TEST_ROOT/chain
TW=$TEST_ROOT/twin
"$GIT" -C "$CH" config guard.enabled true
install_hook "$CH"
write_recorder "$CH/.git/hooks/reference-transaction.guard-chained" "$TEST_ROOT/chain.log" "$TEST_ROOT/chain.fail"
write_recorder "$TW/.git/hooks/reference-transaction" "$TEST_ROOT/twin.log" "$TEST_ROOT/twin.fail"
for r in "$CH" "$TW"; do
    (
        cd "$r" || exit 1
        # Saves add refs the twin lacks, which a later pack-refs would show: save last.
        "$GIT" branch c3 main
        "$GIT" branch -m c3 c4
        "$GIT" commit -q --allow-empty -m "a commit"
        unpushed "$r" c1
        unpushed "$r" c2
        unpushed "$r" c5
        "$GIT" pack-refs --all
        "$GIT" branch -D c1 >/dev/null 2>&1
        printf 'delete refs/heads/c2\ndelete refs/heads/c5\n' | "$GIT" update-ref --stdin 2>/dev/null
    )
done
assert_same_file "$TEST_ROOT/twin.log" "$TEST_ROOT/chain.log" \
    "the chained hook saw exactly what a plain hook sees, every state, every line"
assert_eq 3 "$(count "$(stranded "$CH")")" "with a chained hook, the guard still saved c1, c2 and c5 (one each)"
unpushed "$CH" d1
d1_tip=$("$GIT" -C "$CH" rev-parse d1)
touch "$TEST_ROOT/chain.fail"
run_cmd "$GIT" -C "$CH" branch blocked main
assert_ne 0 "$RC" "the chained hook's refusal of a creation fails the command"
assert_no_ref "$CH" refs/heads/blocked "the chained hook's refusal kept the branch from being created"
run_cmd "$GIT" -C "$CH" branch -D d1
assert_ne 0 "$RC" "the chained hook's refusal of a deletion fails branch -D"
assert_eq "$d1_tip" "$("$GIT" -C "$CH" rev-parse d1 2>&1)" "the chained hook's refusal keeps the branch"
rm -f "$TEST_ROOT/chain.fail"

# --- control ---------------------------------------------------------------------------

section "control: without git-guard, branch -D loses the commit"
unpushed "$TW" lost
lost=$("$GIT" -C "$TW" rev-parse lost)
"$GIT" -C "$TW" branch -D lost >/dev/null
assert_eq "" "$("$GIT" -C "$TW" for-each-ref --contains "$lost")" \
    "control: in an unguarded repository the deleted branch's commit is on no ref any more"

finish
