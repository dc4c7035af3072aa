#!/usr/bin/env bash
# git guard install, doctor and uninstall in the repository formats libgit2 1.5 cannot
# open (DESIGN §14): SHA-256 (git 2.39 has it), reftable (git >= 2.45) and relative
# worktrees (git >= 2.48). In each: install guards it, doctor passes, a forced removal
# through the shim and a branch -D are saved, uninstall puts config and hooks back byte
# for byte. Run with GUARD_TEST_GIT=/opt/git-2.55/bin/git for reftable and relative trees.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/install_fixtures.bash"

newest_save() {
    git_real -C "$1" for-each-ref --sort=-refname --format='%(refname)' "refs/heads/stranded/$2/" | head -1
}

# round_trip KIND REPO [WORKTREE ADD OPTIONS...]: the whole guarded life of REPO.
round_trip() {
    local kind=$1 repo=$2 name
    name=$(basename "$repo")
    shift 2
    section "$kind: install, doctor, a forced removal, branch -D, uninstall"
    repo_snapshot "$repo" >"$TEST_ROOT/$name.before"
    run_cmd "$GUARD" -C "$repo" install --shim-dir "$TEST_ROOT/shim"
    assert_eq 0 "$RC" "$kind: install refused, so nothing in the $kind repository is guarded: $ERR"
    assert_eq true "$(git_real -C "$repo" config guard.enabled)" "$kind: install did not set guard.enabled"
    assert_contains "$(guard_hook_text "$repo" "$repo/.git/hooks")" "# git-guard reference-transaction" \
        "$kind: install placed no reference-transaction hook, so branch -D would lose unpushed commits"

    shim_on "$TEST_ROOT/shim"
    run_cmd "$GUARD" -C "$repo" doctor
    assert_eq 0 "$RC" "$kind: doctor fails in a guarded $kind repository"
    assert_eq "" "$(cd "$repo" && doctor_failures)" "$kind: doctor names failed checks"

    local wt=$TEST_ROOT/$name-wt
    run_cmd git -C "$repo" worktree add -q "$@" -b "$name-wt" "$wt"
    assert_eq 0 "$RC" "$kind: git worktree add through the shim failed: $ERR"
    assert_not_contains "$ERR" "may be unguarded" "$kind: the new worktree was left unguarded"
    printf 'untracked in %s\n' "$kind" >"$wt/u.txt"
    run_cmd git -C "$repo" worktree remove --force "$wt"
    assert_eq 0 "$RC" "$kind: git worktree remove --force through the shim failed: $ERR"
    assert_no_file "$wt" "$kind: the worktree was not removed"
    assert_eq "untracked in $kind" "$(git_real -C "$repo" show "$(newest_save "$repo" "$name-wt"):u.txt" 2>&1)" \
        "$kind: the untracked file in the $kind tree was destroyed, not saved"

    git_real -C "$repo" checkout -q -b unpushed
    commit_file "$repo" x.txt "unpushed in $kind" >/dev/null
    local tip
    tip=$(git_real -C "$repo" rev-parse HEAD)
    git_real -C "$repo" checkout -q main
    run_cmd git -C "$repo" branch -D unpushed
    assert_eq 0 "$RC" "$kind: git branch -D failed: $ERR"
    assert_eq "$tip" "$(git_real -C "$repo" rev-parse "$(newest_save "$repo" unpushed)" 2>&1)" \
        "$kind: the unpushed commit of the deleted branch was destroyed, not saved"
    # No old value given: git checks nothing, the hook reads the tip itself.
    git_real -C "$repo" checkout -q -b unchecked
    commit_file "$repo" y.txt "unchecked in $kind" >/dev/null
    tip=$(git_real -C "$repo" rev-parse HEAD)
    git_real -C "$repo" checkout -q main
    run_cmd git -C "$repo" update-ref -d refs/heads/unchecked
    assert_eq 0 "$RC" "$kind: git update-ref -d failed: $ERR"
    assert_eq "$tip" "$(git_real -C "$repo" rev-parse "$(newest_save "$repo" unchecked)" 2>&1)" \
        "$kind: the unpushed commit of a branch deleted by update-ref -d was destroyed, not saved"
    shim_off

    run_cmd "$GUARD" -C "$repo" uninstall
    assert_eq 0 "$RC" "$kind: uninstall failed, leaving the guard's config and hooks behind: $ERR"
    repo_snapshot "$repo" >"$TEST_ROOT/$name.after"
    assert_same_file "$TEST_ROOT/$name.before" "$TEST_ROOT/$name.after" \
        "$kind: uninstall did not restore the hooks and .git/config byte for byte"
}

git_real init -q --object-format=sha256 "$TEST_ROOT/sha256"
commit_file "$TEST_ROOT/sha256" README readme
round_trip SHA-256 "$TEST_ROOT/sha256"

if git_real init -q --ref-format=reftable "$TEST_ROOT/reftable" 2>/dev/null; then
    commit_file "$TEST_ROOT/reftable" README readme
    round_trip reftable "$TEST_ROOT/reftable"

    section "reftable on a git without 'preparing' (2.45-2.53): the locked store takes a bundle"
    R=$TEST_ROOT/reftable-old
    git_real init -q --ref-format=reftable "$R"
    commit_file "$R" README readme
    git_real -C "$R" config guard.enabled true
    # The hook as such a git runs it: never in `preparing`.
    write_hook "$R/.git/hooks/reference-transaction" "#!/bin/sh
[ \"\$1\" = preparing ] && exit 0
exec $GUARD_BIN_DIR/git-guard-hook \"\$0\" \"\$1\""
    git_real -C "$R" checkout -q -b old-git
    commit_file "$R" z.txt "kept in a bundle" >/dev/null
    tip=$(git_real -C "$R" rev-parse HEAD)
    git_real -C "$R" checkout -q main
    run_cmd git_real -C "$R" branch -D old-git
    assert_eq 0 "$RC" "reftable without 'preparing': git branch -D failed: $ERR"
    bundle=$(ls "$R/.git/guard/bundles/"*.bundle 2>/dev/null | head -1)
    assert_contains "$(git_real -C "$R" bundle list-heads "$bundle" 2>&1)" "$tip refs/heads/old-git" \
        "reftable without 'preparing': the unpushed commit of the deleted branch was destroyed, not kept in a bundle"

    section "reftable: a repository made from a template that holds the guard's hook"
    # Orchestrators give every new repository the guard through init.templateDir. While
    # `git init --ref-format=reftable` writes HEAD there is no object store yet: the hook
    # must let that be, where it once refused it as an unfindable repository (t5510).
    mkdir -p "$TEST_ROOT/templates/hooks"
    git_real init -q "$TEST_ROOT/tpl-source"
    "$GUARD" -C "$TEST_ROOT/tpl-source" install --shim-dir "$TEST_ROOT/shim" >/dev/null
    cp -p "$TEST_ROOT/tpl-source/.git/hooks/reference-transaction" "$TEST_ROOT/templates/hooks/"
    for how in init clone; do
        N=$TEST_ROOT/from-template-$how
        if [[ $how == init ]]; then
            run_cmd git_real -c guard.enabled=true init --ref-format=reftable --template="$TEST_ROOT/templates" "$N"
        else
            run_cmd git_real -c guard.enabled=true clone -q --ref-format=reftable \
                --template="$TEST_ROOT/templates" "$TEST_ROOT/reftable" "$N"
        fi
        assert_eq 0 "$RC" "reftable: 'git $how' with the guard's hook in the template was refused: $ERR"
        assert_not_contains "$ERR" "git-guard" "reftable: 'git $how' with the guard's hook printed the guard's words"
    done
    R=$TEST_ROOT/from-template-init
    git_real -C "$R" config guard.enabled true
    commit_file "$R" README readme
    git_real -C "$R" checkout -q -b from-template
    commit_file "$R" t.txt "unpushed in a templated repository" >/dev/null
    tip=$(git_real -C "$R" rev-parse HEAD)
    git_real -C "$R" checkout -q -
    run_cmd git_real -C "$R" branch -D from-template
    assert_eq 0 "$RC" "reftable from a template: git branch -D failed: $ERR"
    assert_eq "$tip" "$(git_real -C "$R" rev-parse "$(newest_save "$R" from-template)" 2>&1)" \
        "reftable from a template: the deleted branch's unpushed commit was destroyed, not saved"
else
    echo "  skip reftable: $(git_real --version) has no --ref-format=reftable"
fi

new_repo "$TEST_ROOT/relative"
if git_real -C "$TEST_ROOT/relative" worktree add -q --relative-paths -b before "$TEST_ROOT/relative-before" 2>/dev/null; then
    # The extension is there before install: libgit2 refuses the repository from then on.
    assert_eq true "$(git_real -C "$TEST_ROOT/relative" config extensions.relativeWorktrees)" \
        "relative worktrees: the extension is not set (set-up)"
    round_trip "relative worktrees" "$TEST_ROOT/relative" --relative-paths
else
    echo "  skip relative worktrees: $(git_real --version) has no worktree add --relative-paths"
fi

finish
