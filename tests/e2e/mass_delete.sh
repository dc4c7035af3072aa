#!/usr/bin/env bash
# A fold never runs inside git's locks (issue 35 item 1). `git branch -D` holds
# packed-refs.lock through the whole deletion and runs our hook inside it, so a fold
# started there could never delete the names it folded: one `branch -D` of 40 unpushed
# branches with guard.keepBranches=10 left 40 stranded branches, and each later save
# linked the same saves onto the archive again. Now the fold waits, detached, for git's
# lock, and a save already linked is never linked twice.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/branch_fixtures.bash"

make_clone repo
REPO=$TEST_ROOT/repo
git_real -C "$REPO" config guard.enabled true
git_real -C "$REPO" config guard.keepBranches 10
install_hook "$REPO"
branches() { git_real -C "$REPO" for-each-ref --format=x refs/heads/stranded/ | wc -l; }
save_refs() { git_real -C "$REPO" for-each-ref --format=x refs/heads/stranded/ refs/stranded/ | wc -l; }
# within SECONDS CMD...: CMD succeeds within SECONDS (the detached fold runs after git's transaction).
within() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}
folded() { [ "$(branches)" -le 10 ]; }

section "one branch -D of 40 unpushed branches, keepBranches=10: bounded refs, every tip kept, each listed once"
names=()
for i in $(seq 1 40); do
    git_real -C "$REPO" branch "m$i" main
    blob=$(printf 'only on m%s\n' "$i" | git_real -C "$REPO" hash-object -w --stdin)
    tree=$(printf '100644 blob %s\tm%s.txt\n' "$blob" "$i" | git_real -C "$REPO" mktree)
    git_real -C "$REPO" update-ref "refs/heads/m$i" "$(git_real -C "$REPO" commit-tree -p main -m "work on m$i" "$tree")"
    names+=("m$i")
done
git_real -C "$REPO" for-each-ref --format='%(objectname)' 'refs/heads/m*' | sort >"$TEST_ROOT/tips"
git_real -C "$REPO" pack-refs --all # the branches live in packed-refs, as in any repository git has packed
run_cmd git_real -C "$REPO" branch -D "${names[@]}"
assert_eq 0 "$RC" "branch -D of 40 branches failed ($ERR)"
within 30 folded && pass "the fold after git's transaction left $(branches) stranded branches" || fail "40 deletions left $(branches) stranded branches with guard.keepBranches=10: the fold never deleted them"
assert_eq 1 "$([ "$(save_refs)" -le 15 ] && echo 1 || echo 0)" "$(save_refs) save refs after one bulk deletion (at most 15)"
lost=""
while read -r tip; do
    kept=""
    for ref in $(git_real -C "$REPO" for-each-ref --format='%(refname)' refs/heads/stranded/ refs/stranded/); do
        git_real -C "$REPO" merge-base --is-ancestor "$tip" "$ref" && { kept=1; break; }
    done
    [ -n "$kept" ] || lost="$lost $tip"
done <"$TEST_ROOT/tips"
assert_eq "" "$lost" "tips of the deleted branches reachable from no save"
run_cmd "$GUARD_BIN_DIR/git-guard" -C "$REPO" list --json
assert_eq 40 "$(printf '%s' "$OUT" | jq -s '[.[] | select(.branch != null and (.branch | startswith("m")))] | length')" \
    "git guard list does not list each of the 40 saves once"
chain_links=$(git_real -C "$REPO" rev-list --first-parent --count refs/stranded/chain/archive 2>/dev/null || echo 0)
run_cmd "$GUARD_BIN_DIR/git-guard" -C "$REPO" fold
assert_eq "$chain_links" "$(git_real -C "$REPO" rev-list --first-parent --count refs/stranded/chain/archive 2>/dev/null || echo 0)" \
    "a fold with nothing new to fold added links: the same saves were linked again"

section "a fold whose names cannot go (git's lock held) links them once; the next fold only deletes names"
links() { git_real -C "$REPO" rev-list --first-parent --count refs/stranded/chain/archive; }
touch "$REPO/.git/packed-refs.lock"
run_cmd "$GUARD_BIN_DIR/git-guard" -C "$REPO" fold --keep 2
held=$(links)
kept=$(branches)
rm -f "$REPO/.git/packed-refs.lock"
assert_ne 2 "$kept" "the fold deleted names although git's packed-refs.lock was held (the test proves nothing)"
run_cmd "$GUARD_BIN_DIR/git-guard" -C "$REPO" fold --keep 2
assert_eq 0 "$RC" "the fold after the lock went failed ($ERR)"
assert_eq 2 "$(branches)" "the second fold did not delete the names the first one linked"
assert_eq "$held" "$(links)" "the second fold linked the same saves onto the archive again"

finish
