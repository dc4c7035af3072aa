#!/usr/bin/env bash
# A loss while the registry file was missing (issue 38): a branch deleted by libgit2 in the
# seconds the registry was gone is saved once it is back and a watcher runs again, from
# the knowledge kept in the repository (DESIGN §15: a restart judges what changed while it
# was away), and `watch --lost` names it until then.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

if ! "$PYTHON" -c 'import pygit2' 2>/dev/null; then
    skip_suite "pygit2 is not installed (Debian: python3-pygit2): skipping the registry suite"
fi

guarded_clone repo
REGISTRY=$HOME/.local/share/git-guard/repos
TIP=$(unpushed "$REPO" away)
wait_known "$REPO" "$TIP"

section "the registry is removed, a branch deleted by libgit2, the registry restored"
mv "$REGISTRY" "$TEST_ROOT/repos.saved"
"$PYTHON" -c 'import pygit2, sys; pygit2.Repository(sys.argv[1]).branches.delete("away")' "$REPO"
sleep 1
run_cmd "$GUARD" -C "$REPO" watch --lost
assert_contains "$OUT" "${TIP:0:12}" "watch --lost does not name the commit deleted while the registry was gone"
mv "$TEST_ROOT/repos.saved" "$REGISTRY"
"$GUARD" -C "$REPO" watch >/dev/null
if poll 30 saved_at "$REPO" away "$TIP"; then
    pass "the commit deleted while the registry was gone is saved"
else
    fail "the commit $TIP deleted while the registry was gone was lost"
fi

finish
