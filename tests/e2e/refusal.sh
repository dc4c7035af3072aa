#!/usr/bin/env bash
# "Block only when saving fails" (DESIGN §2.3, §8): when no stranded branch can be
# created (a FILE at .git/refs/heads/stranded makes every name impossible), the
# removal is refused: exit 128 from the shim, the
# tree, its index and its branch byte-identical, and a message naming the path, the
# branch, what the tree holds, why, and recover/discard commands that work when
# pasted (this suite pastes them). Branch deletions are refused through the hook the
# same way. A control shows what git alone does in the same spot.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# --- local helpers --------------------------------------------------------------------

# snapshot DIR: every entry with type, mode, size and link target, and every file's hash.
snapshot() {
    (cd "$1" && find . -printf '%p %y %m %s %l\n' | LC_ALL=C sort &&
        find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2)
}

# admin_dir TREE: the tree's admin entry (from its .git file).
admin_dir() {
    sed -n 's/^gitdir: //p' "$1/.git"
}

# with_work TREE: modified a.txt, a staged new.txt and an untracked sub/u.txt.
with_work() {
    printf 'a\nedited\n' >"$1/a.txt"
    printf 'staged\n' >"$1/new.txt"
    git_real -C "$1" add new.txt
    mkdir -p "$1/sub"
    printf 'untracked\n' >"$1/sub/u.txt"
}

# keep_state TREE NAME: records TREE's files, index, HEAD and branch under $TEST_ROOT/state/NAME.
keep_state() {
    local s=$TEST_ROOT/state/$2 admin
    mkdir -p "$s"
    admin=$(admin_dir "$1")
    snapshot "$1" >"$s/files"
    cp "$admin/index" "$s/index"
    cp "$admin/HEAD" "$s/HEAD"
    git_real -C "$1" rev-parse HEAD >"$s/head"
    git_real -C "$REPO" for-each-ref --format='%(refname) %(objectname)' refs/heads/ >"$s/refs" 2>/dev/null
    printf '%s\n' "$admin" >"$s/admin"
}

# same_state TREE NAME WHAT: TREE is byte-identical to what keep_state recorded.
same_state() {
    local s=$TEST_ROOT/state/$2 admin
    admin=$(cat "$s/admin")
    assert_file_exists "$1" "$3: the tree was deleted"
    snapshot "$1" >"$s/files.after" 2>&1
    assert_same_file "$s/files" "$s/files.after" "$3: the tree's files are byte-identical (work was destroyed otherwise)"
    assert_same_file "$s/index" "$admin/index" "$3: the tree's index is byte-identical"
    assert_same_file "$s/HEAD" "$admin/HEAD" "$3: the tree's HEAD file is unchanged"
    git_real -C "$REPO" for-each-ref --format='%(refname) %(objectname)' refs/heads/ >"$s/refs.after" 2>/dev/null
    assert_same_file "$s/refs" "$s/refs.after" "$3: every branch is where it was"
    assert_contains "$(git_real -C "$REPO" worktree list --porcelain)" "worktree $1" "$3: git still lists the tree"
}

# message_line TEXT KEY: the text after "KEY: " on its line.
message_line() {
    printf '%s\n' "$1" | sed -n "s/^ *$2: //p" | head -1
}

make_clone repo
REPO=$TEST_ROOT/repo
git_real -C "$REPO" config guard.enabled true
install_hook "$REPO"
shim_on
PATH=$PATH:$GUARD_BIN_DIR # `git guard ...` as a user types it
hash -r
mkdir -p "$TEST_ROOT/elsewhere"
cd "$REPO" || exit 1

section "no stranded name can be created: a FILE at .git/refs/heads/stranded"
git_real worktree add -q -b t1 "$TEST_ROOT/t1"
git_real worktree add -q -b t2 "$TEST_ROOT/tree two"
git_real worktree add -q -b t3 "$TEST_ROOT/t3"
for t in "$TEST_ROOT/t1" "$TEST_ROOT/tree two" "$TEST_ROOT/t3"; do with_work "$t"; done
printf 'in the way\n' >"$REPO/.git/refs/heads/stranded"
assert_eq "" "$(git_real for-each-ref refs/heads/stranded/ 2>/dev/null)" "no stranded branch exists"

section "git worktree remove --force is refused with exit 128; tree, index and branch intact"
keep_state "$TEST_ROOT/t1" t1
record "$TEST_ROOT/out/refused" git worktree remove --force ../t1
assert_eq 128 "$(cat "$TEST_ROOT/out/refused.rc")" "the shim's refusal exits 128"
assert_eq "" "$(cat "$TEST_ROOT/out/refused.out")" "the refusal prints nothing on stdout"
same_state "$TEST_ROOT/t1" t1 "refused remove --force"
msg=$(cat "$TEST_ROOT/out/refused.err")
printf '%s\n' "$msg" | sed 's/^/       | /'
assert_contains "$msg" "$TEST_ROOT/t1" "the message names the path"
assert_contains "$msg" "t1)" "the message names the branch"
assert_contains "$msg" "1 modified" "the message counts the modified file"
assert_contains "$msg" "1 untracked" "the message counts the untracked file"
assert_contains "$msg" "1 staged" "the message counts the staged file"
assert_contains "$msg" "sub/u.txt" "the message lists the untracked path"
assert_contains "$msg" "a.txt" "the message lists the modified path"
assert_contains "$(message_line "$msg" why)" "stranded" "the message says why saving failed"
assert_ne "" "$(message_line "$msg" recover)" "the message gives a recover command"
assert_eq "git guard discard $TEST_ROOT/t1" "$(message_line "$msg" discard)" "the message gives the discard command"
assert_eq "" "$(git_real for-each-ref refs/heads/stranded/ 2>/dev/null)" "the failed save left no half-made branch"

section "git guard remove is refused too: exit 1, tree intact"
keep_state "$TEST_ROOT/t3" t3
run_cmd git guard remove "$TEST_ROOT/t3"
assert_eq 1 "$RC" "git guard remove exits 1 when it must keep the tree ($ERR)"
assert_contains "$OUT$ERR" "refusing to remove $TEST_ROOT/t3 (t3)" "git guard remove says it kept the tree, naming path and branch"
assert_contains "$OUT$ERR" "sub/u.txt" "git guard remove says what the kept tree holds"
same_state "$TEST_ROOT/t3" t3 "refused git guard remove"

section "the recover command from the message works when pasted"
recover=$(message_line "$msg" recover)
(cd "$TEST_ROOT/elsewhere" && bash -c "$recover") >"$TEST_ROOT/out/recover.out" 2>&1
assert_eq 0 "$?" "the pasted recover command succeeds: $recover ($(head -c 300 "$TEST_ROOT/out/recover.out"))"
rescue=$(git_real -C "$TEST_ROOT/t1" symbolic-ref --short HEAD)
assert_eq "untracked" "$(git_real show "$rescue:sub/u.txt" 2>&1)" "after recover, the untracked file is on $rescue"
assert_eq "$(printf 'a\nedited')" "$(git_real show "$rescue:a.txt" 2>&1)" "after recover, the edit of a.txt is on $rescue"
assert_eq "staged" "$(git_real show "$rescue:new.txt" 2>&1)" "after recover, the staged file is on $rescue"
run_cmd git worktree remove ../t1
assert_eq 0 "$RC" "after recover, the tree can be removed ($ERR)"

section "the discard command from the message works when pasted (a path with a space)"
record "$TEST_ROOT/out/refused2" git worktree remove --force "../tree two"
assert_eq 128 "$(cat "$TEST_ROOT/out/refused2.rc")" "the tree with a space in its path is refused too"
discard=$(message_line "$(cat "$TEST_ROOT/out/refused2.err")" discard)
assert_contains "$discard" "git guard discard " "the message gives a discard command"
(cd "$TEST_ROOT/elsewhere" && bash -c "$discard") >"$TEST_ROOT/out/discard.out" 2>&1
assert_eq 0 "$?" "the pasted discard command succeeds: $discard ($(head -c 300 "$TEST_ROOT/out/discard.out"))"
assert_no_file "$TEST_ROOT/tree two" "the pasted discard removed the tree"
assert_not_contains "$(git_real worktree list --porcelain)" "tree two" "the pasted discard removed the admin entry"
grep -q "discard" "$REPO/.git/guard/guard.log" 2>/dev/null && pass "the discard is logged" ||
    fail "the discard is not in .git/guard/guard.log"

section "branch -D is refused through the hook; the branch is intact"
git_real branch bx "$(git_real commit-tree "$(git_real rev-parse main^{tree})" -p main -m "bx work" </dev/null)"
printf 'bx\n' >"$TEST_ROOT/bx.txt"
blob=$(git_real hash-object -w "$TEST_ROOT/bx.txt")
bx_tree=$(printf '100644 blob %s\tbx.txt\n' "$blob" | git_real mktree)
git_real branch -f bx "$(git_real commit-tree "$bx_tree" -p bx -m "more bx work")"
git_real branch by "$(git_real commit-tree "$bx_tree" -p main -m "by work")"
bx_tip=$(git_real rev-parse bx)
run_cmd "$REAL_GIT" branch -D bx
assert_ne 0 "$RC" "branch -D is refused when the save fails"
assert_eq "$bx_tip" "$(git_real rev-parse bx 2>&1)" "the refused branch -D lost the branch"
assert_contains "$ERR" "bx" "the refusal names the branch"
assert_contains "$(message_line "$ERR" why)" "stranded" "the refusal says why"
# git 2.39: "ref updates aborted by hook"; 2.55: "in 'prepared' phase, update aborted by
# the reference-transaction hook".
[[ $ERR =~ aborted\ by\ (the\ reference-transaction\ )?hook ]] &&
    pass "git reports the hook's refusal itself" || fail "git did not report the hook's refusal: $ERR"
run_cmd "$REAL_GIT" update-ref -d refs/heads/bx
assert_ne 0 "$RC" "update-ref -d is refused too"
assert_eq "$bx_tip" "$(git_real rev-parse bx 2>&1)" "the refused update-ref -d lost the branch"
run_cmd git branch -D bx
recover=$(message_line "$ERR" recover)
(cd "$REPO" && bash -c "$recover") >/dev/null 2>&1
assert_eq 0 "$?" "the pasted branch recover command succeeds: $recover"
run_cmd git branch -D bx
assert_eq 0 "$RC" "once recovered, branch -D goes through ($ERR)"
run_cmd "$REAL_GIT" branch -D by
discard=$(message_line "$ERR" discard)
git_real branch by2 by
(cd "$REPO" && bash -c "$discard") >"$TEST_ROOT/out/discard-branch.out" 2>&1
assert_eq 0 "$?" "the pasted branch discard command succeeds: $discard"
assert_no_ref "$REPO" refs/heads/by "the pasted discard deleted the branch"
git_real branch -D by2 >/dev/null 2>&1

rm -f "$REPO/.git/refs/heads/stranded"

# nested_saved REF PATH FILE CONTENT COMMIT LABEL: the save REF records the nested
# repository at PATH whole: FILE with CONTENT in its own save, and COMMIT reachable.
nested_saved() {
    local ref=$1 path=$2 file=$3 content=$4 commit=$5 label=$6 n
    n=$(git_real log -1 --format='%(trailers:key=Stranded-Nested,valueonly)' "$ref" | sed -n "s| $path\$||p")
    assert_ne "" "$n" "$label: the save names no nested save for $path: the nested repository was lost"
    assert_eq "$content" "$(git_real show "$n:$file" 2>&1)" "$label: the nested repository's uncommitted $file was lost"
    git_real merge-base --is-ancestor "$commit" "$ref" 2>/dev/null
    assert_eq 0 "$?" "$label: the nested repository's own commit is not reachable from the save: it was lost"
}

section "a tree holding a nested repository is saved whole, then removed (DESIGN §2.3, LESSONS 16)"
git_real worktree add -q -b n1 "$TEST_ROOT/n1"
nested=$TEST_ROOT/n1/vendor/lib
git_real init -q "$nested"
commit_file "$nested" lib.txt "nested commit"
local_commit=$(git_real -C "$nested" rev-parse HEAD)
printf 'uncommitted in the nested repository\n' >"$nested/wip.txt"
printf 'plain untracked\n' >"$TEST_ROOT/n1/notes.txt"
record "$TEST_ROOT/out/nested" git worktree remove --force ../n1
assert_eq 0 "$(cat "$TEST_ROOT/out/nested.rc")" "the shim did not let the removal of a tree with a nested repository proceed"
assert_no_file "$TEST_ROOT/n1" "the tree with a nested repository was not removed"
ref=$(git_real for-each-ref --format='%(refname)' refs/heads/stranded/n1/ | head -1)
assert_ne "" "$ref" "the tree with a nested repository was removed unsaved"
assert_eq "plain untracked" "$(git_real show "$ref:notes.txt" 2>&1)" "the tree's own untracked file was lost"
nested_saved "$ref" vendor/lib wip.txt "uncommitted in the nested repository" "$local_commit" "shim"

git_real worktree add -q -b n2 "$TEST_ROOT/n2"
git_real init -q "$TEST_ROOT/n2/vendor/lib"
commit_file "$TEST_ROOT/n2/vendor/lib" lib.txt "nested commit two"
local_commit=$(git_real -C "$TEST_ROOT/n2/vendor/lib" rev-parse HEAD)
printf 'two\n' >"$TEST_ROOT/n2/vendor/lib/wip.txt"
run_cmd git guard remove ../n2
assert_eq 0 "$RC" "git guard remove did not remove a tree with a nested repository: $ERR"
assert_no_file "$TEST_ROOT/n2" "git guard remove kept a tree whose nested repository was saved"
ref=$(git_real for-each-ref --format='%(refname)' refs/heads/stranded/n2/ | head -1)
nested_saved "$ref" vendor/lib wip.txt two "$local_commit" "git guard remove"

section "control: without git-guard, git alone destroys the refused tree"
git_real config guard.enabled false
git_real worktree add -q -b c1 "$TEST_ROOT/c1"
with_work "$TEST_ROOT/c1"
printf 'in the way\n' >"$REPO/.git/refs/heads/stranded"
run_cmd git worktree remove --force ../c1
assert_eq 0 "$RC" "control: git removes the dirty tree"
assert_no_file "$TEST_ROOT/c1" "control: without the guard the untracked and modified files are destroyed"
rm -f "$REPO/.git/refs/heads/stranded"

finish
