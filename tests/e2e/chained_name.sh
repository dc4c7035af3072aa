#!/usr/bin/env bash
# A chained hook runs with its own name (issue 37 item 3). install keeps a user's
# reference-transaction hook as reference-transaction.guard-chained and runs it after
# ours; a hook that dispatches on its name (a hook manager's generic script) or prints $0
# (git's t1416 8) saw the chained file's name and aborted every ref update. A shell
# script now sees git's own path for the hook in $0, as it would without git-guard.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# dispatcher FILE LOG SHEBANG: a hook that knows itself by its name, and records $0 and its args.
dispatcher() {
    cat >"$1" <<EOF
$3
case "\$(basename "\$0")" in
reference-transaction) echo "\$0 \$*" >>'$2' ;;
*) echo "no such hook: \$0" >&2; exit 1 ;;
esac
EOF
    chmod +x "$1"
}

for shebang in '#!/bin/sh' '#!/usr/bin/env bash' '#!/bin/bash -e'; do
    section "a hook that dispatches on \$0 ($shebang), chained by install"
    rm -rf "$TEST_ROOT/repo" "$TEST_ROOT/repo.origin" "$TEST_ROOT/twin" "$TEST_ROOT/twin.origin" "$TEST_ROOT"/*.log
    for r in repo twin; do
        make_clone "$r"
        dispatcher "$TEST_ROOT/$r/.git/hooks/reference-transaction" "$TEST_ROOT/$r.log" "$shebang"
    done
    cp -p "$TEST_ROOT/repo/.git/hooks/reference-transaction" "$TEST_ROOT/hook.orig"
    run_cmd "$GUARD_BIN_DIR/git-guard" -C "$TEST_ROOT/repo" install --shim-dir "$TEST_ROOT/shim"
    assert_eq 0 "$RC" "git guard install failed ($ERR)"
    assert_file_exists "$TEST_ROOT/repo/.git/hooks/reference-transaction.guard-chained" "install did not chain the user's hook"
    for r in repo twin; do
        (cd "$TEST_ROOT/$r" && git_real branch topic && git_real branch -D topic >/dev/null) 2>"$TEST_ROOT/$r.err"
        echo "exit $?" >>"$TEST_ROOT/$r.err"
    done
    assert_eq "$(cat "$TEST_ROOT/twin.err")" "$(cat "$TEST_ROOT/repo.err")" \
        "git branch with the chained hook: stderr and exit differ from git with the hook alone"
    assert_eq "$(cat "$TEST_ROOT/twin.log")" "$(cat "$TEST_ROOT/repo.log" 2>/dev/null)" \
        "the chained hook saw another \$0 or other arguments than git gives it"
    run_cmd "$GUARD_BIN_DIR/git-guard" -C "$TEST_ROOT/repo" uninstall
    assert_eq 0 "$RC" "git guard uninstall failed ($ERR)"
    assert_eq "$(cat "$TEST_ROOT/hook.orig")" "$(cat "$TEST_ROOT/repo/.git/hooks/reference-transaction")" \
        "uninstall did not put the user's hook back"
done

finish
