#!/usr/bin/env bash
# The shim path asks git once for each fact (issue 17): the front end's config listing is
# the full binary's settings, HEAD and its branch come from one rev-parse, the read-back
# gives the diffstat, the fold is asked only when one may be due. Where a fact read once
# could be stale, the work must still be saved:
#   - a removal where the tree's HEAD moves between git's worktree listing and the save
#     (a commit made meanwhile, on a detached HEAD, is held by nothing else);
#   - a removal of a tree whose branch is checked out in another tree too;
#   - guard.enabled spelt as only git's typing reads it (`yes`, valueless), and
#     guard.exclude, read from the front end's listing;
#   - branch -D: the hook takes the shim's config listing (bound to the tree and its config
#     files) and the tip's tree from the read-back, and still saves;
#   - git guard save: one worktree list, and a tree removed after it is named as removed;
#   - in-place saves beyond guard.keepBranches are still folded, in steps: a fold takes a
#     kind over the bound down to about a fifth below it, so the next saves run no fold.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

R=$TEST_ROOT/repo
make_clone repo
git_real -C "$R" config guard.enabled true
install_hook "$R"
shim_on

# A "real git" that, the first time it lists the worktrees, commits in $MOVE_TREE right
# after git listed them: the listing then names the HEAD the tree had before.
MOVER=$TEST_ROOT/moving-git
cat >"$MOVER" <<EOF
#!/usr/bin/env bash
if [[ " \$* " == *" worktree list --porcelain -z "* && ! -e "$TEST_ROOT/.moved" ]]; then
    "$REAL_GIT" "\$@" >"$TEST_ROOT/.listing"
    rc=\$?
    touch "$TEST_ROOT/.moved"
    echo moved >"\$MOVE_TREE/moved.txt"
    env -u GIT_INDEX_FILE -u GIT_COMMON_DIR -u GIT_DIR -u GIT_WORK_TREE \\
        "$REAL_GIT" -C "\$MOVE_TREE" -c core.hooksPath=/dev/null add moved.txt
    env -u GIT_INDEX_FILE -u GIT_COMMON_DIR -u GIT_DIR -u GIT_WORK_TREE \\
        "$REAL_GIT" -C "\$MOVE_TREE" -c core.hooksPath=/dev/null commit -q -m "made meanwhile"
    cat "$TEST_ROOT/.listing"
    exit \$rc
fi
exec "$REAL_GIT" "\$@"
EOF
chmod +x "$MOVER"

section "a removal where HEAD moves between the worktree listing and the save"
T=$TEST_ROOT/moving
git_real -C "$R" worktree add -q --detach "$T" main
echo untracked >"$T/u.txt"
run_cmd env GIT_GUARD_REAL_GIT="$MOVER" MOVE_TREE="$T" git -C "$R" worktree remove --force "$T"
assert_eq 0 "$RC" "the removal succeeds: $ERR"
assert_file_exists "$TEST_ROOT/.moved" "the moving git never listed the worktrees: the test did not move HEAD"
SAVE=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/moving/)
assert_ne "" "$SAVE" "the moving tree was saved"
MOVED=$(git_real -C "$R" log --all --format=%H --grep="made meanwhile" | head -1)
assert_ne "" "$MOVED" "the commit made meanwhile still exists"
git_real -C "$R" merge-base --is-ancestor "$MOVED" "$SAVE" && ok=yes || ok=no
assert_eq yes "$ok" "the commit made between the listing and the save was lost: the save does not reach it"
assert_eq untracked "$(git_real -C "$R" show "$SAVE:u.txt" 2>/dev/null)" "the untracked file was lost"
assert_eq moved "$(git_real -C "$R" show "$SAVE:moved.txt" 2>/dev/null)" "the file committed meanwhile was lost"

section "a removal of a tree whose branch another tree has checked out too"
A=$TEST_ROOT/first B=$TEST_ROOT/second
git_real -C "$R" worktree add -q -b shared "$A" main
git_real -C "$R" worktree add -q -f "$B" shared
commit_file "$A" shared.txt "shared commit"
echo "edit in first" >>"$A/a.txt"
echo "edit in second" >>"$B/README"
run_cmd git -C "$R" worktree remove --force "$A"
assert_eq 0 "$RC" "the removal succeeds: $ERR"
SAVE=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/first/)
assert_ne "" "$SAVE" "the first tree's edit was not saved"
assert_contains "$(git_real -C "$R" show "$SAVE:a.txt")" "edit in first" "the first tree's edit was lost"
assert_eq "$(git_real -C "$R" rev-parse shared)" "$(git_real -C "$R" rev-parse "$SAVE^1")" \
    "the save does not sit on the shared branch's tip"
assert_contains "$(cat "$B/README")" "edit in second" "the other tree's edit was touched"
assert_eq shared "$(git_real -C "$B" symbolic-ref --short HEAD)" "the other tree lost its branch"
assert_eq "shared commit" "$(git_real -C "$R" show shared:shared.txt)" "the shared branch lost its commit"

section "guard.enabled as only git's typing reads it, and guard.exclude, from the front end's listing"
for spelling in yes valueless; do
    if [ "$spelling" = valueless ]; then
        git_real -C "$R" config --unset guard.enabled
        printf '[guard]\n\tenabled\n' >>"$R/.git/config"
    else
        git_real -C "$R" config guard.enabled yes
    fi
    echo "in-place $spelling" >"$R/a.txt"
    run_cmd git -C "$R" reset --hard
    assert_eq 0 "$RC" "reset --hard runs: $ERR"
    assert_contains "$ERR" "git-guard: saved" "guard.enabled=$spelling: the edit was destroyed unsaved"
    NEWEST=$(git_real -C "$R" for-each-ref --sort=-refname --count=1 --format='%(refname)' refs/stranded/repo/)
    assert_eq "in-place $spelling" "$(git_real -C "$R" show "$NEWEST:a.txt" 2>/dev/null)" \
        "guard.enabled=$spelling: the saved edit is not the one destroyed"
done
git_real -C "$R" config guard.enabled false
echo "not guarded" >"$R/a.txt"
run_cmd git -C "$R" reset --hard
assert_eq "" "$ERR" "guard.enabled=false: git's own stderr, nothing of ours"
git_real -C "$R" config guard.enabled true
git_real -C "$R" config guard.exclude 'scratch/'
mkdir -p "$R/scratch"
echo scratch >"$R/scratch/s.txt"
git_real -C "$R" worktree add -q -b ex "$TEST_ROOT/ex" main
mkdir -p "$TEST_ROOT/ex/scratch"
echo scratch >"$TEST_ROOT/ex/scratch/s.txt"
echo kept >"$TEST_ROOT/ex/kept.txt"
run_cmd git -C "$R" worktree remove --force "$TEST_ROOT/ex"
SAVE=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/ex/)
assert_eq kept "$(git_real -C "$R" show "$SAVE:kept.txt" 2>/dev/null)" "the tree's work was lost"
assert_eq "" "$(git_real -C "$R" ls-tree -r --name-only "$SAVE" -- scratch)" "guard.exclude was not read: scratch/ was saved"
git_real -C "$R" config --unset guard.exclude
rm -rf "$R/scratch"

section "branch -D: the hook reads the shim's config listing, and the tip's tree from the read-back"
# unpushed(NAME): a commit on main whose tree holds only NAME.txt, a change no other ref has.
unpushed() {
    local blob tree
    blob=$(echo "$1" | git_real -C "$R" hash-object -w --stdin)
    tree=$(printf '100644 blob %s\t%s.txt\n' "$blob" "$1" | git_real -C "$R" mktree)
    git_real -C "$R" commit-tree -p main -m "only on $1" "$tree"
}
TIP=$(unpushed gone)
git_real -C "$R" update-ref refs/heads/gone "$TIP"
rm -f "$TEST_ROOT/gone.trace"
run_cmd env GIT_TRACE2_EVENT="$TEST_ROOT/gone.trace" git -C "$R" branch -D gone
assert_eq 0 "$RC" "branch -D runs: $ERR"
SAVE=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/gone/)
assert_ne "" "$SAVE" "the unpushed commit of branch gone was destroyed, not saved"
assert_eq "$TIP" "$(git_real -C "$R" rev-parse "$SAVE" 2>/dev/null)" "the save of gone does not hold its tip: the commit was lost"
listings=$(grep '"event":"start"' "$TEST_ROOT/gone.trace" | grep -c '"config","-z","--get-regexp","^(guard|hook|filter)' || true)
assert_eq 1 "$listings" "the guard's settings were listed $listings times for one branch -D (the hook did not take the shim's)"
assert_eq 0 "$(grep '"event":"start"' "$TEST_ROOT/gone.trace" | grep -c '"cat-file"' || true)" \
    "the hook asked cat-file for the old value or tree its refs listing and read-back give"
# A setting the caller gives with -c reaches the hook through git, not through the listing
# the shim read before it: the hook must ask git again, and save.
TIP=$(unpushed gone2)
git_real -C "$R" update-ref refs/heads/gone2 "$TIP"
run_cmd git -C "$R" -c guard.keepBranches=40 branch -D gone2
assert_eq 0 "$RC" "branch -D with -c runs: $ERR"
SAVE=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/gone2/)
assert_eq "$TIP" "$(git_real -C "$R" rev-parse "$SAVE" 2>/dev/null)" "branch -D with -c lost the tip of gone2"

section "git guard save lists the worktrees once; a tree removed after that listing is named, not saved"
S=$TEST_ROOT/saved
git_real -C "$R" worktree add -q --detach "$S" main
echo "save me" >"$S/keep.txt"
rm -f "$TEST_ROOT/save.trace"
run_cmd env GIT_TRACE2_EVENT="$TEST_ROOT/save.trace" "$GUARD_BIN_DIR/git-guard" -C "$R" save "$S"
assert_eq 0 "$RC" "git guard save runs: $ERR"
SAVE=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/saved/)
assert_eq "save me" "$(git_real -C "$R" show "$SAVE:keep.txt" 2>/dev/null)" "git guard save lost the untracked file"
lists=$(grep '"event":"start"' "$TEST_ROOT/save.trace" | grep -c '"worktree","list"' || true)
assert_eq 1 "$lists" "git guard save listed the worktrees $lists times for one decision"
# A tree removed between the save's one listing and its lock: another process holds the
# tree's lock (an fcntl lock on locks/<FNV-1a of the path>.lock, as PathLock takes it) while
# the save lists, then removes the tree and lets go. The save must name the tree as removed.
G=$TEST_ROOT/going
git_real -C "$R" worktree add -q --detach "$G" main
echo "going" >"$G/going.txt"
LISTED_PATH=$(git_real -C "$R" worktree list --porcelain | sed -n "s|^worktree \(.*/going\)$|\1|p")
python3 - "$R/.git/guard/locks" "$LISTED_PATH" "$TEST_ROOT" "$REAL_GIT" "$R" <<'PY' &
import fcntl, os, subprocess, sys, time
locks, key, root, git, repo = sys.argv[1:]
h = 14695981039346656037
for c in key.encode():
    h = ((h ^ c) * 1099511628211) % 2**64
os.makedirs(locks, exist_ok=True)
fd = os.open(os.path.join(locks, "%016x.lock" % h), os.O_RDWR | os.O_CREAT, 0o644)
fcntl.lockf(fd, fcntl.LOCK_EX)
open(os.path.join(root, ".held"), "w").close()
for _ in range(600):
    if os.path.exists(os.path.join(root, ".listed")):
        break
    time.sleep(0.05)
time.sleep(1)  # the save has parsed its listing and waits for this lock
subprocess.run([git, "-C", repo, "-c", "core.hooksPath=/dev/null", "worktree", "remove", "--force", key], check=True)
open(os.path.join(root, ".removed"), "w").close()
PY
HOLDER=$!
for _ in $(seq 100); do [ -e "$TEST_ROOT/.held" ] && break; sleep 0.05; done
REMOVER=$TEST_ROOT/listing-git # a "real git" that says when it has listed the worktrees
cat >"$REMOVER" <<EOF
#!/usr/bin/env bash
if [[ " \$* " == *" worktree list --porcelain -z "* ]]; then
    "$REAL_GIT" "\$@"
    rc=\$?
    touch "$TEST_ROOT/.listed"
    exit \$rc
fi
exec "$REAL_GIT" "\$@"
EOF
chmod +x "$REMOVER"
run_cmd env GIT_GUARD_REAL_GIT="$REMOVER" "$GUARD_BIN_DIR/git-guard" -C "$R" save "$G"
wait "$HOLDER" || true
assert_file_exists "$TEST_ROOT/.removed" "the lock holder never removed the tree: the test raced nothing"
assert_ne 0 "$RC" "a save of a tree removed meanwhile reported success: $OUT"
assert_contains "$ERR" "is no longer a worktree: another process removed it" \
    "a tree removed after the save's listing was not named as removed"

section "in-place saves beyond guard.keepBranches are still folded"
git_real -C "$R" config guard.keepBranches 2
for i in 1 2 3 4; do
    echo "fold $i" >"$R/a.txt"
    git -C "$R" reset -q --hard 2>/dev/null
done
LOOSE=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/stranded/ | grep -vc '^refs/stranded/chain/' || true)
assert_eq 2 "$LOOSE" "in-place saves beyond guard.keepBranches were not folded"
for i in 1 2 3 4; do
    blob=$(printf 'fold %s\n' "$i" | git_real hash-object --stdin)
    git_real -C "$R" rev-list --objects --all | grep -q "^$blob" && ok=yes || ok=no
    assert_eq yes "$ok" "in-place save $i was lost when the saves were folded"
done

section "a fold after a save goes a step below the bound, so the next save folds nothing"
git_real -C "$R" config guard.keepBranches 10
loose() { git_real -C "$R" for-each-ref --format='%(refname)' refs/stranded/ | grep -vc '^refs/stranded/chain/' || true; }
i=0
while [ "$(loose)" -lt 10 ] && [ $i -lt 20 ]; do
    i=$((i + 1))
    echo "step $i" >"$R/a.txt"
    git -C "$R" reset -q --hard 2>/dev/null
done
assert_eq 10 "$(loose)" "10 in-place saves stay refs under guard.keepBranches=10"
echo "step over" >"$R/a.txt"
git -C "$R" reset -q --hard 2>/dev/null
assert_eq 9 "$(loose)" "the 11th save folds the in-place refs down to 9 (a fifth of the bound below it)"
echo "step after" >"$R/a.txt"
rm -f "$TEST_ROOT/step.trace"
GIT_TRACE2_EVENT=$TEST_ROOT/step.trace git -C "$R" reset -q --hard 2>/dev/null
assert_eq 10 "$(loose)" "the next save is the 10th ref"
assert_eq 0 "$(grep -c '"argv":\[[^]]*"fast-import"' "$TEST_ROOT/step.trace" || true)" \
    "the save after a fold appended to a chain again (a fold per save, about eight gits each)"
for text in "step over" "step after"; do
    git_real -C "$R" rev-list --objects --all | grep -q "^$(printf '%s\n' "$text" | git_real hash-object --stdin)" &&
        pass "the save of '$text' is reachable" || fail "the save of '$text' was lost by the fold"
done

section "a removal takes HEAD from git status (--branch): HEAD as status compared, the index kept exactly"
git_real -C "$R" config guard.keepBranches 50
# removed_traced NAME: removes tree NAME (guarded), traced; HEAD_ASKED counts the rev-parses
# of HEAD among its gits.
removed_traced() {
    rm -f "$TEST_ROOT/rm.trace"
    run_cmd env GIT_TRACE2_EVENT="$TEST_ROOT/rm.trace" git -C "$R" worktree remove --force "$TEST_ROOT/$1"
    assert_eq 0 "$RC" "$1: the removal succeeds: $ERR"
    HEAD_ASKED=$(grep -c '"rev-parse","HEAD^{commit}"' "$TEST_ROOT/rm.trace" || true)
}
# removed_and_back NAME: removes tree NAME (guarded), then puts it back with git guard restore.
removed_and_back() {
    local save
    removed_traced "$1"
    save=$(git_real -C "$R" for-each-ref --format='%(refname:short)' "refs/heads/stranded/$1/")
    assert_ne "" "$save" "$1: the tree was not saved"
    run_cmd "$GUARD_BIN_DIR/git-guard" -C "$R" restore "$save"
    assert_eq 0 "$RC" "$1: restore puts the tree back: $ERR"
}
git_real -C "$R" worktree add -q -b unstaged "$TEST_ROOT/unstaged" main
echo "unstaged edit" >>"$TEST_ROOT/unstaged/a.txt"
removed_and_back unstaged
assert_eq 0 "$HEAD_ASKED" "an attached tree's removal asked HEAD in a rev-parse of its own (status names it)"
assert_eq "" "$(git_real -C "$TEST_ROOT/unstaged" diff --cached --name-only)" "unstaged: an edit that was never staged came back staged"
assert_contains "$(cat "$TEST_ROOT/unstaged/a.txt")" "unstaged edit" "unstaged: the edit was lost"
git_real -C "$R" worktree add -q -b staged "$TEST_ROOT/staged" main
echo "staged edit" >>"$TEST_ROOT/staged/a.txt"
git_real -C "$TEST_ROOT/staged" add a.txt
removed_and_back staged
assert_eq "a.txt" "$(git_real -C "$TEST_ROOT/staged" diff --cached --name-only)" "staged: the staged edit came back unstaged, or not at all (the index record was lost)"
git_real -C "$R" worktree add -q -b ita "$TEST_ROOT/ita" main
echo "intent to add" >"$TEST_ROOT/ita/new.txt"
git_real -C "$TEST_ROOT/ita" add -N new.txt
removed_and_back ita
assert_eq "intent to add" "$(cat "$TEST_ROOT/ita/new.txt" 2>/dev/null)" "ita: a file added with intent-to-add was lost"
# A branch may be named as status names a detached HEAD: the branch is still named.
git_real -C "$R" worktree add -q -b '(detached)' "$TEST_ROOT/paren" main
commit_file "$TEST_ROOT/paren" paren.txt "on a branch named (detached)"
echo "paren edit" >>"$TEST_ROOT/paren/a.txt"
TIP=$(git_real -C "$TEST_ROOT/paren" rev-parse HEAD)
removed_traced paren
assert_ne 0 "$HEAD_ASKED" \
    "with a branch named (detached) in the refs, status's \"(detached)\" was taken without asking git which HEAD is"
SAVE=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/paren/)
git_real -C "$R" merge-base --is-ancestor "$TIP" "$SAVE" 2>/dev/null && ok=yes || ok=no
assert_eq yes "$ok" "the commit on the branch named (detached) was lost: the save does not reach it"
assert_eq '(detached)' "$("$GUARD_BIN_DIR/git-guard" -C "$R" list --all --json | jq -r "select(.ref == \"$SAVE\") | .branch")" \
    "the save of a tree on a branch named (detached) does not name that branch"
# And a detached HEAD, which status names "(detached)" too, is named no branch.
git_real -C "$R" worktree add -q --detach "$TEST_ROOT/det" main
commit_file "$TEST_ROOT/det" det.txt "on a detached HEAD"
echo "det edit" >>"$TEST_ROOT/det/a.txt"
DET_TIP=$(git_real -C "$TEST_ROOT/det" rev-parse HEAD)
git_real -C "$R" branch -D '(detached)' >/dev/null # no branch bears status's word for detached now
removed_traced det
assert_eq 0 "$HEAD_ASKED" \
    "a detached tree's removal asked HEAD in a rev-parse of its own (status names it, and no branch is named (detached))"
SAVE=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/det/)
git_real -C "$R" merge-base --is-ancestor "$DET_TIP" "$SAVE" 2>/dev/null && ok=yes || ok=no
assert_eq yes "$ok" "the commit on the detached HEAD was lost: the save does not reach it"
assert_eq "det edit" "$(git_real -C "$R" show "$SAVE:a.txt" 2>/dev/null | tail -1)" "the detached tree's edit was lost"
assert_eq "null" "$("$GUARD_BIN_DIR/git-guard" -C "$R" list --all --json | jq -r "select(.ref == \"$SAVE\") | .branch")" \
    "the save of a detached tree names a branch"
# An attached tree whose branch moves between git's worktree listing and the save.
M=$TEST_ROOT/moving-attached
rm -f "$TEST_ROOT/.moved"
git_real -C "$R" worktree add -q -b moving-attached "$M" main
echo untracked >"$M/u.txt"
run_cmd env GIT_GUARD_REAL_GIT="$MOVER" MOVE_TREE="$M" git -C "$R" worktree remove --force "$M"
assert_eq 0 "$RC" "the attached removal succeeds: $ERR"
assert_file_exists "$TEST_ROOT/.moved" "the moving git never listed the worktrees: the test did not move HEAD"
SAVE=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/moving-attached/)
MOVED=$(git_real -C "$R" rev-parse moving-attached)
git_real -C "$R" merge-base --is-ancestor "$MOVED" "$SAVE" 2>/dev/null && ok=yes || ok=no
assert_eq yes "$ok" "the branch's commit made between the listing and the save: the save does not sit on it"

finish
