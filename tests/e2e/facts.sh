#!/usr/bin/env bash
# Decide from facts, not shortcuts (DESIGN §0.7, LESSONS 27, issue 33). Each section is a
# way work was lost while a decision was taken from a string, a prefix or a variable where
# git's own answer was one question away:
# - hooks off through config the call does not carry (include.path, GIT_CONFIG_GLOBAL,
#   GIT_CONFIG_SYSTEM, ~/.gitconfig, a repository core.hooksPath set after install): the
#   shim asks git's own listing for this call, and puts our hook back;
# - git's own steps matched by a prefix of their words (`foreach git checkout -q -- .`);
# - a tag (note, replace ref) counted as a holder though nothing guards its deletion;
# - guard.baseRef naming the very branch being deleted;
# - GIT_GUARD_CONFIG, the shim's handoff, forged in the caller's environment;
# - a linked tree's HEAD reflog, the last name of a commit a clean switch left behind;
# - `git guard -C` from a deleted current directory.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/branch_fixtures.bash"

# saved_tip REPO TIP: the save refs (branches or in-place) that hold TIP as their tip.
saved_tip() {
    git_real -C "$1" for-each-ref --points-at "$2" --format='%(refname)' refs/heads/stranded/ refs/stranded/
}
# kept REPO TIP: whether some save reaches TIP (as its tip or as a parent of one).
kept() {
    local ref
    for ref in $(git_real -C "$1" for-each-ref --format='%(refname)' refs/heads/stranded/ refs/stranded/); do
        git_real -C "$1" merge-base --is-ancestor "$2" "$ref" 2>/dev/null && return 0
    done
    return 1
}

make_clone repo
REPO=$TEST_ROOT/repo
git_real -C "$REPO" config guard.enabled true
install_hook "$REPO"
shim_on
cd "$REPO" || exit 1

section "hooks off through config the call does not carry: update-ref -d saves"
printf '[core]\n\thooksPath = /dev/null\n' >"$TEST_ROOT/nohooks.cfg"
TIP=$(unpushed "$REPO" inc-wip)
run_cmd git -c include.path="$TEST_ROOT/nohooks.cfg" update-ref -d refs/heads/inc-wip
assert_eq 0 "$RC" "update-ref -d with -c include.path failed ($ERR)"
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "-c include.path=FILE (hooksPath=/dev/null): update-ref -d destroyed the unpushed commit, not saved"
TIP=$(unpushed "$REPO" params-wip)
run_cmd env GIT_CONFIG_PARAMETERS="'include.path'='$TEST_ROOT/nohooks.cfg'" git update-ref -d refs/heads/params-wip
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "GIT_CONFIG_PARAMETERS include.path: update-ref -d destroyed the unpushed commit, not saved"
TIP=$(unpushed "$REPO" global-wip)
run_cmd env GIT_CONFIG_GLOBAL="$TEST_ROOT/nohooks.cfg" git update-ref -d refs/heads/global-wip
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "GIT_CONFIG_GLOBAL=FILE: update-ref -d destroyed the unpushed commit, not saved"
TIP=$(unpushed "$REPO" system-wip)
run_cmd env -u GIT_CONFIG_NOSYSTEM GIT_CONFIG_SYSTEM="$TEST_ROOT/nohooks.cfg" git update-ref -d refs/heads/system-wip
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "GIT_CONFIG_SYSTEM=FILE: update-ref -d destroyed the unpushed commit, not saved"
TIP=$(unpushed "$REPO" push-wip)
run_cmd git -c include.path="$TEST_ROOT/nohooks.cfg" push -q . :push-wip
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "-c include.path=FILE: 'push . :b' destroyed the unpushed commit, not saved"
TIP=$(unpushed "$REPO" fetch-wip)
run_cmd env GIT_CONFIG_GLOBAL="$TEST_ROOT/nohooks.cfg" git fetch -q . +main:fetch-wip
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "GIT_CONFIG_GLOBAL=FILE: a forced fetch move destroyed the unpushed commit, not saved"

section "a push into another guarded repository: the pusher's hooks-off config reaches its receive-pack"
# A local push runs git-receive-pack in the receiving repository with the pusher's
# environment, GIT_CONFIG_GLOBAL included: the receiving side's hook must still run.
make_clone peer
PEER=$TEST_ROOT/peer
git_real -C "$PEER" config guard.enabled true
install_hook "$PEER"
TIP=$(unpushed "$PEER" peer-wip)
run_cmd env GIT_CONFIG_GLOBAL="$TEST_ROOT/nohooks.cfg" git push -q "$PEER" :peer-wip
assert_eq 0 "$RC" "the hooks-off push deleting a branch of a non-bare peer failed ($ERR)"
assert_ne "" "$(saved_tip "$PEER" "$TIP")" \
    "a pusher with core.hooksPath=/dev/null in GIT_CONFIG_GLOBAL deleted the peer's only copy of peer-wip, not saved"
HUB=$TEST_ROOT/peer.origin
git_real -C "$HUB" config guard.enabled true
sed "s|@GUARD_HOOK_FRONT@|$GUARD_BIN_DIR/git-guard-hook|" "$STUB" >"$HUB/hooks/reference-transaction"
chmod +x "$HUB/hooks/reference-transaction"
TIP=$(unpushed "$REPO" hub-old)
git_real -C "$REPO" push -q "$HUB" hub-old
run_cmd env GIT_CONFIG_GLOBAL="$TEST_ROOT/nohooks.cfg" git push -q "$HUB" :hub-old
assert_eq 0 "$RC" "the hooks-off push deleting a branch of a bare hub failed ($ERR)"
assert_ne "" "$(saved_tip "$HUB" "$TIP")" \
    "a pusher with core.hooksPath=/dev/null in GIT_CONFIG_GLOBAL deleted the bare hub's only copy of hub-old ($(git_real --version)), not saved"
run_cmd git push -q "$TEST_ROOT/no-such-repo" :x
assert_contains "$ERR" "does not appear to be a git repository" "a push to a missing path lost git's own error"

section "a core.hooksPath added to ~/.gitconfig, or to the repository, after install"
cp "$HOME/.gitconfig" "$TEST_ROOT/home.gitconfig"
cat "$TEST_ROOT/nohooks.cfg" >>"$HOME/.gitconfig"
TIP=$(unpushed "$REPO" home-wip)
run_cmd git update-ref -d refs/heads/home-wip
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "~/.gitconfig core.hooksPath: update-ref -d destroyed the unpushed commit, not saved"
cp "$TEST_ROOT/home.gitconfig" "$HOME/.gitconfig"
mkdir -p "$TEST_ROOT/project-hooks"
printf '#!/bin/sh\necho "project $1" >>"%s"\n' "$TEST_ROOT/project.log" >"$TEST_ROOT/project-hooks/post-checkout"
chmod +x "$TEST_ROOT/project-hooks/post-checkout"
git_real -C "$REPO" config core.hooksPath "$TEST_ROOT/project-hooks"
TIP=$(unpushed "$REPO" repo-wip)
run_cmd git update-ref -d refs/heads/repo-wip
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "a repository core.hooksPath set after install: update-ref -d destroyed the unpushed commit, not saved"
# The listing is git's: a core.hooksPath that names our hook's own directory changes nothing.
git_real -C "$REPO" config core.hooksPath "$REPO/.git/hooks"
TIP=$(unpushed "$REPO" same-wip)
run_cmd git update-ref -d refs/heads/same-wip
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "core.hooksPath naming our own hooks directory: update-ref -d destroyed the unpushed commit, not saved"
git_real -C "$REPO" config --unset core.hooksPath
run_cmd git -c include.path="$TEST_ROOT/nohooks.cfg" rev-parse HEAD
assert_eq "$(git_real rev-parse HEAD)" "$OUT" "a read-only call with hooks off prints git's own answer"

section "git's exact step words: a hook's or foreach's 'git checkout -q -- <path>' is judged"
printf 'hook edit\n' >a.txt
printf '#!/bin/sh\n[ "$3" = 1 ] || exit 0\nexec git checkout -q -- a.txt\n' >"$REPO/.git/hooks/post-checkout"
chmod +x "$REPO/.git/hooks/post-checkout"
run_cmd git checkout -q -b hooked
rm "$REPO/.git/hooks/post-checkout"
assert_eq "a" "$(cat a.txt)" "the hook's checkout did not run"
assert_contains "$(git_real -C "$REPO" log -p --format=%H --all 2>/dev/null | grep 'hook edit' || true)" "hook edit" \
    "a hook's 'exec git checkout -q -- a.txt' destroyed the edit, not saved (exempted as git's own step)"
git_real -C "$REPO" checkout -q main
git_real init -q --bare "$TEST_ROOT/sub.git"
new_repo "$TEST_ROOT/sub.seed"
git_real -C "$TEST_ROOT/sub.seed" push -q "$TEST_ROOT/sub.git" main
git_real -C "$REPO" -c protocol.file.allow=always submodule -q add "$TEST_ROOT/sub.git" sub
git_real -C "$REPO" commit -q -m "add sub"
printf 'submodule edit\n' >sub/README
run_cmd git submodule -q foreach git checkout -q -- .
assert_eq "readme" "$(cat sub/README)" "foreach's checkout did not run ($ERR)"
found=$(for d in "$REPO/.git" "$REPO/.git/modules/sub"; do
    git_real --git-dir="$d" log -p --format=%H --all 2>/dev/null | grep -c 'submodule edit'
done | awk '{ n += $1 } END { print n + 0 }')
assert_ne 0 "$found" "'submodule foreach git checkout -q -- .' destroyed the submodule's edit, not saved"
printf 'staged\n' >sub/staged.txt
git_real -C sub add staged.txt
run_cmd git submodule -q foreach git reset -q --merge
assert_no_file sub/staged.txt "foreach's reset --merge did not run ($ERR)"
found=$(for d in "$REPO/.git" "$REPO/.git/modules/sub"; do
    git_real --git-dir="$d" log --format=%H --all -- staged.txt 2>/dev/null | wc -l
done | awk '{ n += $1 } END { print n + 0 }')
assert_ne 0 "$found" "'submodule foreach git reset --merge' destroyed the staged file, not saved"

section "a tag is no holder: tag, branch -D, tag -d keeps the commit"
TIP=$(unpushed "$REPO" tagged-wip)
git_real -C "$REPO" tag wip tagged-wip
run_cmd git branch -q -D tagged-wip
git_real -C "$REPO" tag -d wip >/dev/null
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "a tag held the commit when its branch was deleted; 'tag -d' then lost it, not saved"
TIP=$(unpushed "$REPO" noted-wip)
git_real -C "$REPO" notes add -m note noted-wip
git_real -C "$REPO" update-ref refs/replace/$(git_real rev-parse main) "$TIP"
run_cmd git branch -q -D noted-wip
git_real -C "$REPO" update-ref -d refs/replace/$(git_real rev-parse main)
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "a replace ref held the commit when its branch was deleted, not saved"

section "guard.baseRef naming the branch being deleted publishes nothing"
TIP=$(unpushed "$REPO" based-wip)
git_real -C "$REPO" config guard.baseRef refs/heads/based-wip
run_cmd git branch -q -D based-wip
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "guard.baseRef=refs/heads/based-wip counted the branch as published against itself, not saved"
TIP=$(unpushed "$REPO" short-wip)
git_real -C "$REPO" config guard.baseRef short-wip
run_cmd git update-ref -d refs/heads/short-wip
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "guard.baseRef=short-wip (a short name) published the branch against itself, not saved"
git_real -C "$REPO" config --unset-all guard.baseRef

section "no environment variable switches the guard off: hostile GIT_GUARD_* values"
TIP=$(unpushed "$REPO" env-wip)
# The handoff as the shim wrote it before it was bound to git's pid: the git dir, its
# config files' stamp (inode:size:ctime), GIT_CONFIG_PARAMETERS, then the entries.
forged=$(python3 - "$REPO/.git" <<'PY'
import os, sys
d = os.path.realpath(sys.argv[1])
stamp = ""
for f in (d + "/config", d + "/config.worktree", d + "/config"):
    try:
        st = os.stat(f)
        stamp += "%d:%d:%d.%d" % (st.st_ino, st.st_size, st.st_ctime_ns // 10**9, st.st_ctime_ns % 10**9)
    except OSError:
        pass
    stamp += ";"
print(d + "%00" + stamp + "%00" + "%00" + "guard.enabled\nfalse%00", end="")
PY
)
run_cmd env GIT_GUARD_CONFIG="$forged" GIT_GUARD_HOOK_GIT_DIR=/nonexistent GIT_GUARD_HOOK_COMMON_DIR=/nonexistent \
    GIT_GUARD_HANDLED="$$ 0" GIT_GUARD_STAMP=x GIT_GUARD_CALLER_PATH=/nonexistent GIT_GUARD_OP="1 1 x" GIT_GUARD_VERBOSE=0 \
    "$REAL_GIT" update-ref -d refs/heads/env-wip
assert_eq 0 "$RC" "update-ref -d with hostile GIT_GUARD_* values failed ($ERR)"
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "hostile GIT_GUARD_* values switched the hook off: update-ref -d destroyed the unpushed commit, not saved"
TIP=$(unpushed "$REPO" env2-wip)
run_cmd env GIT_GUARD_CONFIG="guard.enabled
false%00" git branch -q -D env2-wip
assert_ne "" "$(saved_tip "$REPO" "$TIP")" "GIT_GUARD_CONFIG through the shim switched the guard off: branch -D destroyed the commit, not saved"

section "a linked tree's HEAD reflog: detached work left by a clean switch, then a removal"
# left_detached NAME: a linked tree NAME that committed on a detached HEAD and then
# switched to the branch `side` (clean, unforced); sets DETACHED to the commit left behind.
left_detached() {
    local t=$TEST_ROOT/$1
    git_real -C "$REPO" worktree add -q --detach "$t" main
    printf '%s\n' "$1" >"$t/d.txt"
    git_real -C "$t" add d.txt
    git_real -C "$t" commit -q -m "detached work in $1"
    DETACHED=$(git_real -C "$t" rev-parse HEAD)
    git_real -C "$REPO" show-ref -q --verify refs/heads/side || git_real -C "$REPO" branch -q side main
    git_real -C "$t" switch -q side 2>/dev/null
}
left_detached reflog-tree
run_cmd git worktree remove "$TEST_ROOT/reflog-tree"
assert_eq 0 "$RC" "worktree remove failed ($ERR)"
kept "$REPO" "$DETACHED" && pass "the commit only the tree's HEAD reflog named is in a save" ||
    fail "worktree remove destroyed the detached commit only the tree's reflog named, not saved"
left_detached prune-tree
rm -rf "$TEST_ROOT/prune-tree"
run_cmd git worktree prune
kept "$REPO" "$DETACHED" && pass "prune saved the commit only the tree's HEAD reflog named" ||
    fail "worktree prune destroyed the detached commit only the tree's reflog named, not saved"

section "a guarded bare hub keeps its hook whatever the pusher's config (git >= 2.54)"
NEW_GIT=${GUARD_TEST_GIT:-/opt/git-2.55/bin/git}
if [ -x "$NEW_GIT" ] && "$NEW_GIT" hook -h 2>&1 | grep -q 'list'; then
    HUB=$TEST_ROOT/hub.git
    "$NEW_GIT" init -q --bare "$HUB"
    "$NEW_GIT" -C "$REPO" push -q "$HUB" main
    PATH=$(dirname "$NEW_GIT"):$PATH GIT_GUARD_REAL_GIT=$NEW_GIT "$GUARD_BIN_DIR/git-guard" -C "$HUB" install >/dev/null 2>&1 ||
        fail "git guard install in a bare hub failed"
    assert_eq "reference-transaction" "$("$NEW_GIT" -C "$HUB" config hook.git-guard.event)" \
        "install registered no configured hook in the hub"
    TIP=$(unpushed "$REPO" hub-wip)
    "$NEW_GIT" -C "$REPO" push -q "$HUB" hub-wip
    run_cmd env GIT_CONFIG_GLOBAL="$TEST_ROOT/nohooks.cfg" "$NEW_GIT" -C "$REPO" push -q "$HUB" :hub-wip
    assert_eq 0 "$RC" "the hooks-off pusher's deletion failed ($ERR)"
    assert_ne "" "$(saved_tip "$HUB" "$TIP")" \
        "a pusher with core.hooksPath=/dev/null in GIT_CONFIG_GLOBAL deleted the hub's only copy of hub-wip, not saved"
    TIP=$(unpushed "$REPO" hub-wip2)
    "$NEW_GIT" -C "$REPO" push -q "$HUB" hub-wip2
    run_cmd "$NEW_GIT" -C "$REPO" push -q "$HUB" :hub-wip2
    assert_eq 1 "$(saved_tip "$HUB" "$TIP" | wc -l)" "a hub deletion with both hooks running was not saved exactly once"
else
    printf '  (no git >= 2.54 at %s: the configured-hook case is not run here)\n' "$NEW_GIT"
fi

section "git guard -C works from a deleted current directory"
mkdir "$TEST_ROOT/gone" && cd "$TEST_ROOT/gone" && rmdir "$TEST_ROOT/gone"
run_cmd "$GUARD_BIN_DIR/git-guard" -C "$REPO" status
assert_eq 0 "$RC" "git guard -C <repo> status from a deleted directory failed ($ERR)"
run_cmd "$GUARD_BIN_DIR/git-guard" status
assert_ne 0 "$RC" "git guard status from a deleted directory without -C succeeded"
assert_contains "$ERR" "current directory is gone" "the refusal does not say the current directory is gone"
cd "$TEST_ROOT" || exit 1
shim_off

finish
