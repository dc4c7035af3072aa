#!/usr/bin/env bash
# A save stages the files git's status listed straight from disk (save/staging_raw.cpp,
# stage_listed: hash-object --no-filters and update-index --index-info, no `git add`), and
# that is the tree `git add -A` would have staged: for every kind of change a removed tree
# can hold (edits, deletions, new and executable files, a chmod, staged-then-edited, an
# intent-to-add entry, odd names, a file turned into a directory and back, core.fileMode
# off), the save's working tree and its index tree are the trees git itself writes from a
# private copy of the tree's index. Where a rule git would apply reaches the files (an
# ignored .gitattributes no listing shows, core.autocrlf), the save still holds their bytes.
# Run through the shim, `git worktree remove --force`, real git.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

nl='
'

# expected TREE: "<S tree> <I tree>" as git writes them for TREE: its index as it is, and a
# private copy of it after `git add -A` (no attributes here: add stages the bytes).
expected() {
    local index=$TEST_ROOT/expected.index
    cp "$(git_real -C "$1" rev-parse --path-format=absolute --git-path index)" "$index"
    local itree stree
    itree=$(GIT_INDEX_FILE=$index git_real -C "$1" write-tree)
    GIT_INDEX_FILE=$index git_real -C "$1" add -A
    stree=$(GIT_INDEX_FILE=$index git_real -C "$1" write-tree)
    rm -f "$index"
    echo "$stree $itree"
}

# saved REPO NAME: "<S tree> <I tree>" of the newest save of the tree NAME.
saved() {
    local ref index
    ref=$(git_real -C "$1" for-each-ref --format='%(refname)' "refs/heads/stranded/$2/" | tail -n 1)
    [ -n "$ref" ] || return 0
    # Stranded-Index-Tree, or the tree of the commit Stranded-Index names.
    index=$(git_real -C "$1" log -1 --format=%B "$ref" | sed -n 's/^Stranded-Index-Tree: //p')
    [ -n "$index" ] || index=$(git_real -C "$1" log -1 --format=%B "$ref" | sed -n 's/^Stranded-Index: //p')
    echo "$(git_real -C "$1" rev-parse "$ref^{tree}") $(git_real -C "$1" rev-parse "$index^{tree}")"
}

# remove_and_compare REPO TREE WHAT: removes TREE through the shim, tracing git's processes,
# and checks the save holds the trees git writes. Sets $TRACE to the trace file.
remove_and_compare() {
    local repo=$1 tree=$2 what=$3 want got
    want=$(expected "$tree")
    TRACE=$TEST_ROOT/trace.$(basename "$tree")
    run_cmd env GIT_TRACE2_EVENT="$TRACE" git -C "$repo" worktree remove --force "$tree"
    assert_eq 0 "$RC" "$what: worktree remove --force failed: $ERR"
    assert_no_file "$tree" "$what: git removed the tree"
    got=$(saved "$repo" "$(basename "$tree")")
    assert_ne "" "$got" "$what: the removal made no save: the tree's work is lost"
    assert_eq "${want% *}" "${got% *}" \
        "$what: the save's working tree is not what git stages from the files (a change is lost or wrong: $(git_real -C "$repo" diff-tree -r --stat "${want% *}" "${got% *}" 2>&1 | tail -n 3 | tr '\n' ' '))"
    assert_eq "${want#* }" "${got#* }" "$what: the save's index tree is not the tree's index as staged"
}

# ran_add TRACE: whether a `git add` ran (any process whose subcommand is add).
ran_add() {
    grep '"event":"start"' "$1" | grep -q '"argv":\[[^]]*"add"'
}

repo=$TEST_ROOT/repo
new_repo "$repo"
mkdir -p "$repo/d" "$repo/sub"
for f in a.txt b.txt gone.txt mode.sh f d/y sub/k.txt; do printf '%s\n' "$f" >"$repo/$f"; done
git_real -C "$repo" add -A && git_real -C "$repo" commit -qm base
git_real -C "$repo" config guard.enabled true
install_hook "$repo"
shim_on

section "every kind of change a tree holds is saved as git stages it, without git add"
T=$TEST_ROOT/mixed
git_real -C "$repo" worktree add -q --detach "$T"
echo edited >>"$T/a.txt"
rm "$T/gone.txt"
chmod +x "$T/mode.sh"
echo staged >"$T/b.txt" && git_real -C "$T" add b.txt && echo "then edited" >>"$T/b.txt"
echo new >"$T/new.txt"
printf '#!/bin/sh\n' >"$T/run.sh" && chmod +x "$T/run.sh"
echo later >"$T/ita.txt" && git_real -C "$T" add -N ita.txt
printf 'odd\n' >"$T/new${nl}line \"q\" back\\slash"
mkdir -p "$T/deep/er" && echo deep >"$T/deep/er/x.txt"
rm "$T/f" && mkdir "$T/f" && echo "a file where a file was" >"$T/f/x"
rm -r "$T/d" && echo "a file where a directory was" >"$T/d"
echo "staged new" >"$T/sub/s.txt" && git_real -C "$T" add sub/s.txt
remove_and_compare "$repo" "$T" "mixed changes"
if ran_add "$TRACE"; then
    fail "the removal staged with git add: the save did not stage from status's list"
else
    pass "the removal staged from status's list, with no git add"
fi

section "only staged changes: the working tree is the index"
T=$TEST_ROOT/staged
git_real -C "$repo" worktree add -q --detach "$T"
echo staged >"$T/c.txt" && git_real -C "$T" add c.txt
remove_and_compare "$repo" "$T" "only staged"

section "core.fileMode off: modes are the index's, a new file 100644"
git_real -C "$repo" config core.fileMode false
T=$TEST_ROOT/nomode
git_real -C "$repo" worktree add -q --detach "$T"
chmod +x "$T/a.txt"
echo edit >>"$T/mode.sh"
printf '#!/bin/sh\n' >"$T/exec.sh" && chmod +x "$T/exec.sh"
remove_and_compare "$repo" "$T" "core.fileMode=false"
git_real -C "$repo" config --unset core.fileMode

section "a symlink: git stages it as git does, without git add"
T=$TEST_ROOT/links
git_real -C "$repo" worktree add -q --detach "$T"
ln -s a.txt "$T/link"
ln -s missing "$T/dangling"
rm "$T/b.txt" && ln -s a.txt "$T/b.txt"
echo edit >>"$T/a.txt"
remove_and_compare "$repo" "$T" "new symlinks and a file turned into one"
if ran_add "$TRACE"; then
    fail "symlinks were staged with git add: the save did not stage from status's list"
else
    pass "symlinks are staged from status's list, with no git add"
fi

# blob_is REPO NAME PATH FILE: the newest save of NAME holds PATH as FILE's bytes.
blob_is() {
    local ref
    ref=$(git_real -C "$1" for-each-ref --format='%(refname)' "refs/heads/stranded/$2/" | tail -n 1)
    if git_real -C "$1" cat-file blob "$ref:$3" 2>/dev/null | cmp -s - "$4"; then
        pass "$2: the save holds $3 as its bytes on disk"
    else
        fail "$2: the save's $3 is not the file's bytes (staged through a rule git applied): $(git_real -C "$1" cat-file blob "$ref:$3" 2>&1 | od -c | head -n 1)"
    fi
}

section "rules git would apply: an ignored .gitattributes, core.autocrlf, a link beside rules"
# An ignored, untracked .gitattributes is in no listing git gives, yet git's staging reads
# it: the save must still hold the bytes on disk.
T=$TEST_ROOT/rules
git_real -C "$repo" worktree add -q --detach "$T"
mkdir -p "$T/sub"
printf 'sub/.gitattributes\n' >"$T/.git-info-exclude"
cat "$T/.git-info-exclude" >>"$(git_real -C "$T" rev-parse --git-common-dir)/info/exclude"
printf '* text=auto\n' >"$T/sub/.gitattributes"
printf 'one\r\ntwo\r\n' >"$T/sub/c.txt"
printf 'edit\r\n' >"$T/sub/k.txt"
ln -s ../a.txt "$T/sub/link"
rm "$T/.git-info-exclude"
cp -a "$T" "$TEST_ROOT/rules.before"
run_cmd git -C "$repo" worktree remove --force "$T"
assert_eq 0 "$RC" "worktree remove --force under an ignored .gitattributes failed: $ERR"
blob_is "$repo" rules sub/c.txt "$TEST_ROOT/rules.before/sub/c.txt"
blob_is "$repo" rules sub/k.txt "$TEST_ROOT/rules.before/sub/k.txt"
ref=$(git_real -C "$repo" for-each-ref --format='%(refname)' refs/heads/stranded/rules/ | tail -n 1)
assert_eq "120000 ../a.txt" "$(git_real -C "$repo" ls-tree "$ref" sub/link | cut -d' ' -f1) $(git_real -C "$repo" cat-file blob "$ref:sub/link")" \
    "the link beside the rules is not saved as a link to ../a.txt"
sed -i '/^sub\/.gitattributes$/d' "$(git_real -C "$repo" rev-parse --git-common-dir)/info/exclude"

git_real -C "$repo" config core.autocrlf true
T=$TEST_ROOT/autocrlf
git_real -C "$repo" worktree add -q --detach "$T"
printf 'crlf\r\nnew\r\n' >"$T/new.txt"
printf 'crlf\r\nedit\r\n' >"$T/a.txt"
cp -a "$T" "$TEST_ROOT/autocrlf.before"
run_cmd git -C "$repo" worktree remove --force "$T"
assert_eq 0 "$RC" "worktree remove --force under core.autocrlf failed: $ERR"
blob_is "$repo" autocrlf new.txt "$TEST_ROOT/autocrlf.before/new.txt"
blob_is "$repo" autocrlf a.txt "$TEST_ROOT/autocrlf.before/a.txt"
git_real -C "$repo" config --unset core.autocrlf

finish
