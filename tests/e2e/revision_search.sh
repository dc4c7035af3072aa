#!/usr/bin/env bash
# Saves are refs, so git's searches over every ref see them (issue 37 item 5): `:/<text>`
# may name a commit only a save still reaches. The README says so, and gives the form that
# leaves saves out; this suite keeps both statements true.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/branch_fixtures.bash"

make_clone repo
REPO=$TEST_ROOT/repo
git_real -C "$REPO" config guard.enabled true
install_hook "$REPO"

section "a deleted branch's commit stays findable by ':/', and the README's exclusion leaves it out"
TIP=$(unpushed "$REPO" search-wip)
run_cmd git_real -C "$REPO" branch -D search-wip
assert_eq 0 "$RC" "branch -D failed ($ERR)"
SAVE=$(git_real -C "$REPO" for-each-ref --points-at "$TIP" --format='%(refname)' refs/heads/stranded/)
assert_ne "" "$SAVE" "branch -D destroyed the unpushed commit $TIP, not saved"
assert_eq "$TIP" "$(git_real -C "$REPO" rev-parse ':/work on search-wip' 2>/dev/null)" \
    "the README says ':/<text>' can name a saved commit, but it does not"
run_cmd git_real -C "$REPO" rev-list -1 --exclude='refs/stranded/*' --exclude='refs/heads/stranded/*' --all \
    --grep='work on search-wip'
assert_eq "" "$OUT" "the README's exclusion form still finds the saved commit"
run_cmd git_real -C "$REPO" rev-parse 'HEAD^{/work on search-wip}'
assert_ne 0 "$RC" "HEAD^{/text} walked into a save"

finish
