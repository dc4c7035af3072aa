#!/usr/bin/env bash
# The hook at scale and at its bound: 1,000 branches in one `branch -D` (a clone, with
# origin/HEAD) are all checked and saved in one pass; guard.hookTimeout saves without
# checking once it has passed; a chained hook that rejects after our save leaves the save;
# the `preparing` state saves nothing.
# The hook is placed as C5 says: a link to git-guard-hook, started by git directly.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GIT=$REAL_GIT
ZERO=0000000000000000000000000000000000000000

# install_c5 REPO_GIT_DIR: the hook as install places it (C5), and guard.enabled.
install_c5() {
    ln -sf "$GUARD_BIN_DIR/git-guard-hook" "$1/hooks/reference-transaction"
    "$GIT" --git-dir="$1" config guard.enabled true
}

# many_branches REPO PREFIX N: N branches PREFIX<i>, each one unique commit on main.
many_branches() {
    local i mark=1 base
    base=$("$GIT" -C "$1" rev-parse main)
    {
        for ((i = 0; i < $3; i++)); do
            printf 'commit refs/heads/%s%d\nmark :%d\ncommitter T <t@e> 1700000000 +0000\n' "$2" "$i" "$mark"
            printf 'data %d\n%s\nfrom %s\nM 644 inline f%d\ndata 2\n%d\n\n' \
                $((${#2} + ${#i})) "$2$i" "$base" "$i" $((i % 10))
            mark=$((mark + 1))
        done
    } | "$GIT" -C "$1" fast-import --quiet
}

# stranded_count REPO [PREFIX]: how many saves of branches whose name starts with PREFIX.
stranded_count() {
    "$GIT" -C "$1" for-each-ref --format='%(refname)' refs/heads/stranded/ |
        grep -c "^refs/heads/stranded/${2:-}" || true
}

# deleted_under_limit PREFIX N LIMIT WHAT: N branches PREFIX<i> deleted in one `branch -D`
# run under `ulimit LIMIT` (WHAT names it); every tip must be saved, each once.
deleted_under_limit() {
    local prefix=$1 n=$2 limit=$3 what=$4
    many_branches "$REPO" "$prefix" "$n"
    "$GIT" -C "$REPO" config guard.keepBranches 5000 # every save stays a ref, to be listed below
    "$GIT" -C "$REPO" for-each-ref --format='%(refname:short) %(objectname)' "refs/heads/$prefix*" | sort >"$TEST_ROOT/$prefix.tips"
    # shellcheck disable=SC2046
    run_cmd bash -c "ulimit $limit && exec \"\$@\"" _ "$GIT" -C "$REPO" branch -D $("$GIT" -C "$REPO" for-each-ref --format='%(refname:short)' "refs/heads/$prefix*")
    assert_eq 0 "$RC" "branch -D of $n branches under $what failed: $ERR"
    "$GIT" -C "$REPO" for-each-ref --format='%(refname:short) %(objectname)' refs/heads/stranded/ |
        sed -E 's|^stranded/([^/]+)/[^ ]+ |\1 |' | grep "^$prefix" | sort >"$TEST_ROOT/$prefix.saved"
    assert_same_file "$TEST_ROOT/$prefix.tips" "$TEST_ROOT/$prefix.saved" "under $what, a deleted branch was not saved (a missing line is a lost branch)"
    "$GIT" -C "$REPO" config --unset guard.keepBranches
}

make_clone batch
REPO=$TEST_ROOT/batch
install_c5 "$REPO/.git"

N=${GUARD_BATCH_BRANCHES:-1000}
section "$N branches deleted in one 'git branch -D' with origin/HEAD: one pass, every tip checked and saved in time"
# Issue 35 item 2: with origin/HEAD (any clone) every deleted branch is asked whether its
# upstream holds it; asked once per transaction, not twice per branch, so the default
# guard.hookTimeout is never reached (505b921 saved 104-167 of 1,000 unchecked).
assert_ne "" "$("$GIT" -C "$REPO" rev-parse -q --verify refs/remotes/origin/HEAD)" "the clone has origin/HEAD"
many_branches "$REPO" b "$N"
# Every save stays a ref here, to be listed below (folding them is mass_delete.sh's).
"$GIT" -C "$REPO" config guard.keepBranches $((N * 2))
names=$("$GIT" -C "$REPO" for-each-ref --format='%(refname:short)' 'refs/heads/b*')
"$GIT" -C "$REPO" for-each-ref --format='%(refname:short) %(objectname)' 'refs/heads/b*' | sort >"$TEST_ROOT/tips"
assert_eq "$N" "$(wc -l <"$TEST_ROOT/tips")" "$N branches to delete"
start=$(date +%s%N)
# shellcheck disable=SC2086
run_cmd "$GIT" -C "$REPO" branch -D $names
ms=$((($(date +%s%N) - start) / 1000000))
printf '  info branch -D of %d branches took %d ms with the guard (not asserted)\n' "$N" "$ms"
assert_eq 0 "$RC" "branch -D of $N branches succeeds"
assert_not_contains "$ERR" "hookTimeout" "the default guard.hookTimeout ran out: some of the $N branches were saved without their published check"
assert_eq 1 "$(printf '%s\n' "$ERR" | grep -c '^git-guard: saved')" "one summary line for $N branches, not one per branch: $(head -3 <<<"$ERR")"
assert_contains "$ERR" "git-guard: saved $N deleted branches" "the summary line does not count the $N branches"
assert_eq "$N" "$("$GUARD_BIN_DIR/git-guard" -C "$REPO" log --json | grep -c '"reason":"branch delete"')" "the journal does not record each of the $N saves"
"$GIT" -C "$REPO" for-each-ref --format='%(refname:short) %(objectname)' refs/heads/stranded/ |
    sed -E 's|^stranded/([^/]+)/[^ ]+ |\1 |' | grep '^b' | sort >"$TEST_ROOT/saved"
assert_same_file "$TEST_ROOT/tips" "$TEST_ROOT/saved" "every one of the $N tips was saved once, at its tip (a missing line is a lost branch)"
assert_eq 0 "$("$GIT" -C "$REPO" for-each-ref 'refs/heads/b*' | grep -c . || true)" "git deleted all $N"
"$GIT" -C "$REPO" config --unset guard.keepBranches

section "input past one page where no address range can be reserved: every branch still saved"
# The hook front end reads input past 4 KB into an address range reserved once (4 GiB,
# no memory until used); under an address-space limit that refuses it, the buffer grows
# by doubling instead. 100 deletions are about 10 KB of input.
deleted_under_limit v 100 "-v 3000000" "a 3 GB address-space limit"

section "under a low open-files limit: every branch of a bulk deletion still saved"
# The hook holds one lock (an open descriptor) per ref of a batch across its saves: the
# batch shrinks to fit the limit, or the saves of a 300-branch deletion would fail and
# the deletion be refused.
deleted_under_limit n 300 "-n 100" "an open-files limit of 100"
assert_not_contains "$ERR" "Too many open files" "the hook ran out of descriptors"

section "published branches among many: only the unpublished are saved"
many_branches "$REPO" p 20
for i in 0 1 2 3 4; do "$GIT" -C "$REPO" push -q origin "p$i"; done
"$GIT" -C "$REPO" fetch -q origin
before=$(stranded_count "$REPO")
run_cmd "$GIT" -C "$REPO" branch -D $("$GIT" -C "$REPO" for-each-ref --format='%(refname:short)' 'refs/heads/p*')
assert_eq 0 "$RC" "branch -D of 20 branches, 5 pushed, succeeds"
assert_eq 15 $(($(stranded_count "$REPO") - before)) "the 15 unpushed were saved and the 5 pushed were not"

section "guard.hookTimeout: past the bound, every tip is saved unchecked, and stderr says so"
"$GIT" -C "$REPO" config guard.hookTimeout 0
"$GIT" -C "$REPO" branch pushed-late origin/main
many_branches "$REPO" t 3
run_cmd "$GIT" -C "$REPO" branch -D pushed-late t0 t1 t2
assert_eq 0 "$RC" "branch -D with guard.hookTimeout=0 succeeds"
assert_contains "$ERR" "guard.hookTimeout (0s) passed" "stderr says the bound passed"
assert_eq 3 "$(stranded_count "$REPO" t)" "the unpushed t0..t2 were saved, unchecked"
"$GIT" -C "$REPO" config --unset guard.hookTimeout
run_cmd "$GIT" -C "$REPO" branch -D nothing-here
assert_ne 0 "$RC" "deleting a branch that does not exist fails as git fails"
assert_not_contains "$ERR" "hookTimeout" "the default bound does not trip in normal use"

section "a chained hook that rejects after our save: the branch stays, and so does the save"
many_branches "$REPO" r 1
cat >"$REPO/.git/hooks/reference-transaction.guard-chained" <<'EOF'
#!/bin/sh
cat >/dev/null
[ "$1" = prepared ] && { echo "policy says no" >&2; exit 1; }
exit 0
EOF
chmod +x "$REPO/.git/hooks/reference-transaction.guard-chained"
run_cmd "$GIT" -C "$REPO" branch -D r0
assert_ne 0 "$RC" "the chained hook's rejection fails branch -D"
assert_contains "$ERR" "policy says no" "the chained hook's message reaches the user"
assert_ref_exists "$REPO" refs/heads/r0 "the rejected deletion kept r0"
assert_eq 1 "$(stranded_count "$REPO" r0/)" "the save made before the rejection stays (README says so)"
rm "$REPO/.git/hooks/reference-transaction.guard-chained"

section "the 'preparing' state (git 2.54) saves nothing; prepared saves once"
many_branches "$REPO" s 1
s0=$("$GIT" -C "$REPO" rev-parse s0)
(cd "$REPO" && printf '%s %s refs/heads/s0\n' "$s0" "$ZERO" | .git/hooks/reference-transaction preparing)
assert_eq "0:0" "$?:$(stranded_count "$REPO" s0/)" "preparing: exit 0 and no save"
run_cmd "$GIT" -C "$REPO" branch -D s0
assert_eq "0:1" "$RC:$(stranded_count "$REPO" s0/)" "branch -D ($("$GIT" version)): saved exactly once"

finish
