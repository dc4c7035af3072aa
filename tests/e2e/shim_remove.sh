#!/usr/bin/env bash
# The shim's promise (DESIGN §2, §6), with the real git and the shim first on PATH:
# a forced `git worktree remove` saves every kind of work (§4.1) on a verified
# stranded branch before git removes the tree; git's stdout and exit code stay git's
# own, plus one stderr line naming the branch; a plain removal of a clean detached
# tree saves its commit; every route to the shim (-C from elsewhere, an alias, a
# Python client, from inside another worktree) is guarded; `worktree prune` saves
# a deleted detached tree's commit; an unguarded repository gets pure pass-through.
# The controls at the end show that git alone loses what the guard saves.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# --- local helpers --------------------------------------------------------------------

# make_clone NAME: $TEST_ROOT/NAME cloned from a bare $TEST_ROOT/NAME.origin whose main
# holds README, a.txt and a .gitignore of *.log; also a branch `theirs` that changes
# a.txt (for conflicts). Deterministic: two calls give identical commits.
make_clone() {
    local name=$1 seed=$TEST_ROOT/$1.seed
    new_repo "$seed"
    commit_file "$seed" a.txt "a"
    commit_file "$seed" .gitignore "*.log"
    git_real init -q --bare "$TEST_ROOT/$name.origin"
    git_real -C "$seed" push -q "$TEST_ROOT/$name.origin" main
    git_real clone -q "$TEST_ROOT/$name.origin" "$TEST_ROOT/$name"
    rm -rf "$seed"
    git_real -C "$TEST_ROOT/$name" branch -q theirs
    git_real -C "$TEST_ROOT/$name" worktree add -q "$TEST_ROOT/$name.tmp" theirs
    commit_file "$TEST_ROOT/$name.tmp" a.txt "theirs" "theirs changes a.txt"
    git_real -C "$TEST_ROOT/$name" worktree remove "$TEST_ROOT/$name.tmp"
}

# stranded REPO [PREFIX]: the stranded branches (short names), one a line.
stranded() {
    git_real -C "$1" for-each-ref --format='%(refname:short)' "refs/heads/stranded/${2:-}"
}

# count TEXT: how many non-empty lines.
count() {
    if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | grep -c .; fi
}

# reachable REPO COMMIT PREFIX: the refs under PREFIX that contain COMMIT.
reachable() {
    git_real -C "$1" for-each-ref --contains "$2" --format='%(refname)' "$3"
}

# trailer REPO REF KEY: a trailer of REF's commit message.
trailer() {
    git_real -C "$1" log -1 --format=%B "$2" | sed -n "s/^$3: //p"
}

make_clone repo
make_clone twin
REPO=$TEST_ROOT/repo
TWIN=$TEST_ROOT/twin
git_real -C "$REPO" config guard.enabled true
assert_eq "$(git_real -C "$TWIN" rev-parse main theirs)" "$(git_real -C "$REPO" rev-parse main theirs)" \
    "the twin repository has the same commits"
shim_on
cd "$TEST_ROOT" || exit 1

# --- each kind of work ------------------------------------------------------------------

# make_work TREE KIND: gives TREE (a fresh tree on its own branch) one kind of work.
make_work() {
    local t=$1
    case $2 in
    modified) printf 'a\nchanged in the tree\n' >"$t/a.txt" ;;
    staged) printf 'staged new file\n' >"$t/new.txt" && git_real -C "$t" add new.txt ;;
    staged-modified) printf 'staged version\n' >"$t/a.txt" && git_real -C "$t" add a.txt ;;
    deleted) rm "$t/a.txt" ;;
    staged-deleted) git_real -C "$t" rm -q a.txt ;;
    renamed) git_real -C "$t" mv a.txt moved.txt ;;
    untracked) mkdir -p "$t/new/dir" && printf 'untracked file\n' >"$t/new/dir/u.txt" ;;
    type-changed) rm "$t/a.txt" && ln -s README "$t/a.txt" ;;
    mode-changed) chmod +x "$t/a.txt" ;;
    unmerged)
        commit_file "$t" a.txt "ours" "ours changes a.txt" &&
            ! git_real -C "$t" merge -q theirs >/dev/null 2>&1 &&
            [ -n "$(git_real -C "$t" ls-files -u)" ]
        ;;
    esac
}

# check_work REF KIND: asserts that REF holds KIND of work, naming the loss if not.
check_work() {
    local ref=$1
    case $2 in
    modified)
        assert_eq "$(printf 'a\nchanged in the tree')" "$(git_real -C "$REPO" show "$ref:a.txt" 2>&1)" \
            "modified: the edit to a.txt was destroyed, not saved"
        ;;
    staged)
        assert_eq "staged new file" "$(git_real -C "$REPO" show "$ref:new.txt" 2>&1)" \
            "staged: the staged new file was destroyed, not saved"
        ;;
    staged-modified)
        assert_eq "staged version" "$(git_real -C "$REPO" show "$ref:a.txt" 2>&1)" \
            "staged-modified: the staged edit of a.txt was destroyed, not saved"
        ;;
    deleted | staged-deleted)
        assert_eq "" "$(git_real -C "$REPO" ls-tree --name-only "$ref" a.txt)" \
            "$2: the deletion of a.txt was not saved (the save still has a.txt)"
        assert_eq "readme" "$(git_real -C "$REPO" show "$ref:README" 2>&1)" \
            "$2: the saved tree still has the untouched README"
        ;;
    renamed)
        assert_eq "a" "$(git_real -C "$REPO" show "$ref:moved.txt" 2>&1)" \
            "renamed: the renamed file moved.txt was destroyed, not saved"
        assert_eq "" "$(git_real -C "$REPO" ls-tree --name-only "$ref" a.txt)" \
            "renamed: the save records the rename (a.txt is gone from it)"
        ;;
    untracked)
        assert_eq "untracked file" "$(git_real -C "$REPO" show "$ref:new/dir/u.txt" 2>&1)" \
            "untracked: the untracked file new/dir/u.txt was destroyed, not saved"
        ;;
    type-changed)
        assert_eq "120000 README" \
            "$(git_real -C "$REPO" ls-tree "$ref" a.txt | awk '{print $1}') $(git_real -C "$REPO" cat-file -p "$ref:a.txt" 2>&1)" \
            "type-changed: a.txt turned symlink was destroyed, not saved"
        ;;
    mode-changed)
        assert_eq "100755" "$(git_real -C "$REPO" ls-tree "$ref" a.txt | awk '{print $1}')" \
            "mode-changed: the executable bit on a.txt was destroyed, not saved"
        ;;
    unmerged)
        local text
        text=$(git_real -C "$REPO" show "$ref:a.txt" 2>&1)
        assert_contains "$text" "<<<<<<<" "unmerged: the conflicted a.txt (with its markers) was destroyed, not saved"
        assert_contains "$text" "theirs" "unmerged: the saved conflict keeps their side"
        assert_contains "$text" "ours" "unmerged: the saved conflict keeps our side"
        ;;
    esac
}

KINDS="modified staged staged-modified deleted staged-deleted renamed untracked type-changed mode-changed unmerged"
for kind in $KINDS; do
    section "git worktree remove --force: $kind work is saved"
    tree=$TEST_ROOT/wt-$kind
    git_real -C "$REPO" worktree add -q -b "b-$kind" "$tree" main
    make_work "$tree" "$kind" || fail "$kind: the test could not set up its work"
    head=$(git_real -C "$tree" rev-parse HEAD)
    # The twin: a clean tree of the same name, removed by git alone.
    git_real -C "$TWIN" worktree add -q -b "b-$kind" "$TWIN.wt-$kind" main
    (cd "$TWIN" && record "$TEST_ROOT/out/twin-$kind" "$REAL_GIT" worktree remove --force "../twin.wt-$kind")
    (cd "$REPO" && record "$TEST_ROOT/out/shim-$kind" git worktree remove --force "../wt-$kind")
    assert_eq "$(cat "$TEST_ROOT/out/twin-$kind.rc")" "$(cat "$TEST_ROOT/out/shim-$kind.rc")" \
        "$kind: the exit code is git's own"
    assert_same_file "$TEST_ROOT/out/twin-$kind.out" "$TEST_ROOT/out/shim-$kind.out" \
        "$kind: stdout is git's own, byte for byte"
    assert_no_file "$tree" "$kind: the tree is gone"
    refs=$(stranded "$REPO" "wt-$kind/")
    assert_eq 1 "$(count "$refs")" "$kind: exactly one stranded branch stranded/wt-$kind/* holds the work"
    ref=$(printf '%s\n' "$refs" | head -1)
    err=$(cat "$TEST_ROOT/out/shim-$kind.err")
    assert_eq "$(($(count "$(cat "$TEST_ROOT/out/twin-$kind.err")") + 1))" "$(count "$err")" \
        "$kind: stderr has exactly one line more than git's"
    assert_contains "$err" "${ref:-no stranded branch}" "$kind: the stderr line names the stranded branch"
    if [ -n "$ref" ]; then
        check_work "$ref" "$kind"
        assert_eq "$head" "$(git_real -C "$REPO" rev-parse "$ref^1" 2>&1)" \
            "$kind: the save's first parent is the tree's HEAD"
        assert_eq "worktree remove" "$(trailer "$REPO" "$ref" Stranded-Reason)" \
            "$kind: the save says why it was made (Stranded-Reason)"
        assert_eq "$tree" "$(trailer "$REPO" "$ref" Stranded-From)" \
            "$kind: the save says where it came from (Stranded-From)"
        assert_eq "b-$kind" "$(trailer "$REPO" "$ref" Stranded-Branch)" \
            "$kind: the save names the tree's branch (Stranded-Branch)"
    fi
    assert_eq "$head" "$(git_real -C "$REPO" rev-parse "b-$kind")" "$kind: the tree's branch did not move"
done

section "an ignored file is not work: removal is git's own, nothing saved"
git_real -C "$REPO" worktree add -q -b b-ignored "$TEST_ROOT/wt-ignored" main
echo "log" >"$TEST_ROOT/wt-ignored/debug.log"
git_real -C "$TWIN" worktree add -q -b b-ignored "$TWIN.wt-ignored" main
echo "log" >"$TWIN.wt-ignored/debug.log"
(cd "$TWIN" && record "$TEST_ROOT/out/twin-ignored" "$REAL_GIT" worktree remove --force "../twin.wt-ignored")
(cd "$REPO" && record "$TEST_ROOT/out/shim-ignored" git worktree remove --force "../wt-ignored")
for part in out err rc; do
    assert_same_file "$TEST_ROOT/out/twin-ignored.$part" "$TEST_ROOT/out/shim-ignored.$part" \
        "ignored only: $part is git's own, byte for byte"
done
assert_eq "" "$(stranded "$REPO" wt-ignored/)" "ignored only: no stranded branch"
assert_no_file "$TEST_ROOT/wt-ignored" "ignored only: the tree is gone"

# --- plain removal of a clean detached tree ---------------------------------------------

section "git worktree remove (no --force): a clean detached tree's new commit is saved"
git_real -C "$REPO" worktree add -q --detach "$TEST_ROOT/wt-detached" main
commit_file "$TEST_ROOT/wt-detached" detached.txt "made on a detached HEAD" "detached work"
detached=$(git_real -C "$TEST_ROOT/wt-detached" rev-parse HEAD)
assert_eq "" "$(git_real -C "$TEST_ROOT/wt-detached" status --porcelain)" "the detached tree is clean"
git_real -C "$TWIN" worktree add -q --detach "$TWIN.wt-detached" main
(cd "$TWIN" && record "$TEST_ROOT/out/twin-detached" "$REAL_GIT" worktree remove "../twin.wt-detached")
(cd "$REPO" && record "$TEST_ROOT/out/shim-detached" git worktree remove "../wt-detached")
assert_eq "$(cat "$TEST_ROOT/out/twin-detached.rc")" "$(cat "$TEST_ROOT/out/shim-detached.rc")" \
    "detached: the exit code is git's own"
assert_same_file "$TEST_ROOT/out/twin-detached.out" "$TEST_ROOT/out/shim-detached.out" \
    "detached: stdout is git's own"
assert_no_file "$TEST_ROOT/wt-detached" "detached: the tree is gone"
refs=$(stranded "$REPO" wt-detached/)
assert_eq 1 "$(count "$refs")" "detached: one stranded branch"
assert_eq "$detached" "$(git_real -C "$REPO" rev-parse "${refs:-none}" 2>&1)" \
    "detached: the commit made on the detached HEAD was lost, not saved (the branch points at it)"
err=$(cat "$TEST_ROOT/out/shim-detached.err")
assert_eq 1 "$(count "$err")" "detached: exactly one stderr line"
assert_contains "$err" "${refs:-no stranded branch}" "detached: the stderr line names the branch"

# --- every route to the shim -------------------------------------------------------------

# route_tree NAME: a tree on its own branch holding one untracked file, NAME.txt.
route_tree() {
    git_real -C "$REPO" worktree add -q -b "b-$1" "$TEST_ROOT/$1" main
    printf 'work of %s\n' "$1" >"$TEST_ROOT/$1/$1.txt"
}

# check_route NAME WHAT: the route's removal succeeded and saved the untracked file.
check_route() {
    assert_eq 0 "$RC" "$2: the removal succeeded ($ERR)"
    assert_no_file "$TEST_ROOT/$1" "$2: the tree is gone"
    local refs
    refs=$(stranded "$REPO" "$1/")
    assert_eq 1 "$(count "$refs")" "$2: one stranded branch"
    assert_eq "work of $1" "$(git_real -C "$REPO" show "${refs:-none}:$1.txt" 2>&1)" \
        "$2: the untracked file was destroyed, not saved"
    assert_contains "$ERR" "${refs:-no stranded branch}" "$2: the stderr line names the branch"
}

section "route: git -C <repo> worktree remove --force <tree> from another directory"
route_tree wt-route-c
mkdir -p "$TEST_ROOT/elsewhere"
cd "$TEST_ROOT/elsewhere" || exit 1
run_cmd git -C "$REPO" worktree remove --force ../wt-route-c
check_route wt-route-c "-C from elsewhere"

section "route: git -C <repo> worktree remove --force <tree> from a directory that was removed"
# getcwd fails there; git runs all the same once -C names an absolute directory. The front
# end passed such a call straight to git, unguarded.
route_tree wt-route-gone
mkdir -p "$TEST_ROOT/gone"
cd "$TEST_ROOT/gone" && rmdir "$TEST_ROOT/gone"
run_cmd git -C "$REPO" worktree remove --force "$TEST_ROOT/wt-route-gone"
check_route wt-route-gone "-C from a removed directory"
route_tree wt-route-gone2
mkdir -p "$TEST_ROOT/gone" && cd "$TEST_ROOT/gone" && rmdir "$TEST_ROOT/gone"
run_cmd git worktree remove --force "$TEST_ROOT/wt-route-gone2"
PLAIN_ERR=$("$REAL_GIT" worktree remove --force "$TEST_ROOT/wt-route-gone2" 2>&1) && PLAIN_RC=0 || PLAIN_RC=$?
assert_eq "$PLAIN_RC" "$RC" "no -C from a removed directory: the exit code is not git's"
assert_eq "$PLAIN_ERR" "$ERR" "no -C from a removed directory: the message is not git's"
assert_file_exists "$TEST_ROOT/wt-route-gone2/wt-route-gone2.txt" "no -C from a removed directory: the tree's file"
cd "$TEST_ROOT" || exit 1

section "route: an alias rmwt = worktree remove"
git_real -C "$REPO" config alias.rmwt "worktree remove"
route_tree wt-route-alias
cd "$REPO" || exit 1
run_cmd git rmwt --force ../wt-route-alias
check_route wt-route-alias "alias rmwt"
route_tree wt-route-alias2
cd "$TEST_ROOT/elsewhere" || exit 1
run_cmd git -C "$REPO" rmwt -f "$TEST_ROOT/wt-route-alias2"
check_route wt-route-alias2 "alias rmwt -f, through -C"

section "route: a Python subprocess.run([\"git\", ...]) client"
if command -v python3 >/dev/null 2>&1; then
    route_tree wt-route-python
    cd "$REPO" || exit 1
    run_cmd python3 -c '
import subprocess, sys
r = subprocess.run(["git", "worktree", "remove", "--force", sys.argv[1]])
sys.exit(r.returncode)' "$TEST_ROOT/wt-route-python"
    check_route wt-route-python "python subprocess"
else
    fail "python3 is not installed: the Python client route went untested"
fi

section "route: from inside another worktree"
git_real -C "$REPO" worktree add -q -b b-home "$TEST_ROOT/wt-home" main
mkdir -p "$TEST_ROOT/wt-home/sub"
route_tree wt-route-inside
cd "$TEST_ROOT/wt-home/sub" || exit 1
run_cmd git worktree remove --force ../../wt-route-inside
check_route wt-route-inside "from a subdirectory of another worktree"
assert_eq "" "$(git_real -C "$TEST_ROOT/wt-home" status --porcelain)" \
    "from inside another worktree: that worktree was not touched"
route_tree wt-route-inside2
cd "$TEST_ROOT/wt-home" || exit 1
run_cmd git worktree remove --force wt-route-inside2
check_route wt-route-inside2 "from another worktree, naming the tree by its unique suffix"
cd "$TEST_ROOT" || exit 1

# --- worktree prune ------------------------------------------------------------------------

section "git worktree prune after rm -rf of a detached tree saves its commit"
for r in "$REPO" "$TWIN"; do
    git_real -C "$r" worktree add -q --detach "$r.wt-pruned" main
    commit_file "$r.wt-pruned" pruned.txt "only on the deleted tree" "pruned work"
    pruned=$(git_real -C "$r.wt-pruned" rev-parse HEAD)
    rm -rf "$r.wt-pruned"
done
(cd "$TWIN" && record "$TEST_ROOT/out/twin-prune" "$REAL_GIT" worktree prune)
(cd "$REPO" && record "$TEST_ROOT/out/shim-prune" git worktree prune)
assert_eq "$(cat "$TEST_ROOT/out/twin-prune.rc")" "$(cat "$TEST_ROOT/out/shim-prune.rc")" "prune: the exit code is git's own"
assert_same_file "$TEST_ROOT/out/twin-prune.out" "$TEST_ROOT/out/shim-prune.out" "prune: stdout is git's own"
assert_no_file "$REPO/.git/worktrees/repo.wt-pruned" "prune: git pruned the admin entry"
refs=$(stranded "$REPO" repo.wt-pruned/)
assert_eq 1 "$(count "$refs")" "prune: one stranded branch"
assert_eq "$pruned" "$(git_real -C "$REPO" rev-parse "${refs:-none}" 2>&1)" \
    "prune: the deleted tree's detached commit was lost, not saved"
assert_contains "$(cat "$TEST_ROOT/out/shim-prune.err")" "${refs:-no stranded branch}" "prune: stderr names the branch"

# --- controls: git alone loses it ----------------------------------------------------------

section "control: without git-guard, git alone loses what was saved above"
git_real -C "$TWIN" worktree add -q -b b-control "$TWIN.wt-control" main
printf 'untracked file\n' >"$TWIN.wt-control/u.txt"
git_real -C "$TWIN" worktree remove --force "$TWIN.wt-control"
assert_no_file "$TWIN.wt-control" "control: git --force removed the dirty tree"
assert_eq "" "$(git_real -C "$TWIN" for-each-ref refs/heads/stranded/)" \
    "control: without the shim, the untracked file is gone for good (no stranded branch)"
twin_detached=$(git_real -C "$TWIN" rev-list --all | grep -c . || true)
git_real -C "$TWIN" worktree add -q --detach "$TWIN.wt-control2" main
commit_file "$TWIN.wt-control2" d.txt "detached" "detached work"
lost=$(git_real -C "$TWIN.wt-control2" rev-parse HEAD)
git_real -C "$TWIN" worktree remove "$TWIN.wt-control2"
assert_eq "" "$(git_real -C "$TWIN" rev-list --all | grep "$lost")" \
    "control: plain 'git worktree remove' of a clean detached tree loses its commit"
pruned_twin=$(git_real -C "$TWIN" log --all --format=%H --grep='pruned work')
assert_eq "" "$pruned_twin" "control: git worktree prune loses the deleted tree's detached commit"
unset twin_detached

# --- an unguarded repository ----------------------------------------------------------------

# session DIR TRANSCRIPT: a scripted session with `git` from PATH in DIR/repo (built
# afresh, deterministically); stdout, stderr and exit codes go to TRANSCRIPT.out/.err.
session() {
    local root=$1 t=$2
    rm -rf "$root"
    mkdir -p "$root"
    new_repo "$root/repo"
    commit_file "$root/repo" a.txt "a"
    [ "${GUARDED:-}" = yes ] && git_real -C "$root/repo" config guard.enabled true
    git_real -C "$root/repo" config alias.rmwt "worktree remove"
    : >"$t.out"
    : >"$t.err"
    step() {
        printf '$ %s\n' "$*" | tee -a "$t.err" >>"$t.out"
        "$@" >>"$t.out" 2>>"$t.err"
        printf '[exit %d]\n' "$?" >>"$t.out"
    }
    cd "$root/repo" || return 1
    step git worktree add ../s1 -b s1
    step git worktree add --detach ../s2
    step git worktree add ../s3 -b s3
    step git worktree add ../s4 -b s4
    step git worktree add --detach ../s5
    # Guarded, a dirty tree is saved even without --force (git might remove it:
    # status.showUntrackedFiles=no); this session is the nothing-to-save one.
    [ "${GUARDED:-}" = yes ] || echo dirty >../s1/dirty.txt
    step git worktree remove ../s1
    if [ "${GUARDED:-}" != yes ]; then
        echo edit >>../s3/a.txt
        step git -C ../s2 commit -q --allow-empty -m "detached work"
        step git -C ../s5 commit -q --allow-empty -m "pruned work"
    fi
    step git worktree remove --force ../s1
    step git worktree remove ../s2
    step git worktree lock --reason busy ../s4
    step git worktree remove --force ../s4
    step git worktree remove -f -f ../s4
    step git rmwt -f ../s3
    rm -rf ../s5
    step git worktree prune -v
    step git worktree remove ../nowhere
    step git worktree remove .
    step git worktree remove
    step git worktree list --porcelain
    step git for-each-ref --format='%(refname) %(objectname)'
    cd "$TEST_ROOT" || return 1
}

section "an unguarded repository: byte-identical session with and without the shim"
shim_off
session "$TEST_ROOT/u" "$TEST_ROOT/out/unguarded-plain"
shim_on
session "$TEST_ROOT/u" "$TEST_ROOT/out/unguarded-shim"
assert_same_file "$TEST_ROOT/out/unguarded-plain.out" "$TEST_ROOT/out/unguarded-shim.out" \
    "unguarded: stdout and exit codes of the whole session are git's own"
assert_same_file "$TEST_ROOT/out/unguarded-plain.err" "$TEST_ROOT/out/unguarded-shim.err" \
    "unguarded: stderr of the whole session is git's own"
assert_eq "" "$(git_real -C "$TEST_ROOT/u/repo" for-each-ref refs/heads/stranded/)" \
    "unguarded: the shim saved nothing"
assert_no_file "$TEST_ROOT/u/repo/.git/guard" "unguarded: the shim left no trace in the repository"
grep -q 'worktree remove --force ../s1' "$TEST_ROOT/out/unguarded-shim.out" &&
    pass "unguarded: the session really ran" || fail "unguarded: the session did not run"

section "a guarded repository with nothing to save: byte-identical session"
shim_off
GUARDED=yes session "$TEST_ROOT/g" "$TEST_ROOT/out/clean-plain"
shim_on
GUARDED=yes session "$TEST_ROOT/g" "$TEST_ROOT/out/clean-shim"
assert_same_file "$TEST_ROOT/out/clean-plain.out" "$TEST_ROOT/out/clean-shim.out" \
    "guarded, nothing to save: stdout and exit codes are git's own"
assert_same_file "$TEST_ROOT/out/clean-plain.err" "$TEST_ROOT/out/clean-shim.err" \
    "guarded, nothing to save: stderr is git's own"
assert_eq "" "$(git_real -C "$TEST_ROOT/g/repo" for-each-ref refs/heads/stranded/)" \
    "guarded, nothing to save: no stranded branch"

finish
