#!/usr/bin/env bash
# Every command explains itself (issue 36): for each command of `git guard help`'s table,
# `-h` and `--help` exit 0 and print the command's own usage with an option, whether or not
# its required operands are given and inside a repository or not; `git guard help
# <command>` prints the same; no help text names an internal document.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GUARD=$GUARD_BIN_DIR/git-guard
new_repo "$TEST_ROOT/r"
OUTSIDE=$TEST_ROOT/outside
mkdir -p "$OUTSIDE"

run_cmd "$GUARD" help
assert_eq 0 "$RC" "git guard help exits 0"
COMMANDS=$(sed -n 's/^   \([a-z]*\) .*/\1/p' <<<"$OUT")
assert_ne "" "$COMMANDS" "git guard help lists no command"
for must in status save remove discard list show restore undo drop log push fold install uninstall doctor watch help version; do
    grep -qx "$must" <<<"$COMMANDS" || fail "git guard help does not list $must"
done

for cmd in $COMMANDS; do
    section "git guard $cmd -h, --help, help $cmd"
    for where in "$TEST_ROOT/r" "$OUTSIDE"; do
        for flag in -h --help; do
            run_cmd "$GUARD" -C "$where" "$cmd" "$flag"
            assert_eq 0 "$RC" "git guard $cmd $flag in $(basename "$where") exits $RC: $ERR"
            assert_contains "$OUT" "git guard $cmd" "git guard $cmd $flag does not name the command"
            assert_contains "$OUT" "--" "git guard $cmd $flag names no option"
            assert_not_contains "$OUT$ERR" "DESIGN" "git guard $cmd $flag names an internal document"
            assert_not_contains "$OUT$ERR" "§" "git guard $cmd $flag names a section of an internal document"
        done
    done
    [ "$cmd" = help ] && continue
    run_cmd "$GUARD" -C "$OUTSIDE" help "$cmd"
    assert_eq 0 "$RC" "git guard help $cmd exits $RC: $ERR"
    HELP=$OUT
    run_cmd "$GUARD" -C "$OUTSIDE" "$cmd" --help
    assert_eq "$OUT" "$HELP" "git guard help $cmd and git guard $cmd --help differ"
done

section "the commands that take a save or a tree: -h among other words, without the required one"
for args in "restore -h" "restore stranded/x -h" "show --json -h" "remove -h" "remove --discard --help" "discard -h" "undo --list -h"; do
    # shellcheck disable=SC2086
    run_cmd "$GUARD" -C "$TEST_ROOT/r" $args
    assert_eq 0 "$RC" "git guard $args exits $RC: $ERR"
    assert_contains "$OUT" "git guard ${args%% *}" "git guard $args prints no usage of ${args%% *}"
done
run_cmd "$GUARD" -C "$TEST_ROOT/r" restore
assert_eq 2 "$RC" "git guard restore without a save is not a usage error"
run_cmd "$GUARD" help no-such-command
assert_eq 2 "$RC" "git guard help of an unknown command is not a usage error"

section "the man page has a section per command, and the bash completion knows every option"
MAN=$GUARD_SOURCE_DIR/docs/git-guard.1
COMPLETION=$GUARD_SOURCE_DIR/installer/git-guard.bash-completion
for cmd in $COMMANDS; do
    grep -q "^\\\\fB$cmd\\\\fR" "$MAN" || grep -q "^\.SS $cmd\$" "$MAN" || fail "docs/git-guard.1 has no section for $cmd"
    grep -q "\"\".*\b$cmd\b" "$COMPLETION" || fail "the bash completion does not offer the command $cmd"
    opts=$("$GUARD" "$cmd" --help | grep -oE -- '^  (-[a-zA-Z] \[ )?--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+' | sort -u | grep -vx -- '--help')
    [ "$cmd" = help ] || [ "$cmd" = push ] || [ "$cmd" = discard ] || [ -n "$opts" ] || fail "git guard $cmd --help lists no option"
    for opt in $opts; do
        [ "$cmd" = help ] && continue
        words=$(bash -c "source '$COMPLETION'; _git_guard_words '' $cmd")
        grep -qw -- "$opt" <<<"$words" || fail "the bash completion does not offer $opt for git guard $cmd"
    done
done
pass "man page and completion checked"

finish
