#!/usr/bin/env bash
# `git guard drop --published` over many saves at once (issue 20 item 5): every save is
# judged as DESIGN §4.2 says (an ancestor of a candidate base, or merged into one without
# changing its tree), now for all of them together:
#   - published saves are dropped: pushed to the default branch, pushed under the branch's
#     own name, squash-merged (content published, commit not), folded ones included;
#   - unpublished ones are kept: unique commits, uncommitted work, a change the remote
#     later changed again (a merge that is not clean or changes the tree).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GUARD=$GUARD_BIN_DIR/git-guard
make_clone pub
R=$TEST_ROOT/pub
git_real -C "$R" config guard.enabled true
git_real -C "$R" config guard.keepBranches 3
install_hook "$R"
shim_on

save_of() { "$GUARD" -C "$R" list --all --source "$1" --json | jq -r .ref | head -1; }
commit_of() { "$GUARD" -C "$R" list --all --source "$1" --json | jq -r .commit | head -1; }
listed() { "$GUARD" -C "$R" list --all --json | jq -r .ref | sort; }

# branch_save NAME FILE: a branch with one commit of its own, deleted (saved by the hook).
branch_save() {
    git_real -C "$R" switch -q -c "$1" main
    commit_file "$R" "$2" "$1 content"
    git_real -C "$R" switch -q main
    git_real -C "$R" branch -q -D "$1" 2>/dev/null
}

section "saves of every kind, some published later"
for i in $(seq 1 6); do branch_save "kept$i" "kept$i.txt"; done # unique commits
branch_save pushed pushed.txt
git_real -C "$R" push -q origin "$(commit_of pushed):refs/heads/main"
branch_save named named.txt
git_real -C "$R" push -q origin "$(commit_of named):refs/heads/named"
branch_save squashed squashed.txt
branch_save changed changed.txt
git_real -C "$R" fetch -q origin
# squashed: its content lands on origin/main as another commit (a squash merge).
W=$TEST_ROOT/work
git_real clone -q "$TEST_ROOT/pub.origin" "$W"
printf 'squashed content\n' >"$W/squashed.txt"
printf 'changed content, then changed again upstream\n' >"$W/changed.txt"
git_real -C "$W" add squashed.txt changed.txt
git_real -C "$W" commit -q -m "squash"
git_real -C "$W" push -q origin main
git_real -C "$R" fetch -q origin
printf 'uncommitted\n' >"$R/a.txt"
git -C "$R" reset -q --hard 2>/dev/null # an in-place save of uncommitted work
for name in kept1 kept6 pushed named squashed changed; do
    assert_ne "" "$(save_of "$name")" "the deletion of $name was not saved"
done
assert_eq "" "$(git_real -C "$R" for-each-ref "$(save_of kept1)")" "with guard.keepBranches=3 the oldest saves are folded onto the archive"
BEFORE=$(listed)
KEEP="$(save_of kept1) $(save_of kept6) $(save_of changed) $("$GUARD" -C "$R" list --all --json | jq -r 'select(.reason == "reset --hard") | .ref')"
DROP="$(save_of pushed) $(save_of named) $(save_of squashed)"

section "drop --published: the published ones go, the others stay"
run_cmd "$GUARD" -C "$R" drop --published
assert_eq 0 "$RC" "drop --published exits 0: $ERR"
assert_contains "$OUT" "3 save(s) dropped" "drop --published drops exactly the 3 published saves: $OUT"
AFTER=$(listed)
for ref in $DROP; do
    assert_not_contains "$AFTER" "$ref" "the published save $ref was kept"
done
for ref in $KEEP; do
    assert_contains "$AFTER" "$ref" "drop --published dropped $ref, whose work exists nowhere else"
done
assert_eq "$(($(printf '%s\n' "$BEFORE" | grep -c .) - 3))" "$(printf '%s\n' "$AFTER" | grep -c .)" \
    "every unpublished save is still listed"
for i in $(seq 1 6); do
    assert_eq "kept$i content" "$(git_real -C "$R" show "$(commit_of "kept$i"):kept$i.txt" 2>/dev/null)" \
        "the unique commit of kept$i is lost"
done

section "a second run drops nothing"
run_cmd "$GUARD" -C "$R" drop --published
assert_contains "$OUT" "0 save(s) dropped" "drop --published dropped an unpublished save on its second run"

section "the diff test before the merges settles only unpublished saves"
# A tip whose own commit changes a path the base holds as the tip's parent did is
# unpublished without a merge; a path the base changed too, or a change of mode alone,
# still goes to the merge.
git_real -C "$R" fetch -q origin
git_real -C "$R" -c core.hooksPath=/dev/null reset -q --hard origin/main
printf 'one\ntwo\nthree\n' >"$R/shared.txt"
echo mode >"$R/mode.txt"
echo mine >"$R/mine.txt"
git_real -C "$R" add shared.txt mode.txt mine.txt
git_real -C "$R" commit -q -m "files to change"
git_real -C "$R" push -q origin main
# edit_save NAME COMMAND...: a branch whose one commit is what COMMAND does, deleted.
edit_save() {
    local name=$1
    shift
    git_real -C "$R" switch -q -c "$name" main
    (cd "$R" && "$@")
    git_real -C "$R" commit -q -a -m "$name"
    git_real -C "$R" switch -q main
    git_real -C "$R" branch -q -D "$name" 2>/dev/null
}
edit_save grown sed -i 's/^one$/ONE/' shared.txt
edit_save modeonly chmod +x mode.txt
edit_save unique sed -i 's/^mine$/only mine/' mine.txt
# The remote takes grown's change and more in the same file, and modeonly's change of mode.
sed -i 's/^one$/ONE/; s/^three$/THREE/' "$R/shared.txt"
chmod +x "$R/mode.txt"
git_real -C "$R" commit -q -a -m "upstream: grown's change and more, the mode"
git_real -C "$R" push -q origin main
git_real -C "$R" fetch -q origin
GROWN=$(save_of grown) MODEONLY=$(save_of modeonly) UNIQUE=$(save_of unique)
assert_ne "" "$GROWN$MODEONLY$UNIQUE" "the three branches were saved"
run_cmd "$GUARD" -C "$R" drop --published
assert_eq 0 "$RC" "drop --published succeeds: $ERR"
AFTER=$(listed)
assert_not_contains "$AFTER" "$GROWN" "a save whose change the remote holds within a later version of the file is published, dropped"
assert_not_contains "$AFTER" "$MODEONLY" "a save whose change of mode alone the remote holds is published, dropped"
assert_contains "$AFTER" "$UNIQUE" "drop --published dropped $UNIQUE, whose change exists nowhere else"

section "the same judgements among many saves (their diffs run beside the walks)"
# 64 tips or more: the diffs of every tip start before the ancestry walks and only those of
# a tip whose one parent the base reaches are read; the judgements must not change.
main_id=$(git_real -C "$R" rev-parse main)
for i in $(seq 1 70); do
    msg="many $i"
    printf 'commit refs/heads/many%d\ncommitter x <x@y> %d +0000\ndata %d\n%s\nfrom %s\nM 100644 inline many%d.txt\ndata 2\n%d\n\n' \
        "$i" $((1700000000 + i)) ${#msg} "$msg" "$main_id" "$i" $((i % 10))
done | git_real -C "$R" -c core.hooksPath=/dev/null fast-import --quiet
run_cmd git_real -C "$R" branch -D $(git_real -C "$R" for-each-ref --format='%(refname:short)' 'refs/heads/many*')
assert_eq 0 "$RC" "branch -D of 70 branches: $ERR"
edit_save grown2 sed -i 's/^two$/TWO/' shared.txt
edit_save unique2 sed -i 's/^mine$/mine, again/' mine.txt
sed -i 's/^two$/TWO/' "$R/shared.txt"
echo upstream >>"$R/mode.txt"
git_real -C "$R" commit -q -a -m "upstream: grown2's change and more"
git_real -C "$R" push -q origin main
git_real -C "$R" fetch -q origin
GROWN2=$(save_of grown2) UNIQUE2=$(save_of unique2)
MANY=$("$GUARD" -C "$R" list --all --json | jq -r 'select(.branch // "" | startswith("many")) | .ref' | sort)
assert_eq 70 "$(printf '%s\n' "$MANY" | grep -c .)" "the 70 deleted branches were saved"
run_cmd "$GUARD" -C "$R" drop --published
assert_eq 0 "$RC" "drop --published succeeds: $ERR"
AFTER=$(listed)
assert_not_contains "$AFTER" "$GROWN2" "among many saves, a save whose change the remote holds is published, dropped"
assert_contains "$AFTER" "$UNIQUE2" "among many saves, drop --published dropped $UNIQUE2, whose change exists nowhere else"
assert_eq "" "$(comm -23 <(printf '%s\n' "$MANY") <(printf '%s\n' "$AFTER"))" \
    "drop --published dropped some of the 70 unpublished saves (their work exists nowhere else)"

finish
