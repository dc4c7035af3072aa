#!/usr/bin/env bash
# The kept listing (issue 35, `list --all` at 20,000 saves): `list`, `show`, `drop` read the
# last full listing instead of the journal and every chained save again, but only under
# the key of what it was made from: git's for-each-ref of the save refs and chains, the
# journal's bytes, guard.backupRemote. Each change of one of them shows at once; a torn,
# foreign or garbage listing is read as none; a mirror's bundles are never kept in one.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GUARD=$GUARD_BIN_DIR/git-guard
make_clone lst
R=$TEST_ROOT/lst
L=$R/.git/guard/listing
git_real -C "$R" config guard.enabled true
git_real -C "$R" config guard.keepBranches 2
install_hook "$R"

# branch_save NAME: a branch with one commit of its own, deleted (saved by the hook).
branch_save() {
    git_real -C "$R" switch -q -c "$1" main
    commit_file "$R" "$1.txt" "$1 content"
    git_real -C "$R" switch -q main
    git_real -C "$R" branch -q -D "$1" 2>/dev/null
}
refs() { "$GUARD" -C "$R" list --all --json | jq -r .ref | sort; }
sources() { "$GUARD" -C "$R" list --all --json | jq -r .branch | sort | tr '\n' ' '; }

section "a listing is kept, and reading it gives what reading everything gives"
for b in one two three four; do branch_save "$b"; done # past keepBranches: some are folded
"$GUARD" -C "$R" fold >/dev/null # the fold a deletion started in the background, done now
first=$("$GUARD" -C "$R" list --all --json)
assert_file_exists "$L" "list --all keeps its listing"
assert_eq "four one three two " "$(sources)" "the four saves are listed (a missing name is a lost save)"
assert_eq "$first" "$("$GUARD" -C "$R" list --all --json)" "the kept listing reads as the first listing did"

section "a new save, a drop, a fold: each shows at once"
branch_save five
"$GUARD" -C "$R" fold >/dev/null
assert_eq "five four one three two " "$(sources)" "a save made after the listing is listed"
gone=$("$GUARD" -C "$R" list --all --json | jq -r 'select(.branch == "two") | .ref')
run_cmd "$GUARD" -C "$R" drop "$gone"
assert_eq 0 "$RC" "drop $gone: $ERR"
assert_eq "five four one three " "$(sources)" "a dropped save is no longer listed"
run_cmd "$GUARD" -C "$R" fold
assert_eq "five four one three " "$(sources)" "a fold moves saves but lists the same ones"

section "the journal is part of the key: a change there shows"
ref=$("$GUARD" -C "$R" list --all --json | jq -r 'select(.branch == "one") | .ref')
commit=$("$GUARD" -C "$R" list --all --json | jq -r 'select(.branch == "one") | .commit')
git_real -C "$R" config guard.backupRemote origin
assert_eq "false" "$("$GUARD" -C "$R" list --all --json | jq -r "select(.ref == \"$ref\") | .backed_up")" \
    "with guard.backupRemote set, the save is listed as not backed up"
# A push record, as the backup push writes one: only the journal changes.
printf '{"time":"2026-01-01T00:00:00.000Z","kind":"push","ref":"%s","commit":"%s","remote":"origin","ok":true}\n' \
    "$ref" "$commit" >>"$R/.git/guard/journal.jsonl"
assert_eq "true" "$("$GUARD" -C "$R" list --all --json | jq -r "select(.ref == \"$ref\") | .backed_up")" \
    "a push record appended to the journal shows in the next listing (a kept listing was read)"
git_real -C "$R" config --unset guard.backupRemote

section "a listing that is torn, garbage or another's is read as none"
want=$(refs)
"$GUARD" -C "$R" list --all >/dev/null
head -c 200 "$L" >"$L.torn" && mv "$L.torn" "$L"
assert_eq "$want" "$(refs)" "a torn listing: every save is still listed"
printf 'garbage\n\0\0\0' >"$L"
assert_eq "$want" "$(refs)" "a garbage listing: every save is still listed"
# The right key and the right count of NULs, but the second record's end moved into the
# third: read as none, not as the saves before the fault (a partial listing hides saves).
"$GUARD" -C "$R" list --all >/dev/null
python3 - "$L" <<'PY'
import sys
p = sys.argv[1]
data = bytearray(open(p, "rb").read())
body = data.index(b"\n") + 1
first = data.index(b"\0\n", body) + 1
second = data.index(b"\0\n", first + 1) + 1
data[second] = ord("x")  # the second record no longer ends here; the NULs stay as many
open(p, "wb").write(bytes(data))
PY
assert_eq "$want" "$(refs)" "a listing with a record boundary moved: every save is still listed"
# Another repository's listing (its own key) is not this one's.
make_clone other
git_real -C "$TEST_ROOT/other" config guard.enabled true
install_hook "$TEST_ROOT/other"
(R=$TEST_ROOT/other && branch_save elsewhere)
"$GUARD" -C "$TEST_ROOT/other" list --all >/dev/null
cp "$TEST_ROOT/other/.git/guard/listing" "$L"
assert_eq "$want" "$(refs)" "a listing copied from another repository: this one's saves are listed, not its"
assert_eq 0 "$("$GUARD" -C "$R" list --all | grep -c elsewhere || true)" "the other repository's save is not listed here"

section "odd branch names survive the listing"
name=$'q"uo-t\xc3\xa9'
branch_save "$name"
"$GUARD" -C "$R" list --all >/dev/null
assert_contains "$(sources)" "$name" "a branch name with a quote and UTF-8 reads back from the kept listing"

finish
