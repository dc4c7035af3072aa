#!/usr/bin/env bash
# The hook judges by effect (DESIGN §0.6, §4.2, issue 16 item 1): every update of a
# branch, a save or a detached HEAD whose old value the transaction leaves on no ref is
# saved like a deletion: forced moves (update-ref, fetch . +x:b, push --force, a forced
# push into a guarded bare hub), HEAD moved or deleted off its own commits, a branch
# turned into a symbolic ref (2.46+). Fast-forwards, commits and new branches save and
# print nothing. Rewrites: a rebase or an amend whose new tip holds the old content saves
# nothing; an amend that changed content and a reset that drops commits are saved
# (docs/decisions.md, "The hook judges by effect (round 5)"). Real git by absolute path.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GIT=$REAL_GIT
read -r major minor _ < <("$GIT" version | sed -E 's/^git version ([0-9]+)\.([0-9]+).*/\1 \2 x/')
VERSION=$((major * 100 + minor))
printf 'git in use: %s\n' "$("$GIT" version)"

# unique_commit REPO NAME [BASE]: a new commit on BASE adding NAME.txt; no ref moves.
unique_commit() {
    local repo=$1 name=$2 base=${3:-main} index=$TEST_ROOT/.tmp-index blob tree
    rm -f "$index"
    GIT_INDEX_FILE=$index "$GIT" -C "$repo" read-tree "$base"
    blob=$(printf 'work on %s\n' "$name" | "$GIT" -C "$repo" hash-object -w --stdin)
    GIT_INDEX_FILE=$index "$GIT" -C "$repo" update-index --add --cacheinfo "100644,$blob,$name.txt"
    tree=$(GIT_INDEX_FILE=$index "$GIT" -C "$repo" write-tree)
    rm -f "$index"
    "$GIT" -C "$repo" commit-tree "$tree" -p "$base" -m "work on $name"
}

# unpushed REPO NAME: branch NAME holding one commit found nowhere else (made hooks off).
unpushed() {
    "$GIT" -C "$1" -c core.hooksPath=/dev/null branch "$2" "$(unique_commit "$1" "$2")"
}

# saves_at REPO COMMIT: the save refs pointing at COMMIT.
saves_at() {
    "$GIT" -C "$1" for-each-ref --format='%(objectname) %(refname:short)' refs/heads/stranded/ refs/stranded/ |
        awk -v c="$2" '$1 == c { print $2 }'
}
all_saves() {
    "$GIT" -C "$1" for-each-ref --format='%(refname)' refs/heads/stranded/ refs/stranded/
}

# expect_saved WHAT REPO TIP: exactly one save at TIP, named on stderr.
expect_saved() {
    local refs
    refs=$(saves_at "$2" "$3")
    assert_eq 1 "$(printf '%s' "$refs" | grep -c .)" "$1: the commit left on no ref was lost, not saved (one save at ${3:0:12} expected)"
    [ -z "$refs" ] || assert_contains "$ERR" "$refs" "$1: stderr names the save"
}

# expect_quiet WHAT REPO BEFORE: nothing saved since BEFORE, stderr empty.
expect_quiet() {
    assert_eq "$3" "$(all_saves "$2")" "$1: saved something although no commit was left on no ref"
    assert_eq "" "$ERR" "$1: stderr is git's own (empty)"
}

make_clone repo
REPO=$TEST_ROOT/repo
"$GIT" -C "$REPO" config guard.enabled true
install_hook "$REPO"
cd "$REPO" || exit 1

section "git update-ref refs/heads/b <unrelated> saves b's old tip"
unpushed "$REPO" b
tip=$("$GIT" rev-parse b)
run_cmd "$GIT" update-ref refs/heads/b main
assert_eq 0 "$RC" "update-ref succeeds ($ERR)"
assert_eq "$("$GIT" rev-parse main)" "$("$GIT" rev-parse b)" "git moved b"
expect_saved "update-ref refs/heads/b main" "$REPO" "$tip"

section "git fetch . +x:b saves b's old tip"
unpushed "$REPO" f
unpushed "$REPO" x
tip=$("$GIT" rev-parse f)
run_cmd "$GIT" fetch -q . +x:f
assert_eq 0 "$RC" "fetch . +x:f succeeds ($ERR)"
expect_saved "fetch . +x:f" "$REPO" "$tip"

section "git push --force . x:b saves b's old tip"
unpushed "$REPO" p
tip=$("$GIT" rev-parse p)
run_cmd "$GIT" push -q --force . x:p
assert_eq 0 "$RC" "push --force . x:p succeeds ($ERR)"
expect_saved "push --force . x:p" "$REPO" "$tip"

section "git branch -f saves the old tip; git branch -f onto a descendant saves nothing"
unpushed "$REPO" bf
tip=$("$GIT" rev-parse bf)
run_cmd "$GIT" branch -f bf main
expect_saved "branch -f bf main" "$REPO" "$tip"
before=$(all_saves "$REPO")
run_cmd "$GIT" branch -f bf "$(unique_commit "$REPO" later "$(unique_commit "$REPO" mid main)")"
expect_quiet "branch -f onto a descendant two commits ahead" "$REPO" "$before"

section "fast-forwards, commits and new branches save and print nothing"
before=$(all_saves "$REPO")
echo more >>README
run_cmd "$GIT" commit -q -a -m more
expect_quiet "git commit" "$REPO" "$before"
run_cmd "$GIT" branch newb
expect_quiet "git branch newb" "$REPO" "$before"
run_cmd "$GIT" update-ref refs/heads/newb "$(unique_commit "$REPO" ff newb)"
expect_quiet "update-ref onto a child" "$REPO" "$before"
run_cmd "$GIT" commit -q --allow-empty -m empty
expect_quiet "git commit --allow-empty" "$REPO" "$before"
run_cmd "$GIT" push -q origin main
expect_quiet "git push origin main" "$REPO" "$before"

section "rewrites (docs/decisions.md): what holds the old content saves nothing"
before=$(all_saves "$REPO")
run_cmd "$GIT" commit -q --allow-empty --amend -m "empty, reworded"
expect_quiet "commit --amend of the message only" "$REPO" "$before"
echo extra >>README
run_cmd "$GIT" commit -q -a --amend --no-edit
expect_quiet "commit --amend that only adds to the content" "$REPO" "$before"
"$GIT" checkout -q -b topic
commit_file "$REPO" topic.txt "topic"
"$GIT" checkout -q main
commit_file "$REPO" main2.txt "main2"
"$GIT" checkout -q topic
run_cmd "$GIT" rebase -q main
assert_eq 0 "$RC" "rebase succeeds ($ERR)"
expect_quiet "rebase topic onto main" "$REPO" "$before"

section "rewrites that drop content are saved: amend that changed content, reset --soft HEAD~"
tip=$("$GIT" rev-parse HEAD)
printf 'other\n' >topic.txt
run_cmd "$GIT" commit -q -a --amend --no-edit
assert_eq 0 "$RC" "amend succeeds ($ERR)"
expect_saved "commit --amend that replaced topic.txt's content" "$REPO" "$tip"
tip=$("$GIT" rev-parse HEAD)
run_cmd "$GIT" reset -q --soft HEAD~
expect_saved "reset --soft HEAD~" "$REPO" "$tip"
"$GIT" checkout -q -f main

section "a detached HEAD moved or deleted off its own commits is saved"
"$GIT" checkout -q --detach
commit_file "$REPO" detached.txt "detached"
tip=$("$GIT" rev-parse HEAD)
run_cmd "$GIT" update-ref --no-deref HEAD main
expect_saved "update-ref --no-deref HEAD main on a detached HEAD" "$REPO" "$tip"
"$GIT" checkout -q --detach main
commit_file "$REPO" detached2.txt "detached2"
tip=$("$GIT" rev-parse HEAD)
run_cmd "$GIT" update-ref -d HEAD
echo "ref: refs/heads/main" >"$REPO/.git/HEAD" # git left the repository without a HEAD
expect_saved "update-ref -d HEAD on a detached HEAD" "$REPO" "$tip"
"$GIT" checkout -q -f main
before=$(all_saves "$REPO")
"$GIT" checkout -q --detach
run_cmd "$GIT" commit -q --allow-empty -m "on a detached HEAD"
expect_quiet "a commit on a detached HEAD" "$REPO" "$before"
"$GIT" checkout -q main 2>/dev/null

section "a branch turned into a symbolic ref (2.46+)"
if [ "$VERSION" -ge 246 ]; then
    unpushed "$REPO" s1
    tip=$("$GIT" rev-parse s1)
    run_cmd "$GIT" update-ref --no-deref --stdin <<<"symref-update refs/heads/s1 refs/heads/main"
    assert_eq 0 "$RC" "symref-update succeeds ($ERR)"
    expect_saved "symref-update refs/heads/s1 refs/heads/main" "$REPO" "$tip"
    unpushed "$REPO" s2
    tip=$("$GIT" rev-parse s2)
    run_cmd "$GIT" symbolic-ref refs/heads/s2 refs/heads/main
    expect_saved "symbolic-ref refs/heads/s2 refs/heads/main" "$REPO" "$tip"
else
    printf '  skip symref conversions: git %d.%d runs no hook for them (ref: values came in 2.46)\n' "$major" "$minor"
fi

section "a save forced off commits found nowhere else is refused"
save=$(all_saves "$REPO" | head -1)
save_tip=$("$GIT" rev-parse "$save")
run_cmd "$GIT" update-ref "$save" main
assert_ne 0 "$RC" "update-ref moving a save off its commits went ahead"
assert_eq "$save_tip" "$("$GIT" rev-parse "$save")" "the save was moved off its commits: they are lost"
assert_contains "$ERR" "git guard drop" "the refusal names 'git guard drop'"

section "a forced push into a guarded bare hub: saved, and the pusher is told"
HUB=$TEST_ROOT/hub.git
"$GIT" init -q --bare "$HUB"
"$GIT" -C "$HUB" config guard.enabled true
sed "s|@GUARD_HOOK_FRONT@|$GUARD_BIN_DIR/git-guard-hook|" "$STUB" >"$HUB/hooks/reference-transaction"
chmod +x "$HUB/hooks/reference-transaction"
"$GIT" clone -q "$HUB" "$TEST_ROOT/alice" 2>/dev/null
"$GIT" clone -q "$HUB" "$TEST_ROOT/bob" 2>/dev/null
commit_file "$TEST_ROOT/alice" a.txt "alice's work"
"$GIT" -C "$TEST_ROOT/alice" push -q origin HEAD:main 2>/dev/null
"$GIT" -C "$TEST_ROOT/bob" fetch -q origin
"$GIT" -C "$TEST_ROOT/bob" checkout -q -b main origin/main
commit_file "$TEST_ROOT/alice" a2.txt "alice's second"
"$GIT" -C "$TEST_ROOT/alice" push -q origin HEAD:main
tip=$("$GIT" -C "$HUB" rev-parse main)
commit_file "$TEST_ROOT/bob" b.txt "bob's rewrite"
# A ref there (off alice's commit) makes every save's name impossible.
"$GIT" -C "$HUB" update-ref refs/heads/stranded "$tip~1"
run_cmd "$GIT" -C "$TEST_ROOT/bob" push -q --force origin main
assert_ne 0 "$RC" "a forced push whose save failed went ahead"
assert_eq "$tip" "$("$GIT" -C "$HUB" rev-parse main)" "the hub's main was moved although its save failed: alice's commit is lost"
assert_contains "$ERR" "git-guard" "the pusher is told why the push was rejected"
"$GIT" -C "$HUB" -c core.hooksPath=/dev/null update-ref -d refs/heads/stranded
run_cmd "$GIT" -C "$TEST_ROOT/bob" push -q --force origin main
assert_eq 0 "$RC" "the forced push succeeds once a save can be made ($ERR)"
assert_ne "$tip" "$("$GIT" -C "$HUB" rev-parse main)" "the hub's main moved"
expect_saved "push --force into the hub" "$HUB" "$tip"

section "a guarded mirror keeps a forced update's old tip in a bundle"
ORIGIN=$TEST_ROOT/repo.origin
unpushed "$REPO" mirrored
"$GIT" -C "$REPO" push -q origin mirrored
"$GIT" clone -q --mirror "$ORIGIN" "$TEST_ROOT/mirror.git"
MIRROR=$TEST_ROOT/mirror.git
"$GIT" -C "$MIRROR" config guard.enabled true
sed "s|@GUARD_HOOK_FRONT@|$GUARD_BIN_DIR/git-guard-hook|" "$STUB" >"$MIRROR/hooks/reference-transaction"
chmod +x "$MIRROR/hooks/reference-transaction"
tip=$("$GIT" -C "$MIRROR" rev-parse mirrored)
"$GIT" -C "$ORIGIN" update-ref refs/heads/mirrored main
run_cmd "$GIT" -C "$MIRROR" fetch -q --prune
assert_eq 0 "$RC" "the mirror's fetch succeeds ($ERR)"
bundle=$(ls "$MIRROR"/guard/bundles/*.bundle 2>/dev/null | head -1)
assert_contains "$("$GIT" -C "$MIRROR" bundle list-heads "${bundle:-none}" 2>/dev/null)" "$tip refs/heads/mirrored" \
    "the mirror's forced update lost mirrored's old tip: no bundle holds it"
assert_contains "$ERR" "$bundle" "stderr names the bundle"

finish
