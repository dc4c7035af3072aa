#!/usr/bin/env bash
# The folded saves' history in a kept pack (issue 35 item 4): a fold that leaves the
# chains reaching 2,000 commits or more outside our kept pack packs everything they reach
# into one pack with a `.keep` naming the chain tips, so `git gc` stops rewriting it. A kept
# pack never keeps what gc would prune: one whose tips the chains no longer all reach loses
# its `.keep` before gc runs through the shim. Every save stays reachable, listed and
# restorable; gc, prune and fsck work.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GUARD=$GUARD_BIN_DIR/git-guard
R=$TEST_ROOT/repo
N=1100 # per kind: with their links the chains reach about 4,400 commits

ours() { grep -l '^git-guard folded saves' "$R"/.git/objects/pack/*.keep 2>/dev/null; }
count() { printf '%s' "$1" | grep -c . || true; }

make_clone repo
git_real -C "$R" config guard.enabled true
install_hook "$R"
HEAD_ID=$(git_real -C "$R" rev-parse HEAD)
# Saves of the product's shape, written with hooks off (fast): branch saves with a file of
# their own, in-place saves of a.txt, 10 trees and 10 branches in turn.
{
    for i in $(seq 1 $N); do
        stamp=$(printf '20240101T%02d%02d%02d.%03dZ' $((i / 3600 % 24)) $((i / 60 % 60)) $((i % 60)) $((i % 1000)))
        msg="work on b$((i % 10)), $i"
        printf 'commit refs/heads/stranded/b%d/%s\ncommitter x <x@y> %d +0000\ndata %d\n%s\nfrom %s\n' \
            $((i % 10)) "$stamp" $((1700000000 + i)) ${#msg} "$msg" "$HEAD_ID"
        body="branch work $i"
        printf 'M 100644 inline b.txt\ndata %d\n%s\n\n' ${#body} "$body"
        msg="stranded: what reset --hard destroyed in $R (main)

Held 1 path(s): a.txt.

Stranded-Layout: 2
Stranded-Index: head
Stranded-Scope: destroyed
Stranded-From: $R
Stranded-Branch: main
Stranded-Head: $HEAD_ID
Stranded-Reason: reset --hard"
        printf 'commit refs/stranded/t%d/%s\ncommitter x <x@y> %d +0000\ndata %d\n%s\nfrom %s\n' \
            $((i % 10)) "$stamp" $((1700000000 + i)) ${#msg} "$msg" "$HEAD_ID"
        body="in-place work $i"
        printf 'M 100644 inline a.txt\ndata %d\n%s\n\n' ${#body} "$body"
    done
} | git_real -C "$R" -c core.hooksPath=/dev/null fast-import --quiet
for i in $(seq 1 $N); do printf 'branch work %s\nin-place work %s\n' "$i" "$i"; done >"$TEST_ROOT/texts"
python3 - "$TEST_ROOT/texts" <<'EOF' | sort -u >"$TEST_ROOT/blobs"
import hashlib, sys
for line in open(sys.argv[1], "rb"):
    text = line.rstrip(b"\n") # the stream's files end without a newline
    print(hashlib.sha1(b"blob %d\0" % len(text) + text).hexdigest())
EOF
reached() { git_real -C "$R" rev-list --objects --all | cut -d' ' -f1 | sort -u | comm -12 - "$TEST_ROOT/blobs" | grep -c .; }

section "a fold of $((2 * N)) saves keeps the chains' history in one kept pack"
# A size limit would split it: the kept pack replaces the one before it whole, so it is one.
git_real -C "$R" config pack.packSizeLimit 1m
run_cmd "$GUARD" -C "$R" fold
assert_eq 0 "$RC" "git guard fold succeeds: $ERR"
KEEP=$(ours)
assert_eq 1 "$(count "$KEEP")" "the fold left one kept pack of the chains' history (none: gc rewrites it every time)"
PACK=${KEEP%.keep}.pack
TIPS=$(git_real -C "$R" for-each-ref --format='%(objectname)' refs/stranded/chain/ | sort)
assert_eq "$TIPS" "$(tail -n +2 "$KEEP" | sort)" "the .keep names the chain tips the pack was made from"
MISSING=$(git_real -C "$R" rev-list --objects $TIPS | cut -d' ' -f1 | sort -u |
    comm -23 - <(git_real show-index <"${KEEP%.keep}.idx" | cut -d' ' -f2 | sort -u) | head -3)
assert_eq "" "$MISSING" "every object the chains reach is in the kept pack"

section "gc through the shim leaves the kept pack as it is; nothing is lost"
shim_on
run_cmd git -C "$R" gc -q
assert_eq 0 "$RC" "gc through the shim succeeds: $ERR"
shim_off
assert_file_exists "$PACK" "gc left the kept pack in place"
assert_eq "$KEEP" "$(ours)" "gc kept the pack and its .keep"
run_cmd git_real -C "$R" prune --expire=now
assert_eq 0 "$RC" "prune succeeds: $ERR"
run_cmd git_real -C "$R" fsck --no-dangling --connectivity-only
assert_eq 0 "$RC" "git fsck passes with the kept pack: $ERR"
assert_eq $((2 * N)) "$(reached)" "every save's content is reachable after gc and prune (a save was lost)"
assert_eq $((2 * N)) "$("$GUARD" -C "$R" list --all --json | grep -c '"ref"')" "every save is listed once"
B1=$("$GUARD" -C "$R" list --json | grep -o '"ref":"refs/heads/stranded/b1/20240101T000001.001Z"' | cut -d'"' -f4)
assert_ne "" "$B1" "the first branch save is listed (folded)"
assert_eq "" "$(git_real -C "$R" for-each-ref "$B1")" "the first branch save is folded (no ref left)"
run_cmd "$GUARD" -C "$R" restore "$B1"
assert_eq 0 "$RC" "restore takes a folded save from the kept pack: $ERR"
assert_eq "branch work 1" "$(git_real -C "$R" show b1:b.txt 2>/dev/null)" "the folded branch comes back at its tip"

section "a fold below the batch writes no new kept pack"
for i in 1 2 3; do
    c=$(printf 'late %s\n' "$i" | git_real -C "$R" commit-tree "$(git_real -C "$R" rev-parse HEAD^{tree})" -p HEAD)
    git_real -C "$R" -c core.hooksPath=/dev/null update-ref "refs/heads/stranded/late/20250101T00000$i.000Z" "$c"
done
run_cmd "$GUARD" -C "$R" fold
assert_eq 0 "$RC" "git guard fold succeeds: $ERR"
assert_eq "$KEEP" "$(ours)" "three more folded saves leave the kept pack as it was"

section "a kept pack the chains no longer reach is released before gc"
assert_ne "" "$(git_real -C "$R" for-each-ref refs/stranded/chain/tree/t3)" "the chain of tree t3 is there"
git_real -C "$R" -c core.hooksPath=/dev/null update-ref -d refs/stranded/chain/tree/t3
shim_on
run_cmd git -C "$R" gc -q
assert_eq 0 "$RC" "gc through the shim succeeds after a chain went: $ERR"
shim_off
assert_eq "" "$(ours)" "the kept pack whose chain was deleted lost its .keep (gc could never prune that chain)"
run_cmd git_real -C "$R" fsck --no-dangling --connectivity-only
assert_eq 0 "$RC" "git fsck passes after the release: $ERR"
run_cmd "$GUARD" -C "$R" fold
assert_eq 0 "$RC" "git guard fold succeeds: $ERR"
assert_eq 1 "$(count "$(ours)")" "the next fold keeps the remaining chains' history again"

section "uninstall releases the kept pack; the saves stay"
run_cmd "$GUARD" -C "$R" install --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "git guard install succeeds: $ERR"
run_cmd "$GUARD" -C "$R" uninstall
assert_eq 0 "$RC" "git guard uninstall succeeds: $ERR"
assert_eq "" "$(ours)" "uninstall left the kept pack kept, with no guard left to release it"
assert_ne "" "$(git_real -C "$R" for-each-ref refs/stranded/chain/archive)" "uninstall keeps the chains"
finish
