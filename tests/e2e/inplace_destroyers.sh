#!/usr/bin/env bash
# In-place destroyers through the shim (DESIGN §6, issue 10): reset --hard/--merge/--keep,
# checkout with paths and -f, switch -f/--discard-changes, restore, clean, stash drop/clear.
# Each runs in its own guarded tree and, with the real git, on an identical twin:
#   - what the command destroys is reachable from a save under refs/stranded/ (blob ids),
#     and what it leaves alone is not saved (the save is exactly what goes);
#   - stdout, stderr (but for the one line naming the save) and the exit code are git's,
#     byte for byte, and so is the tree afterwards;
#   - `git branch` is unchanged (the saves are no branches).
# Controls: a clean tree saves nothing; an unguarded repository passes through byte for byte.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

source "$(dirname "${BASH_SOURCE[0]}")/inplace_fixtures.bash"

shim_on

# --- reset ------------------------------------------------------------------------------

section "reset --hard: staged and unstaged changes saved; untracked files it leaves are not"
twins reset-hard
same_as_git reset-hard reset --hard
one_save_line reset-hard
assert_saved "$A_STAGED" "the staged version of a.txt"
assert_saved "$A_WT" "the unstaged edit of a.txt"
assert_saved "$B_WT" "the unstaged edit of b.txt"
assert_not_saved "$N_U" "the untracked n.txt"
assert_eq "a staged" "$(git_real -C "$G" show "$(saves "$G")^2:a.txt")" "reset --hard: the index record holds the staged a.txt"
assert_eq "a.txt" "$(git_real -C "$G" diff --name-only "$(saves "$G")^1" "$(saves "$G")^2")" \
    "reset --hard: the index record differs from HEAD in a.txt only"

section "reset --hard with stdout, or stdin, closed: saved, and git's own exit code"
# A caller that closed fd 1 (a daemon, a harness): the first pipe the guard made for git's
# answer took fd 1, its child lost its stdout, and reset --hard was refused (exit 128,
# "not a git repository") where git alone succeeds.
for how in stdout stdin; do
    twins "reset-closed-$how"
    if [ "$how" = stdout ]; then
        (cd "$G" && env PATH="$SHIM_DIR:$BASE_PATH" git reset -q --hard >&- 2>"$TEST_ROOT/closed.err") && RC=0 || RC=$?
        (cd "$P" && "$REAL_GIT" reset -q --hard >&-) && PLAIN_RC=0 || PLAIN_RC=$?
    else
        (cd "$G" && env PATH="$SHIM_DIR:$BASE_PATH" git reset -q --hard <&- 2>"$TEST_ROOT/closed.err") && RC=0 || RC=$?
        (cd "$P" && "$REAL_GIT" reset -q --hard <&-) && PLAIN_RC=0 || PLAIN_RC=$?
    fi
    assert_eq "$PLAIN_RC" "$RC" "reset --hard with $how closed: the exit code is not git's ($(head -c 300 "$TEST_ROOT/closed.err"))"
    assert_saved "$B_WT" "reset --hard with $how closed: b.txt's edit"
    assert_eq "$(git_real -C "$P" status --porcelain=v2 -uall)" "$(git_real -C "$G" status --porcelain=v2 -uall)" \
        "reset --hard with $how closed: the tree does not end as git leaves it"
done

section "git -C <tree> reset --hard from a directory that was removed: saved"
twins reset-gone
mkdir -p "$TEST_ROOT/gone" && cd "$TEST_ROOT/gone" && rmdir "$TEST_ROOT/gone"
env PATH="$SHIM_DIR:$BASE_PATH" git -C "$G" reset -q --hard 2>"$TEST_ROOT/gone.err" && RC=0 || RC=$?
cd "$TEST_ROOT" || exit 1
assert_eq 0 "$RC" "reset --hard from a removed directory failed ($(head -c 300 "$TEST_ROOT/gone.err"))"
assert_saved "$B_WT" "reset --hard from a removed directory: b.txt's edit"
assert_saved "$A_STAGED" "reset --hard from a removed directory: a.txt's staged version"

section "reset --hard HEAD~1: also the untracked file its tree overwrites"
twins reset-hard-rev
same_as_git reset-hard-rev reset --hard HEAD~1
one_save_line reset-hard-rev
assert_saved "$OLD_U" "the untracked old.txt that HEAD~1 overwrites"
assert_saved "$A_WT" "the unstaged edit of a.txt"
assert_not_saved "$N_U" "the untracked n.txt"

section "reset -q --hard and --quiet: saved, and quiet as git is (git's own t3903, t2070)"
twins reset-quiet
same_as_git reset-quiet reset -q --hard
assert_eq 0 "$GUARD_LINES" "reset -q --hard: the guard printed a line although git was asked to be quiet"
assert_saved "$A_WT" "reset -q --hard: the unstaged edit of a.txt"
assert_saved "$A_STAGED" "reset -q --hard: the staged version of a.txt"
twins restore-quiet
same_as_git restore-quiet restore --quiet .
assert_eq 0 "$GUARD_LINES" "restore --quiet: the guard printed a line although git was asked to be quiet"
assert_saved "$B_WT" "restore --quiet: the unstaged edit of b.txt"

section "reset --hard over a conflict whose path is now a directory (git's own t7104)"
twins conflict-dir clean
for t in "$G" "$P"; do
    unmerge_a "$t"
    rm -f "$t/a.txt" && mkdir "$t/a.txt" && printf 'inside the directory\n' >"$t/a.txt/inner"
done
INNER=$(git_real -C "$G" hash-object a.txt/inner)
same_as_git conflict-dir reset --hard
one_save_line conflict-dir
assert_saved "$INNER" "the untracked a.txt/inner where the conflicted a.txt was"
assert_eq "inside the directory" "$(git_real -C "$G" show "$(saves "$G"):a.txt/inner" 2>&1)" \
    "the save does not hold a.txt/inner: reset --hard destroyed it"

section "a whole-tree save leaves out the nested repository reset --hard leaves alone (git's own t7400)"
twins conflict-nested clean
for t in "$G" "$P"; do
    unmerge_a "$t"
    printf 'a worktree\n' >"$t/a.txt"
    git_real init -q "$t/inner"
    printf 'inner\n' >"$t/inner/i.txt"
    # A SHA-256 repository inside it: neither its objects nor its files can go into a
    # SHA-1 store, so no save can hold inner.
    git_real init -q --object-format=sha256 "$t/inner/sub"
    printf 'sub\n' >"$t/inner/sub/s.txt"
    git_real -C "$t/inner/sub" add s.txt && git_real -C "$t/inner/sub" commit -qm sub
done
A_CONFLICT=$(git_real -C "$G" hash-object a.txt)
same_as_git conflict-nested reset --hard
one_save_line conflict-nested
assert_saved "$A_CONFLICT" "the conflicted a.txt's working version"
assert_eq "inner" "$(cat "$G/inner/i.txt" 2>&1)" "reset --hard touched the nested repository it leaves alone"

section "reset --merge and --keep: what they could lose is saved (git may refuse)"
twins reset-merge
same_as_git reset-merge reset --merge
assert_saved "$A_STAGED" "reset --merge: the staged version of a.txt"
twins reset-keep
same_as_git reset-keep reset --keep HEAD~1
assert_saved "$A_WT" "reset --keep: the unstaged edit of a.txt"
twins reset-abbrev
same_as_git reset-abbrev reset --har
assert_saved "$B_WT" "reset --har (git reads --hard): the edit of b.txt"

# --- checkout ---------------------------------------------------------------------------

section "checkout -- . : the unstaged edits"
twins checkout-dot
same_as_git checkout-dot checkout -- .
one_save_line checkout-dot
assert_saved "$A_WT" "the unstaged edit of a.txt"
assert_saved "$B_WT" "the unstaged edit of b.txt"

section "checkout -- b.txt: that file only"
twins checkout-path
same_as_git checkout-path checkout -- b.txt
one_save_line checkout-path
assert_saved "$B_WT" "the unstaged edit of b.txt"
assert_not_saved "$A_WT" "the edit of a.txt"
assert_eq "b.txt" "$(git_real -C "$G" diff --name-only "$(saves "$G")^1" "$(saves "$G")")" \
    "checkout -- b.txt: the save differs from HEAD in b.txt alone"

section "checkout -- <1,100 paths>, as xargs hands them: every edit saved"
# The front end held 1,024 words; a longer call went to git unguarded.
MANY=$TEST_ROOT/guarded/many
git_real init -q "$MANY"
for i in $(seq 1 1100); do printf '%s\n' "$i" >"$MANY/f$i.txt"; done
git_real -C "$MANY" add -A && git_real -C "$MANY" commit -qm many
git_real -C "$MANY" config guard.enabled true
for i in $(seq 1 1100); do printf 'edit %s\n' "$i" >"$MANY/f$i.txt"; done
EDIT_1=$(git_real -C "$MANY" hash-object f1.txt)
EDIT_1100=$(git_real -C "$MANY" hash-object f1100.txt)
(cd "$MANY" && seq -f 'f%g.txt' 1 1100 | env PATH="$SHIM_DIR:$BASE_PATH" xargs git checkout -- 2>"$TEST_ROOT/many.err") &&
    RC=0 || RC=$?
assert_eq 0 "$RC" "checkout of 1,100 paths failed ($(head -c 300 "$TEST_ROOT/many.err"))"
assert_eq "1" "$(cat "$MANY/f1.txt")" "checkout of 1,100 paths: git did not check f1.txt out"
MANY_SAVED=$(G=$MANY saved_objects "$MANY")
for blob in "$EDIT_1" "$EDIT_1100"; do
    if grep -qx "$blob" <<<"$MANY_SAVED"; then pass "checkout of 1,100 paths: edit $blob is reachable from a save"
    else fail "checkout of 1,100 paths: edit $blob was destroyed, not saved"; fi
done

section "checkout . (no --), from a subdirectory, and checkout HEAD -- a.txt"
twins checkout-bare-dot
same_as_git checkout-bare-dot checkout .
assert_saved "$B_WT" "checkout .: the edit of b.txt"
twins checkout-sub
printf 'e edited\n' >"$G/d/e.txt" && printf 'e edited\n' >"$P/d/e.txt"
E_WT=$(git_real -C "$G" hash-object d/e.txt)
G_TOP=$G P_TOP=$P
G=$G_TOP/d P=$P_TOP/d same_as_git checkout-sub checkout -- e.txt
G=$G_TOP P=$P_TOP
assert_saved "$E_WT" "checkout -- e.txt in d/: the edit of d/e.txt"
assert_not_saved "$B_WT" "checkout -- e.txt in d/: the edit of b.txt"
twins checkout-rev-path
same_as_git checkout-rev-path checkout HEAD -- a.txt
assert_saved "$A_STAGED" "checkout HEAD -- a.txt: the staged version"
assert_saved "$A_WT" "checkout HEAD -- a.txt: the unstaged edit"
assert_not_saved "$B_WT" "checkout HEAD -- a.txt: the edit of b.txt"

section "checkout -f other: every local change"
twins checkout-force
same_as_git checkout-force checkout -f other
one_save_line checkout-force
assert_saved "$A_STAGED" "the staged version of a.txt"
assert_saved "$B_WT" "the unstaged edit of b.txt"

section "checkout -p with no paths: the hunks it offers to discard"
twins checkout-patch
(cd "$G" && yes y | env PATH="$SHIM_DIR:$BASE_PATH" git checkout -p >/dev/null 2>&1)
assert_saved "$B_WT" "checkout -p: the edit of b.txt it discarded"
assert_eq "b" "$(cat "$G/b.txt")" "checkout -p: git discarded the hunk as asked"

section "checkout of a missing path: git refuses alike, nothing saved"
twins checkout-missing
same_as_git checkout-missing checkout -- missing-path
nothing_saved checkout-missing

# --- switch -----------------------------------------------------------------------------

section "switch --discard-changes other, switch -f other"
twins switch-discard
same_as_git switch-discard switch --discard-changes other
one_save_line switch-discard
assert_saved "$A_STAGED" "switch --discard-changes: the staged version of a.txt"
assert_saved "$B_WT" "switch --discard-changes: the edit of b.txt"
twins switch-force
same_as_git switch-force switch -f other
assert_saved "$A_WT" "switch -f: the unstaged edit of a.txt"
twins switch-plain
same_as_git switch-plain switch other
nothing_saved switch-plain

# --- restore ----------------------------------------------------------------------------

section "restore ., restore --source=HEAD~1 -- old.txt, restore --staged --worktree a.txt"
twins restore-dot
same_as_git restore-dot restore .
one_save_line restore-dot
assert_saved "$A_WT" "restore .: the unstaged edit of a.txt"
assert_saved "$B_WT" "restore .: the unstaged edit of b.txt"
twins restore-source
same_as_git restore-source restore --source=HEAD~1 -- old.txt
assert_saved "$OLD_U" "restore --source=HEAD~1: the untracked old.txt it overwrites"
assert_not_saved "$B_WT" "restore --source=HEAD~1 -- old.txt: the edit of b.txt"
twins restore-both
same_as_git restore-both restore --staged --worktree a.txt
assert_saved "$A_STAGED" "restore --staged --worktree: the staged version of a.txt"
assert_saved "$A_WT" "restore --staged --worktree: the unstaged edit of a.txt"
twins restore-staged
same_as_git restore-staged restore --staged a.txt
nothing_saved restore-staged

# --- clean ------------------------------------------------------------------------------

section "clean -fd: untracked files; ignored ones are not saved"
twins clean-fd
mkdir -p "$G/newdir" "$P/newdir" && printf 'deep\n' >"$G/newdir/deep.txt" && printf 'deep\n' >"$P/newdir/deep.txt"
DEEP=$(git_real -C "$G" hash-object newdir/deep.txt)
same_as_git clean-fd clean -fd
one_save_line clean-fd
assert_saved "$N_U" "clean -fd: the untracked n.txt"
assert_saved "$DEEP" "clean -fd: the untracked newdir/deep.txt"
assert_not_saved "$ENV_I" "clean -fd: the ignored .env (clean -fd keeps it)"

section "clean -fdx with guard.keepIgnored=.env: .env saved, other ignored output not"
twins clean-fdx
git_real -C "$G" config guard.keepIgnored .env
same_as_git clean-fdx clean -fdx
one_save_line clean-fdx
assert_saved "$ENV_I" "clean -fdx: the ignored .env that guard.keepIgnored keeps"
assert_not_saved "$OBJ_I" "clean -fdx: the ignored build.o"
assert_saved "$N_U" "clean -fdx: the untracked n.txt"
twins clean-fX
git_real -C "$G" config guard.keepIgnored .env
same_as_git clean-fX clean -fX
assert_saved "$ENV_I" "clean -fX: the ignored .env that guard.keepIgnored keeps"
assert_not_saved "$N_U" "clean -fX: the untracked n.txt (clean -X leaves it)"

section "clean -fd with git speaking German (LANGUAGE=de): the untracked files are saved"
# The guard reads `git clean -n`'s "Would remove" lines; it asks git in English whatever the
# caller's locale (a German "Würde n.txt löschen" read as nothing to save lost n.txt).
git_real init -q "$TEST_ROOT/de-probe" && : >"$TEST_ROOT/de-probe/u"
if LC_ALL=C.UTF-8 LANGUAGE=de git_real -C "$TEST_ROOT/de-probe" clean -n | grep -q '^Would remove'; then
    echo "  SKIP this git speaks no German (built without gettext, or no git.mo for de): nothing checked"
else
    twins clean-de
    export LC_ALL=C.UTF-8 LANGUAGE=de
    same_as_git clean-de clean -fd
    export LC_ALL=C && unset LANGUAGE
    one_save_line clean-de
    assert_saved "$N_U" "clean -fd in German: the untracked n.txt"
fi

# --- a branch forced onto another commit ---------------------------------------------------

# wip_branch DIR: a branch `wip` with one commit of its own, then back on main.
wip_branch() {
    git_real -C "$1" checkout -q -b wip && printf 'wip\n' >"$1/wip.txt" &&
        git_real -C "$1" add wip.txt && git_real -C "$1" commit -qm "wip work" &&
        git_real -C "$1" checkout -q main
}

section "branch -f, checkout -B, switch -C, branch -M: the commits only the old branch held are saved"
for cmd in "branch -f wip main" "branch --forc wip other" "checkout -B wip main" "checkout -qB wip" \
    "switch -C wip main" "switch --force-create wip" "branch -M other wip" "branch -m -f other wip"; do
    name=$(echo "$cmd" | tr -c 'a-z0-9\n' '-')
    twins "$name" clean
    wip_branch "$G" && wip_branch "$P"
    WIP=$(git_real -C "$G" rev-parse wip)
    # shellcheck disable=SC2086
    same_as_git "$name" $cmd
    assert_saved "$WIP" "$cmd: the commit only wip held"
    assert_contains "$(tail -1 "$G/.git/guard/journal.jsonl")" '"branch":"wip"' "$cmd: the journal does not name the branch that lost the commit"
    [[ $cmd == *-q* ]] || one_save_line "$name"
done

section "worktree add -B wip <path> main: git's own branch -f child saves wip's commit"
twins worktree-add-B clean
wip_branch "$G"
WIP=$(git_real -C "$G" rev-parse wip)
env PATH="$SHIM_DIR:$BASE_PATH" git -C "$G" worktree add -q -B wip "$TEST_ROOT/guarded/wt-add-B" main 2>"$TEST_ROOT/wtB.err" && RC=0 || RC=$?
assert_eq 0 "$RC" "worktree add -B failed ($(head -c 300 "$TEST_ROOT/wtB.err"))"
assert_eq "$(git_real -C "$G" rev-parse main)" "$(git_real -C "$G" rev-parse wip)" "worktree add -B: git did not reset wip"
assert_saved "$WIP" "worktree add -B: the commit only wip held"

section "branch -f in a bare repository (an orchestrator's, beside its worktrees): saved"
BARE=$TEST_ROOT/guarded/bare.git
make_tree "$TEST_ROOT/bare-src" && git_real clone -q --bare "$TEST_ROOT/bare-src" "$BARE"
git_real -C "$BARE" config guard.enabled true
BARE_WIP=$(git_real -C "$BARE" commit-tree -p main -m "wip, made in a worktree" "$(git_real -C "$BARE" rev-parse 'main^{tree}')")
git_real -C "$BARE" update-ref refs/heads/wip "$BARE_WIP"
env PATH="$SHIM_DIR:$BASE_PATH" git -C "$BARE" branch -f wip main 2>"$TEST_ROOT/bare.err" && RC=0 || RC=$?
assert_eq 0 "$RC" "branch -f in a bare repository failed ($(head -c 300 "$TEST_ROOT/bare.err"))"
assert_eq "$(git_real -C "$BARE" rev-parse main)" "$(git_real -C "$BARE" rev-parse wip)" "branch -f in a bare repository: git did not move wip"
if saved_objects "$BARE" | grep -qx "$BARE_WIP"; then pass "branch -f in a bare repository: wip's commit is reachable from a save"
else fail "branch -f in a bare repository: wip's commit was destroyed, not saved"; fi
assert_contains "$(cat "$TEST_ROOT/bare.err")" "refs/stranded/bare/" "branch -f in a bare repository: the save is not named after the repository"

section "branch -f of a branch whose commits another branch holds, or a new branch: nothing saved"
twins branch-f-held clean
wip_branch "$G" && wip_branch "$P"
git_real -C "$G" branch keep wip && git_real -C "$P" branch keep wip
same_as_git branch-f-held branch -f wip main
nothing_saved branch-f-held
twins branch-f-new clean
same_as_git branch-f-new branch -f brand-new main
nothing_saved branch-f-new

# --- submodule update --force, submodule deinit --force ------------------------------------

# with_submodule DIR: DIR (a superproject) with a submodule `sub` holding s.txt, committed.
with_submodule() {
    local lib=$TEST_ROOT/sub-origin
    [ -d "$lib" ] || { git_real init -q "$lib" && printf 's\n' >"$lib/s.txt" &&
        git_real -C "$lib" add s.txt && git_real -C "$lib" commit -qm s; }
    git_real -C "$1" submodule add -q "$lib" sub && git_real -C "$1" commit -qm "add sub"
}

section "submodule update --force, submodule deinit -f: the submodule's own edits are saved"
for cmd in "submodule update --force" "submodule deinit -f sub" "submodule update --forc -- sub"; do
    name=$(echo "$cmd" | tr -c 'a-z0-9\n' '-')
    twins "$name" clean
    with_submodule "$G" && with_submodule "$P"
    for t in "$G" "$P"; do printf 'edit in the submodule\n' >"$t/sub/s.txt"; done
    SUB_EDIT=$(git_real -C "$G/sub" hash-object s.txt)
    # shellcheck disable=SC2086
    same_as_git "$name" $cmd
    one_save_line "$name"
    assert_saved "$SUB_EDIT" "$cmd: the edit to sub/s.txt"
done
twins submodule-update-plain clean
with_submodule "$G" && with_submodule "$P"
same_as_git submodule-update-plain submodule update
nothing_saved submodule-update-plain

# --- rm -f, and the end of a merge, rebase, cherry-pick or am ----------------------------

section "rm -f b.txt, rm -rf d: the working and staged versions they remove are saved"
twins rm-f
same_as_git rm-f rm -f b.txt a.txt
one_save_line rm-f
assert_saved "$B_WT" "rm -f: b.txt's edit"
assert_saved "$A_STAGED" "rm -f: a.txt's staged version"
assert_saved "$A_WT" "rm -f: a.txt's working version"
twins rm-rf-dir clean
printf 'e edited\n' >"$G/d/e.txt" && printf 'e edited\n' >"$P/d/e.txt"
E_WT=$(git_real -C "$G" hash-object d/e.txt)
same_as_git rm-rf-dir rm -r -q --force d
assert_saved "$E_WT" "rm -r --force d: d/e.txt's edit"
assert_eq 0 "$GUARD_LINES" "rm -q: quiet as git is"

section "rm b.txt without -f: git refuses alike, nothing saved"
twins rm-plain
same_as_git rm-plain rm b.txt
nothing_saved rm-plain

# conflict TREE: main changes d/e.txt as `other` does not, then merges `other`: a conflict.
conflict() {
    printf 'e main\n' >"$1/d/e.txt" && git_real -C "$1" commit -qam "main changes e"
    ! git_real -C "$1" "${@:2}" >/dev/null 2>&1
}

section "merge --abort: the conflict's resolution and the other edits are saved"
twins merge-abort clean
conflict "$G" merge other && conflict "$P" merge other
for t in "$G" "$P"; do printf 'careful resolution\n' >"$t/d/e.txt" && printf 'b edit\n' >"$t/b.txt"; done
RESOLVED=$(git_real -C "$G" hash-object d/e.txt)
B_EDIT=$(git_real -C "$G" hash-object b.txt)
same_as_git merge-abort merge --abort
one_save_line merge-abort
assert_saved "$RESOLVED" "merge --abort: the conflict's resolution in d/e.txt"
assert_saved "$B_EDIT" "merge --abort: the edit to b.txt"

section "merge --abort with no merge under way: git refuses alike, nothing saved"
twins merge-abort-none
same_as_git merge-abort-none merge --abort
nothing_saved merge-abort-none

section "rebase --abort, cherry-pick --abort, rebase --skip: the resolution is saved"
for op in "rebase other:rebase --abort" "cherry-pick other:cherry-pick --abort" "rebase other:rebase --skip"; do
    start=${op%%:*} end=${op#*:}
    name=$(echo "$end" | tr -c 'a-z0-9\n' '-')
    twins "$name" clean
    # shellcheck disable=SC2086
    conflict "$G" $start && conflict "$P" $start
    for t in "$G" "$P"; do printf 'resolution of %s\n' "$end" >"$t/d/e.txt"; done
    RESOLVED=$(git_real -C "$G" hash-object d/e.txt)
    # shellcheck disable=SC2086
    same_as_git "$name" $end
    one_save_line "$name"
    assert_saved "$RESOLVED" "$end: the conflict's resolution in d/e.txt"
done

section "rebase --abort after new work was committed at an edit stop: that commit is saved"
twins rebase-abort-edit clean
for t in "$G" "$P"; do
    (cd "$t" && GIT_SEQUENCE_EDITOR="sed -i 1s/^pick/edit/" git_real rebase -q -i HEAD~1 >/dev/null 2>&1) &&
        printf 'new work\n' >"$t/new.txt" && git_real -C "$t" add new.txt &&
        git_real -C "$t" commit -qm "new work at the edit stop"
done
NEW_WORK=$(git_real -C "$G" rev-parse HEAD)
same_as_git rebase-abort-edit rebase --abort
one_save_line rebase-abort-edit
assert_saved "$NEW_WORK" "rebase --abort: the commit made at the edit stop"

# --- stash ------------------------------------------------------------------------------

# stashes DIR: three stash entries, each holding a distinct edit of b.txt.
stashes() {
    for n in 1 2 3; do
        printf 'stash %s\n' "$n" >"$1/b.txt"
        git_real -C "$1" stash -q
    done
}

section "stash drop, stash drop stash@{1}, stash clear: every dropped stash commit reachable"
twins stash-drop clean
stashes "$G" && stashes "$P"
TOP=$(git_real -C "$G" rev-parse stash@{0})
same_as_git stash-drop stash drop
one_save_line stash-drop
assert_saved "$TOP" "stash drop: the dropped stash@{0}"
SECOND=$(git_real -C "$G" rev-parse stash@{1})
same_as_git stash-drop-1 stash drop stash@{1}
assert_saved "$SECOND" "stash drop stash@{1}: the dropped entry"
LEFT=$(git_real -C "$G" rev-parse stash@{0})
same_as_git stash-clear stash clear
assert_saved "$LEFT" "stash clear: the last entry"
assert_eq "stash 3" "$(git_real -C "$G" show "$TOP:b.txt")" "stash drop: the dropped content is readable with plain git"

# --- controls ---------------------------------------------------------------------------

section "controls: a clean tree saves nothing for checkout -- ., reset --hard, clean -fd"
for cmd in "checkout -- ." "reset --hard" "clean -fd" "restore ." "switch -f other"; do
    name=clean-$(echo "$cmd" | tr -c 'a-z\n' '-')
    twins "$name" clean
    # shellcheck disable=SC2086
    same_as_git "$name" $cmd
    nothing_saved "$name"
done

section "controls: unguarded repositories pass through byte for byte"
for cmd in "reset --hard" "reset --hard HEAD~1" "checkout -- ." "checkout -f other" "switch -f other" \
    "restore ." "clean -fdx" "stash drop" "checkout -- missing-path" "rm -f b.txt" "merge --abort"; do
    name=unguarded-$(echo "$cmd" | tr -c 'a-z0-9\n' '-')
    twins "$name"
    git_real -C "$G" config --unset guard.enabled
    [ "$cmd" != "stash drop" ] || { git_real -C "$G" stash -q && git_real -C "$P" stash -q; }
    # shellcheck disable=SC2086
    same_as_git "$name" $cmd
    nothing_saved "$name"
done

finish
