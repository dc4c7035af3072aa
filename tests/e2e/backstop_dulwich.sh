#!/usr/bin/env bash
# The backstop against dulwich, which writes the ref store itself and runs no hook
# (DESIGN §15): a branch it deletes keeps its unpushed commits through the watcher.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

if ! "$PYTHON" -c 'import dulwich.porcelain' 2>/dev/null; then
    skip_suite "dulwich is not installed (Debian: python3-dulwich): skipping the dulwich backstop suite"
fi

guarded_clone repo

section "dulwich porcelain.branch_delete: the unpushed commit is saved"
TIP=$(unpushed "$REPO" dul-branch)
wait_known "$REPO" "$TIP"
"$PYTHON" -c 'import sys; from dulwich import porcelain; porcelain.branch_delete(sys.argv[1], "dul-branch")' "$REPO"
assert_no_ref "$REPO" refs/heads/dul-branch "dulwich did not delete the branch"
assert_saved "$REPO" dul-branch "$TIP" "branch_delete"

section "packing refs moves no tip: nothing is saved"
git_real -C "$REPO" pack-refs --all
read_past "$REPO" dul-mark "$PYTHON" -c 'import sys; from dulwich import porcelain; porcelain.branch_delete(sys.argv[1], "dul-mark")' "$REPO"
assert_eq 0 "$(saves "$REPO" main)" "packing refs made a save of main"

finish
