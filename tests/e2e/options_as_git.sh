#!/usr/bin/env bash
# Options read as git reads them (DESIGN §0.6, issue 16 item 5): option values
# (`clean -e -n`: -n is the pattern), `--no-` negations and last-wins, unique-prefix
# abbreviations, `--end-of-options`, short clusters. One parser (guard/front/options.c)
# serves the front end and the full binary; each misreading that once destroyed work
# unsaved is a case here, then a table of option orders per guarded command.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/inplace_fixtures.bash"

shim_on

# destroys CASE ARGS...: git ARGS destroys work; it is saved first and git behaves as git.
destroys() {
    local case=$1
    shift
    twins "$case"
    same_as_git "$case" "$@"
    assert_ne "" "$(saves "$G")" "git $*: what it destroyed was not saved (the options were misread)"
}
# spares CASE ARGS...: git ARGS destroys nothing (dry run, negated force): nothing saved.
spares() {
    local case=$1
    shift
    twins "$case"
    same_as_git "$case" "$@"
    nothing_saved "$case"
}

section "clean: -e and --exclude take the next word as their pattern"
destroys clean-e-n clean -f -e -n
assert_saved "$N_U" "clean -f -e -n: the untracked n.txt"
destroys clean-exclude-n clean -fd --exclude -n
assert_saved "$N_U" "clean -fd --exclude -n: the untracked n.txt"
destroys clean-e-dry-run clean -f -e --dry-run
assert_saved "$N_U" "clean -f -e --dry-run: the untracked n.txt"
destroys clean-e-attached clean -fe-n
assert_saved "$N_U" "clean -fe-n: the untracked n.txt"

section "clean and rm: a --no- negation undoes what came before it"
destroys clean-no-dry-run clean -n --no-dry-run -f
assert_saved "$N_U" "clean -n --no-dry-run -f: the untracked n.txt"
destroys rm-no-cached rm -f --cached --no-cached b.txt
assert_saved "$B_WT" "rm -f --cached --no-cached: the edited b.txt"

section "worktree prune -n --no-dry-run prunes: the gone tree's commit is saved"
make_clone prune-repo
PR=$TEST_ROOT/prune-repo
git_real -C "$PR" config guard.enabled true
git_real -C "$PR" worktree add -q --detach "$TEST_ROOT/gone-tree"
commit_file "$TEST_ROOT/gone-tree" only-here.txt "only here"
GONE_TIP=$(git_real -C "$TEST_ROOT/gone-tree" rev-parse HEAD)
rm -rf "$TEST_ROOT/gone-tree"
run_cmd git -C "$PR" worktree prune -n --no-dry-run
assert_eq 0 "$RC" "worktree prune -n --no-dry-run failed ($ERR)"
assert_eq "" "$(git_real -C "$PR" worktree list --porcelain | grep gone-tree)" "git did not prune the gone tree"
assert_ne "" "$(git_real -C "$PR" for-each-ref --points-at "$GONE_TIP" refs/heads/stranded/)" \
    "worktree prune -n --no-dry-run: the gone tree's detached commit was destroyed, not saved"

section "option orders: the last of a group wins, prefixes count, --end-of-options ends them"
destroys reset-soft-hard reset --soft --hard
spares reset-hard-soft reset --hard --soft
destroys reset-prefix reset --ha
spares clean-fn clean -fn
spares clean-dry-after clean -f -d --dry-run
destroys clean-dry-negated clean --dry-run -fd --no-dry
destroys clean-forc clean --forc -d
spares rm-cached-last rm -f --no-cached --cached b.txt
destroys rm-end-of-options rm -f --end-of-options b.txt
destroys checkout-end-of-options checkout --end-of-options b.txt
destroys restore-no-staged restore --staged --no-staged b.txt
spares restore-staged-only restore --worktree --no-worktree --staged b.txt
destroys switch-force-last switch --no-force -f other
spares switch-force-negated switch -f --no-force other

shim_off
finish
