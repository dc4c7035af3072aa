#!/usr/bin/env bash
# One table of every git command (DESIGN §0.6, docs/commands.md, issue 16): the shim
# classifies each command of the git under test as read-only or writing the work tree,
# the index or refs, and says how each that can destroy work is guarded. A command the
# table does not know fails here, so a new git release shows up as a failing test, not
# as a silent hole.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TABLE=$TEST_ROOT/table.tsv
"$GUARD_BIN_DIR/git-guard-shim" --guard-commands >"$TABLE" ||
    { echo "git-guard-shim --guard-commands failed" >&2; exit 1; }

# unclassified GIT: the commands GIT lists that the table does not know, one a line.
unclassified() {
    local cmd
    for cmd in $("$1" --list-cmds=builtins,main | sort -u); do
        cut -f1 "$TABLE" | grep -qxF -- "$cmd" || echo "$cmd"
    done
}

section "every command of $("$REAL_GIT" --version) is in the table"
assert_ne "" "$("$REAL_GIT" --list-cmds=builtins,main)" "git --list-cmds=builtins,main listed nothing"
assert_eq "" "$(unclassified "$REAL_GIT" | tr '\n' ' ')" \
    "git commands the table does not classify (add them to guard/front/commands.c and docs/commands.md):"

section "a command of a newer git that the table does not know is reported"
NEWER=$TEST_ROOT/newer-git
printf '#!/bin/sh\n"%s" "$@" && echo frobnicate-worktrees\n' "$REAL_GIT" >"$NEWER"
chmod +x "$NEWER"
assert_eq "frobnicate-worktrees" "$(unclassified "$NEWER")" "a new git command went unnoticed by the table's test"

section "every row says what the command writes and how it is guarded"
bad=$(awk -F'\t' 'NF != 4 || $2 !~ /^(-|t?i?r?)$/ || $3 !~ /^(none|shim|hook|child|limit)$/' "$TABLE")
assert_eq "" "$bad" "rows of the table that are not classified:"

section "a command that writes the work tree or the index and is not judged says why (its note)"
unjudged=$(awk -F'\t' '$2 ~ /t/ && $3 == "none" && length($4) < 8' "$TABLE")
assert_eq "" "$unjudged" "work-tree writers that are not guarded and give no reason:"

section "docs/commands.md lists every command of the table"
DOC=$GUARD_SOURCE_DIR/docs/commands.md
missing=
for cmd in $(cut -f1 "$TABLE"); do
    grep -qF "| \`$cmd\` |" "$DOC" || missing="$missing $cmd"
done
assert_eq "" "$missing" "commands of the table that docs/commands.md does not list:"

finish
