#!/usr/bin/env bash
# The backstop against isomorphic-git (node), which edits loose refs and packed-refs
# itself and runs no hook (DESIGN §15).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

ISOGIT=$GUARD_TOOLS_DIR/isomorphic-git/node_modules/isomorphic-git
if ! command -v node >/dev/null || [ ! -d "$ISOGIT" ]; then
    skip_suite "isomorphic-git is not installed in $ISOGIT (tests/run.sh puts it in \$GUARD_TOOLS_DIR from npm): skipping"
fi

# isogit REPO JS: runs JS (awaited) with `git`, `fs` and `dir` set.
isogit() {
    node -e "
const git = require(process.argv[1]); const fs = require('fs'); const dir = process.argv[2];
(async () => { $2 })().catch(e => { console.error(e); process.exit(1); });" "$ISOGIT" "$1"
}

guarded_clone repo

section "isomorphic-git deleteBranch: the unpushed commit is saved"
TIP=$(unpushed "$REPO" iso-branch)
wait_known "$REPO" "$TIP"
isogit "$REPO" "await git.deleteBranch({fs, dir, ref: 'iso-branch'})"
assert_no_ref "$REPO" refs/heads/iso-branch "isomorphic-git did not delete the branch"
assert_saved "$REPO" iso-branch "$TIP" "deleteBranch"

section "isomorphic-git deleteRef of a packed branch: the unpushed commit is saved"
TIP=$(unpushed "$REPO" iso-ref)
git_real -C "$REPO" pack-refs --all
wait_known "$REPO" "$TIP"
isogit "$REPO" "await git.deleteRef({fs, dir, ref: 'refs/heads/iso-ref'})"
assert_no_ref "$REPO" refs/heads/iso-ref "isomorphic-git did not delete the ref"
assert_saved "$REPO" iso-ref "$TIP" "deleteRef"

finish
