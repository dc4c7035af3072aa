#!/usr/bin/env bash
# The hook on every git from 2.39 to the newest (DESIGN §14), run against the git in
# use (GUARD_TEST_GIT picks another): `ref:` values (2.46), `preparing` (2.54), ref
# packing under all its names (pack-refs, gc, maintenance, `refs optimize` in 2.55),
# `branch -m`, and a hook registered through configuration (`hook.<name>.command`,
# 2.54) instead of the hooks directory. Parts a git lacks are skipped, and say so.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GIT=$REAL_GIT
read -r major minor _ < <("$GIT" version | sed -E 's/^git version ([0-9]+)\.([0-9]+).*/\1 \2 x/')
VERSION=$((major * 100 + minor))
at_least() { [ "$VERSION" -ge $(($1 * 100 + $2)) ]; }
skip() { printf '  skip %s (git %d.%d)\n' "$1" "$major" "$minor"; }
printf 'git in use: %s\n' "$("$GIT" version)"

hooked_clone ver

# unpushed NAME: a branch with one commit of its own.
unpushed() {
    printf '%s\n' "$1" >"$REPO/$1.txt"
    "$GIT" -C "$REPO" add "$1.txt"
    "$GIT" -C "$REPO" commit -q -m "$1"
    "$GIT" -C "$REPO" -c core.hooksPath=/dev/null branch "$1"
    "$GIT" -C "$REPO" reset -q --hard HEAD~1
}
saves() {
    "$GIT" -C "$REPO" for-each-ref --format='%(refname)' refs/heads/stranded/ refs/stranded/
}
saves_of() {
    saves | grep -c "^refs/heads/stranded/$1/" || true
}

section "branch -D saves exactly once (preparing and prepared both run on 2.54+)"
unpushed d1
run_cmd "$GIT" -C "$REPO" branch -D d1
assert_eq "0:1" "$RC:$(saves_of d1)" "branch -D d1: one save"

section "ref: values for symbolic refs (2.46)"
unpushed target
before=$(saves)
run_cmd "$GIT" -C "$REPO" symbolic-ref refs/heads/sym refs/heads/target
assert_eq 0 "$RC" "creating a symbolic branch succeeds ($ERR)"
if at_least 2 46; then
    run_cmd "$GIT" -C "$REPO" update-ref --no-deref --stdin <<<"symref-delete refs/heads/sym refs/heads/target"
    assert_eq 0 "$RC" "symref-delete (old value 'ref:refs/heads/target') succeeds ($ERR)"
else
    skip "symref-delete"
    run_cmd "$GIT" -C "$REPO" update-ref --no-deref -d refs/heads/sym
fi
assert_no_ref "$REPO" refs/heads/sym "the symbolic ref is gone"
assert_eq "$before" "$(saves)" "a symbolic ref's deletion saves nothing: it held no commits"
assert_ref_exists "$REPO" refs/heads/target "its target stays"
if at_least 2 46; then
    run_cmd "$GIT" -C "$REPO" update-ref --no-deref --stdin <<<"symref-update refs/heads/sym2 refs/heads/target"
    assert_eq "0:$before" "$RC:$(saves)" "a new value 'ref:…' is no deletion"
fi

section "branch -m is not a deletion"
unpushed mv1
before=$(saves)
run_cmd "$GIT" -C "$REPO" branch -m mv1 mv1-renamed
assert_eq "0:" "$RC:$ERR" "branch -m succeeds quietly"
assert_eq "$before" "$(saves)" "branch -m saved nothing"

section "ref packing deletes nothing, under every name"
for b in p1 p2 p3; do unpushed "$b"; done
before=$(saves)
run_cmd "$GIT" -C "$REPO" pack-refs --all
assert_eq "0:$before" "$RC:$(saves)" "pack-refs --all saved nothing ($ERR)"
unpushed p4
run_cmd "$GIT" -C "$REPO" gc -q
assert_eq "0:$before" "$RC:$(saves)" "gc saved nothing ($ERR)"
unpushed p5
run_cmd "$GIT" -C "$REPO" maintenance run --task=pack-refs
assert_eq "0:$before" "$RC:$(saves)" "maintenance run --task=pack-refs saved nothing ($ERR)"
if at_least 2 51; then
    unpushed p6
    run_cmd "$GIT" -C "$REPO" refs optimize --all
    assert_eq "0:$before" "$RC:$(saves)" "refs optimize --all saved nothing ($ERR)"
    assert_no_file "$REPO/.git/refs/heads/p6" "refs optimize packed p6 (the check is not vacuous)"
else
    skip "git refs optimize"
fi
run_cmd "$GIT" -C "$REPO" branch -D p1
assert_eq "0:1" "$RC:$(saves_of p1)" "afterwards a packed branch's deletion is saved"

section "a refusal, whatever git's wording"
unpushed refused
# A branch named stranded leaves no room for any stranded/<name>/<stamp>: the save fails.
"$GIT" -C "$REPO" for-each-ref --format='delete %(refname)' refs/heads/stranded/ |
    "$GIT" -C "$REPO" -c core.hooksPath=/dev/null update-ref --stdin
"$GIT" -C "$REPO" -c core.hooksPath=/dev/null branch stranded main
run_cmd "$GIT" -C "$REPO" branch -D refused
assert_ne 0 "$RC" "branch -D is refused when the save cannot be written"
assert_ref_exists "$REPO" refs/heads/refused "the refused deletion kept the branch"
[[ $ERR =~ aborted\ by\ (the\ reference-transaction\ )?hook ]] && pass "git reports the hook's refusal" ||
    fail "git did not report the hook's refusal: $ERR"
"$GIT" -C "$REPO" -c core.hooksPath=/dev/null branch -D stranded >/dev/null

section "registered through configuration (hook.<name>.command, 2.54)"
if at_least 2 54; then
    make_clone conf
    CONF=$TEST_ROOT/conf
    "$GIT" -C "$CONF" config guard.enabled true
    "$GIT" -C "$CONF" config hook.git-guard.command "$GUARD_BIN_DIR/git-guard-hook"
    "$GIT" -C "$CONF" config hook.git-guard.event reference-transaction
    "$GIT" -C "$CONF" checkout -q -b c1
    commit_file "$CONF" c1.txt c1
    "$GIT" -C "$CONF" checkout -q main
    run_cmd "$GIT" -C "$CONF" branch -D c1
    assert_eq 0 "$RC" "branch -D with the configured hook succeeds ($ERR)"
    assert_eq 1 "$("$GIT" -C "$CONF" for-each-ref refs/heads/stranded/c1/ | grep -c .)" \
        "the configured hook saved c1 once (its commit would be lost otherwise)"
    commit_file "$CONF" more.txt more
    assert_eq 0 "$?" "a commit runs the configured hook and succeeds"
    # A command with a space runs through a shell: still guarded.
    mkdir -p "$TEST_ROOT/with space"
    ln -s "$GUARD_BIN_DIR/git-guard-hook" "$TEST_ROOT/with space/git-guard-hook"
    "$GIT" -C "$CONF" config hook.git-guard.command "'$TEST_ROOT/with space/git-guard-hook'"
    "$GIT" -C "$CONF" branch c2 "$("$GIT" -C "$CONF" commit-tree -p main -m c2 "$("$GIT" -C "$CONF" write-tree)")"
    "$GIT" -C "$CONF" checkout -q -b c2b && commit_file "$CONF" c2.txt c2 && "$GIT" -C "$CONF" checkout -q main
    run_cmd "$GIT" -C "$CONF" branch -D c2b
    assert_eq "0:1" "$RC:$("$GIT" -C "$CONF" for-each-ref refs/heads/stranded/c2b/ | grep -c .)" \
        "a configured command run through sh saves c2b once ($ERR)"
else
    skip "configured hooks"
fi

finish
