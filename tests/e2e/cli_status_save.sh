#!/usr/bin/env bash
# `git guard status` and `git guard save` (DESIGN §4, §5, §8, §10) driven through the real
# git and the real git-guard: exit codes, the report's wording and its pasteable commands,
# --json, bad input that must write nothing, concurrent saves, and a full disk.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# `git guard` finds git-guard on PATH, as an installed one would be found.
PATH=$GUARD_BIN_DIR:$PATH
BASE_PATH=$PATH
export PATH BASE_PATH
hash -r
STAMP=20260101T000000.000Z

# A repository with a.txt, b.txt, dir/c.txt on main and a linked worktree `wt` on branch wt.
# Sets $R (the main tree) and $WT.
setup() {
    R=$TEST_ROOT/$1/repo
    WT=$TEST_ROOT/$1/wt
    mkdir -p "$TEST_ROOT/$1"
    new_repo "$R"
    commit_file "$R" a.txt alpha
    commit_file "$R" b.txt bravo
    mkdir -p "$R/dir"
    commit_file "$R" dir/c.txt charlie
    git -C "$R" worktree add -q -b wt "$WT"
}

# Everything a refused save must leave alone, as one string: refs, the tree's index and
# HEAD (bytes, hashed), and its files (content and mode).
state_of() {
    local tree=$1
    {
        git -C "$tree" for-each-ref --format='%(refname) %(objectname)'
        sha1sum <"$(git -C "$tree" rev-parse --path-format=absolute --git-path index)"
        cat "$(git -C "$tree" rev-parse --path-format=absolute --git-path HEAD)"
        (cd "$tree" && find . -path ./.git -prune -o \( -type f -o -type l \) -printf '%p %m %l\n' | sort)
        (cd "$tree" && find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 -r sha1sum)
    } 2>&1
}

stranded_refs() {
    git -C "$1" for-each-ref --format='%(refname)' refs/heads/stranded/
}

# assert_valid_json TEXT MESSAGE: every line parses as a JSON object.
assert_valid_json() {
    if printf '%s\n' "$1" | jq -e -s 'all(type == "object")' >/dev/null 2>&1; then
        pass "$2"
    else
        fail "$2"
        printf '       not JSON objects: %s\n' "$1"
    fi
}

# assert_jq JSON FILTER MESSAGE: the jq filter is true for the (single-line) JSON.
assert_jq() {
    if printf '%s\n' "$1" | jq -e "$2" >/dev/null 2>&1; then
        pass "$3"
    else
        fail "$3"
        printf '       filter:   %s\n       json:     %s\n' "$2" "$1"
    fi
}

# ------------------------------------------------------------------------------------
section "status: clean, then every kind of work, in words"
setup status
run_cmd git -C "$R" guard status
assert_eq 0 "$RC" "status of a clean repository exits 0"
assert_contains "$OUT" "$WT (wt): clean" "a clean tree reads as clean"
printf 'edited\n' >"$WT/a.txt"
rm "$WT/b.txt"
printf 'new\n' >"$WT/staged.txt"
git -C "$WT" add staged.txt
mkdir -p "$WT/newdir"
printf 'u\n' >"$WT/newdir/u.txt"
run_cmd git -C "$R" guard status "$WT"
assert_eq 0 "$RC" "status of a tree with work exits 0"
assert_contains "$OUT" "$WT (wt): has work" "the verdict says the tree has work"
assert_contains "$OUT" "modified 1: a.txt" "the tracked edit is not listed"
assert_contains "$OUT" "deleted 1: b.txt" "the deleted file is not listed"
assert_contains "$OUT" "staged 1: staged.txt" "the staged file is not listed"
assert_contains "$OUT" "untracked 1: newdir/u.txt" "the untracked file is not listed"
run_cmd git -C "$WT" guard status .
assert_eq 0 "$RC" "status of '.' from the tree's root exits 0"
assert_contains "$OUT" "$WT (wt): has work" "status of '.' reads the tree itself"

section "status: detached commits, excluded paths"
git -C "$R" worktree add -q --detach "$TEST_ROOT/status/det"
commit_file "$TEST_ROOT/status/det" det.txt detached
git -C "$R" config --add guard.exclude 'scratch/'
mkdir -p "$WT/scratch"
printf 'x\n' >"$WT/scratch/x"
run_cmd git -C "$R" guard status
assert_contains "$OUT" "$TEST_ROOT/status/det (detached): has work" "the detached tree's commit is not work"
assert_contains "$OUT" "commits 1: $(git -C "$TEST_ROOT/status/det" rev-parse --short=12 HEAD)" \
    "the detached commit is not listed"
assert_contains "$OUT" "excluded 1: scratch/x (guard.exclude 'scratch/')" "the excluded path and why are not shown"

section "status --json (DESIGN §10), with a non-UTF-8 file name"
printf 'latin1\n' >"$WT/$(printf 'caf\xe9.txt')"
run_cmd git -C "$R" guard status --json
assert_eq 0 "$RC" "status --json exits 0"
assert_valid_json "$OUT" "every line of status --json is a JSON object"
assert_eq 3 "$(printf '%s\n' "$OUT" | wc -l)" "one JSON line per worktree"
WT_JSON=$(printf '%s\n' "$OUT" | grep -F "\"path\":\"$WT\"")
assert_jq "$WT_JSON" 'has("path") and has("branch") and has("head") and has("verdict") and has("reason")
    and has("changes") and has("commits") and has("excluded")' "a §10 key is missing"
assert_jq "$WT_JSON" '.verdict == "has_work" and .branch == "wt" and .reason == null' "verdict or branch is wrong"
assert_jq "$WT_JSON" ".head == \"$(git -C "$WT" rev-parse HEAD)\"" "head is not the tree's HEAD"
assert_jq "$WT_JSON" 'all(.changes[]; has("path") and has("kind"))' "a change lacks path or kind"
assert_jq "$WT_JSON" '[.changes[] | select(.path == "a.txt" and .kind == "modified")] | length == 1' \
    "the tracked edit is missing from changes"
assert_jq "$WT_JSON" '[.changes[] | select(.path == "newdir/u.txt" and .kind == "untracked")] | length == 1' \
    "the untracked file is missing from changes"
assert_jq "$WT_JSON" '[.excluded[] | (.path? // .)] | index("scratch/x") != null' "the excluded path is missing"
assert_contains "$WT_JSON" '"caf\u00e9.txt"' "the non-UTF-8 name is not escaped as \\u00XX (or was dropped)"
if printf '%s' "$OUT" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1; then
    pass "status --json output is valid UTF-8"
else
    fail "status --json wrote raw non-UTF-8 bytes"
fi
DET_JSON=$(printf '%s\n' "$OUT" | grep -F "\"path\":\"$TEST_ROOT/status/det\"")
assert_jq "$DET_JSON" ".branch == null and .commits == [\"$(git -C "$TEST_ROOT/status/det" rev-parse HEAD)\"]" \
    "the detached tree's branch or commits are wrong in JSON"

section "status --branch: published is clean, unpublished is work"
git init -q --bare "$TEST_ROOT/status/origin.git"
git -C "$R" remote add origin "$TEST_ROOT/status/origin.git"
git -C "$R" push -q origin main
git -C "$R" remote set-head origin main
git -C "$R" branch pushed main
commit_file "$TEST_ROOT/status/det" pushed.txt pushed
git -C "$TEST_ROOT/status/det" push -q origin HEAD:refs/heads/pushed
git -C "$R" fetch -q origin
git -C "$R" branch -q -f pushed origin/pushed
git -C "$R" worktree add -q -b local-only "$TEST_ROOT/status/lo"
commit_file "$TEST_ROOT/status/lo" local.txt "only here"
git -C "$R" worktree remove "$TEST_ROOT/status/lo"
run_cmd git -C "$R" guard status --branch pushed --branch local-only
assert_eq 0 "$RC" "status --branch exits 0"
assert_contains "$OUT" "branch pushed: clean" "a pushed branch reads as work"
assert_contains "$OUT" "branch local-only: has work" "an unpublished branch reads as clean"
run_cmd git -C "$R" guard status --branch no-such-branch
assert_ne 0 "$RC" "status of a missing branch fails"
assert_contains "$ERR" "no-such-branch" "the missing branch is not named"

section "status over many trees: per tree one status (and one index listing the first time), HEAD from git's worktree list"
# issue 35 item 5: every tree's HEAD was asked again with a rev-parse of its own, and every
# tree's index listed again though its bytes had not changed (e2e_index_listing).
for n in 1 2 3; do
    git -C "$R" worktree add -q -b many$n "$TEST_ROOT/status/many$n"
done
git -C "$R" worktree add -q --detach "$TEST_ROOT/status/many-det" main
git -C "$R" worktree add -q -b rebasing "$TEST_ROOT/status/rebasing" main
printf 'theirs\n' >"$TEST_ROOT/status/rebasing/a.txt"
git -C "$TEST_ROOT/status/rebasing" commit -qam theirs
git -C "$R" branch -q onto main
git -C "$R" worktree add -q "$TEST_ROOT/status/onto-tree" onto
commit_file "$TEST_ROOT/status/onto-tree" a.txt ours
git -C "$TEST_ROOT/status/rebasing" rebase -q onto >/dev/null 2>&1 || true
[ -d "$(git -C "$TEST_ROOT/status/rebasing" rev-parse --git-path rebase-merge)" ] ||
    [ -d "$(git -C "$TEST_ROOT/status/rebasing" rev-parse --git-path rebase-apply)" ] ||
    fail "setup: the rebase did not stop at its conflict (the test below needs one in progress)"
CALLS=$TEST_ROOT/status/calls
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"%s"\nexec "%s" "$@"\n' "$CALLS" "$REAL_GIT" >"$TEST_ROOT/status/logging-git"
chmod +x "$TEST_ROOT/status/logging-git"
: >"$CALLS"
run_cmd env GIT_GUARD_REAL_GIT="$TEST_ROOT/status/logging-git" git -C "$R" guard status
assert_eq 0 "$RC" "status over many trees exits 0"
TREES=$(git -C "$R" worktree list --porcelain | grep -c '^worktree ')
PER_TREE=$(grep -c -- '--work-tree=' "$CALLS")
# The tree mid-rebase asks for the tip of the branch being rebased (HEAD does not name it).
assert_within $((TREES + 1)) $((2 * TREES + 1)) "$PER_TREE" "git processes run in the trees, the first time (expected one status in each of $TREES, one ls-files in those whose index was not listed before, and the rebased branch's tip): $(grep -- '--work-tree=' "$CALLS" | sed 's/.* -c core.splitIndex=false //' | cut -c1-40 | sort | uniq -c | tr '\n' ';')"
: >"$CALLS"
run_cmd env GIT_GUARD_REAL_GIT="$TEST_ROOT/status/logging-git" git -C "$R" guard status
assert_eq 0 "$RC" "status over many trees exits 0 again"
PER_TREE=$(grep -c -- '--work-tree=' "$CALLS")
OTHER=$(grep -v -- '--work-tree=' "$CALLS" | grep -vc ' status --porcelain=v2 \| ls-files ' || true)
assert_eq $((TREES + 1)) "$PER_TREE" "git processes run in the trees, again with no index changed (expected one status in each of $TREES, and the rebased branch's tip): $(grep -- '--work-tree=' "$CALLS" | sed 's/.* -c core.splitIndex=false //' | cut -c1-40 | sort | uniq -c | tr '\n' ';')"
assert_eq 0 "$(grep -- '--work-tree=' "$CALLS" | grep -c 'HEAD^{commit}\|--show-toplevel')" "a tree's HEAD was asked again with rev-parse: $(grep -- '--work-tree=.*HEAD^{commit}' "$CALLS" | head -1)"
assert_contains "$OUT" "$TEST_ROOT/status/many2 (many2): clean" "a clean tree among many is not named with its branch, or not clean"
assert_contains "$OUT" "$TEST_ROOT/status/many-det (detached): clean" "a detached tree at main reads wrongly"
assert_contains "$OUT" "$TEST_ROOT/status/rebasing (rebasing): has work" "a tree mid-rebase does not name the branch being rebased"
assert_contains "$OUT" "$WT (wt): has work" "the tree with work reads wrongly among many"
run_cmd git -C "$R" guard status --json
assert_jq "$(printf '%s\n' "$OUT" | grep -F "\"path\":\"$TEST_ROOT/status/many-det\"")" \
    ".head == \"$(git -C "$R" rev-parse main)\" and .branch == null" "the detached tree's head or branch is wrong in JSON"
echo "($OTHER other git processes for $TREES trees)"

# ------------------------------------------------------------------------------------
section "save: the report, and its commands work when pasted"
setup save
printf 'edited\n' >"$WT/a.txt"
mkdir -p "$WT/newdir"
printf 'u\n' >"$WT/newdir/u.txt"
BEFORE=$(state_of "$WT")
BASE=$(git -C "$WT" rev-parse HEAD)
REF=refs/heads/stranded/wt/$STAMP
run_cmd env GIT_GUARD_STAMP=$STAMP git -C "$WT" guard save
assert_eq 0 "$RC" "save exits 0 when it saved"
assert_contains "$OUT" "saved $WT to $REF" "the report does not name the branch"
assert_contains "$OUT" "2 files changed, 2 insertions(+), 1 deletion(-)" "the report has no diffstat"
assert_contains "$OUT" "inspect: git show --stat stranded/wt/$STAMP" "no inspect command"
assert_contains "$OUT" "compare: git diff ${BASE:0:12}...stranded/wt/$STAMP" "no compare command"
assert_contains "$OUT" "apply here: git cherry-pick ${BASE:0:12}..stranded/wt/$STAMP" "no cherry-pick command"
assert_contains "$OUT" "put back: git guard restore stranded/wt/$STAMP" "the save's report does not name git guard restore"
assert_contains "$OUT" "show: git guard show stranded/wt/$STAMP" "the save's report does not name git guard show"
assert_eq "" "$ERR" "a successful save wrote to stderr"
AFTER_SAVE=$(state_of "$WT")
assert_eq "$(grep -v stranded/ <<<"$BEFORE")" "$(grep -v stranded/ <<<"$AFTER_SAVE")" \
    "the save changed the tree's files, index, HEAD or branch"
assert_eq "$(git -C "$WT" show "$REF:newdir/u.txt")" "u" "the untracked file was destroyed, not saved"
assert_eq "$(git -C "$WT" show "$REF:a.txt")" "edited" "the tracked edit was destroyed, not saved"
INSPECT=$(sed -n 's/^  inspect: //p' <<<"$OUT")
COMPARE=$(sed -n 's/^  compare: //p' <<<"$OUT")
RESTORE=$(sed -n 's/^  apply here: //p' <<<"$OUT")
run_cmd bash -c "cd '$R' && $INSPECT"
assert_eq 0 "$RC" "the pasted inspect command fails"
assert_contains "$OUT" "newdir/u.txt" "the inspect command does not show the saved file"
run_cmd bash -c "cd '$R' && $COMPARE"
assert_eq 0 "$RC" "the pasted compare command fails"
assert_contains "$OUT" "+edited" "the compare command does not show the saved edit"
git -C "$R" worktree add -q --detach "$TEST_ROOT/save/restore" "$BASE"
run_cmd bash -c "cd '$TEST_ROOT/save/restore' && $RESTORE"
assert_eq 0 "$RC" "the pasted restore command fails: $ERR"
assert_eq "u" "$(cat "$TEST_ROOT/save/restore/newdir/u.txt" 2>&1)" "the restore did not bring the untracked file back"
assert_eq "edited" "$(cat "$TEST_ROOT/save/restore/a.txt" 2>&1)" "the restore did not bring the edit back"

section "save: repeated, clean tree, commits only, --json"
run_cmd git -C "$WT" guard save
assert_eq 0 "$RC" "a repeated save exits 0"
assert_eq 1 "$(stranded_refs "$R" | wc -l)" "a repeated save of unchanged work made another stranded branch"
run_cmd git -C "$R" guard save "$TEST_ROOT/save/restore"
assert_eq 0 "$RC" "a save of a tree holding only a restored commit exits 0"
git -C "$R" worktree add -q -b clean "$TEST_ROOT/save/clean"
run_cmd git -C "$R" guard save "$TEST_ROOT/save/clean"
assert_eq 0 "$RC" "save exits 0 when there was nothing to save"
assert_contains "$OUT" "nothing to save" "the report does not say there was nothing to save"
assert_eq "" "$(stranded_refs "$R" | grep /clean/)" "a clean tree got a stranded branch"
printf 'json\n' >"$WT/json.txt"
printf 'x\n' >"$WT/$(printf 'caf\xe9.txt')"
run_cmd git -C "$WT" guard save --json
assert_eq 0 "$RC" "save --json exits 0"
assert_valid_json "$OUT" "save --json prints a JSON object"
assert_jq "$OUT" 'has("path") and has("branch") and has("head") and has("verdict") and has("changes")
    and has("commits") and has("excluded") and has("ref") and has("commit") and has("diffstat")' \
    "a §10 key is missing from save --json"
assert_jq "$OUT" ".ref | startswith(\"refs/heads/stranded/wt/\")" "ref is not the full save ref"
SAVED_REF=$(printf "%s" "$OUT" | jq -r .ref)
assert_jq "$OUT" ".commit == \"$(git -C "$R" rev-parse "$SAVED_REF" 2>/dev/null)\"" "commit is not what the ref holds"
assert_contains "$OUT" '"caf\u00e9.txt"' "the non-UTF-8 name is not escaped in save --json"
assert_eq "x" "$(git -C "$R" show "$SAVED_REF:$(printf 'caf\xe9.txt')" 2>&1)" "the non-UTF-8 file was not saved"

section "save: a nested repository is saved whole (C1 Stranded-Nested), nothing in it written"
setup nested
printf 'work\n' >"$WT/other.txt"
git -C "$WT" init -q inner
commit_file "$WT/inner" committed.txt "only the nested repository holds this commit"
LOCAL=$(git -C "$WT/inner" rev-parse HEAD)
printf 'nested\n' >"$WT/inner/f.txt"
BEFORE=$(state_of "$WT")
INNER_BEFORE=$(cd "$WT/inner/.git" && find . -type f -print0 | sort -z | xargs -0 sha1sum)
run_cmd git -C "$WT" guard save --json
assert_eq 0 "$RC" "a tree holding a nested repository was not saved: $ERR"
SAVED_REF=$(printf '%s' "$OUT" | jq -r .ref)
NESTED=$(git -C "$R" log -1 --format='%(trailers:key=Stranded-Nested,valueonly)' "$SAVED_REF" | head -1)
assert_eq "inner" "${NESTED#* }" "the save names no nested save for inner"
assert_eq "nested" "$(git -C "$R" show "${NESTED%% *}:f.txt" 2>&1)" "the nested repository's uncommitted file was lost"
assert_eq 0 "$(git -C "$R" merge-base --is-ancestor "$LOCAL" "$SAVED_REF"; echo $?)" \
    "the nested repository's local commit is not reachable from the save: it was lost"
assert_eq "${NESTED%% *}" "$(git -C "$R" rev-parse "$SAVED_REF:inner")" "the save's tree records no gitlink to the nested save"
assert_eq "work" "$(git -C "$R" show "$SAVED_REF:other.txt")" "the tree's own untracked file was lost"
assert_eq "$BEFORE" "$(state_of "$WT" | grep -v '^refs/heads/stranded/')" "the save wrote into the tree"
assert_eq "$INNER_BEFORE" "$(cd "$WT/inner/.git" && find . -type f -print0 | sort -z | xargs -0 sha1sum)" \
    "the save wrote into the nested repository"

section "save: a nested repository whose index git cannot read is saved from its files (git's own t7600)"
setup nested-broken
git -C "$WT" init -q broken
printf 'in the broken repository\n' >"$WT/broken/kept.txt"
: >"$WT/broken/.git/index"
run_cmd git -C "$WT" guard save --json
assert_eq 0 "$RC" "a nested repository with an empty index file made the save fail: $ERR"
SAVED_REF=$(printf '%s' "$OUT" | jq -r .ref)
NESTED=$(git -C "$R" log -1 --format='%(trailers:key=Stranded-Nested,valueonly)' "$SAVED_REF" | head -1)
assert_eq "in the broken repository" "$(git -C "$R" show "${NESTED%% *}:kept.txt" 2>&1)" \
    "the file of the nested repository with an unreadable index was lost"
assert_eq 0 "$(stat -c %s "$WT/broken/.git/index")" "the save wrote the nested repository's index"

section "usage errors exit 2"
run_cmd git -C "$R" guard save --bogus
assert_eq 2 "$RC" "an unknown option does not exit 2"
run_cmd git -C "$R" guard status --branch
assert_eq 2 "$RC" "a missing option value does not exit 2"
run_cmd git -C "$R" guard save "$WT" "$R"
assert_eq 2 "$RC" "two paths to save do not exit 2"
run_cmd git -C "$R" guard no-such-command
assert_eq 2 "$RC" "an unknown command does not exit 2"

# ------------------------------------------------------------------------------------
section "bad input: not in a repository, missing path, a subdirectory"
mkdir -p "$TEST_ROOT/plain"
printf 'x\n' >"$TEST_ROOT/plain/f"
for cmd in "save" "status" "save --json"; do
    # shellcheck disable=SC2086
    run_cmd bash -c "cd '$TEST_ROOT/plain' && git-guard $cmd"
    assert_ne 0 "$RC" "'git-guard $cmd' outside a repository succeeded"
    assert_contains "$ERR" "not in a git repository" "'git-guard $cmd' outside a repository: no clear message"
done
assert_no_file "$TEST_ROOT/plain/.git" "a repository was created"
setup bad
printf 'work\n' >"$WT/dir/u.txt"
BEFORE=$(state_of "$WT")
MAIN_BEFORE=$(state_of "$R")
run_cmd git -C "$R" guard save "$TEST_ROOT/bad/missing"
assert_ne 0 "$RC" "a save of a missing path succeeded"
assert_contains "$ERR" "$TEST_ROOT/bad/missing" "the refusal does not name the missing path"
assert_no_file "$TEST_ROOT/bad/missing" "the missing path was created"
run_cmd git -C "$R" guard save "$WT/dir"
assert_ne 0 "$RC" "a subdirectory was taken for the tree and saved"
assert_contains "$ERR" "inside the worktree $WT" "the refusal does not name the enclosing tree"
run_cmd git -C "$WT/dir" guard save
assert_ne 0 "$RC" "a save from inside a subdirectory took it for the tree"
assert_contains "$ERR" "inside the worktree $WT" "the refusal does not name the enclosing tree"
run_cmd git -C "$R" guard status "$WT/dir"
assert_ne 0 "$RC" "status took a subdirectory for the tree"
assert_eq "$BEFORE" "$(state_of "$WT")" "a refused save wrote into the tree or its refs"
assert_eq "$MAIN_BEFORE" "$(state_of "$R")" "a refused save wrote into the main tree"

section "formats: SHA-256 is saved like SHA-1; reftable on a git without it is a clear refusal"
# Directory names that do not give the answer away: the message must.
if git init -q --ref-format=reftable "$TEST_ROOT/probe-reftable" 2>/dev/null; then
    echo "  skip reftable on a git without it: $(git --version) has reftable (tests/e2e/formats.sh guards it)"
else
git init -q "$TEST_ROOT/kind-a"
printf 'work\n' >"$TEST_ROOT/kind-a/f.txt"
git -C "$TEST_ROOT/kind-a" config core.repositoryformatversion 1
git -C "$TEST_ROOT/kind-a" config extensions.refStorage reftable
before=$(cd "$TEST_ROOT/kind-a" && find . -printf '%p %s %T@\n' | sort)
for cmd in "save" "save ." "status"; do
    # shellcheck disable=SC2086
    run_cmd bash -c "cd '$TEST_ROOT/kind-a' && git guard $cmd"
    assert_ne 0 "$RC" "'git guard $cmd' in a repository this git cannot read succeeded"
    assert_contains "$ERR" "refstorage" "'git guard $cmd' in a reftable repository: no clear message"
done
assert_eq "$before" "$(cd "$TEST_ROOT/kind-a" && find . -printf '%p %s %T@\n' | sort)" "something was written into the reftable repository"
fi
git init -q --object-format=sha256 "$TEST_ROOT/kind-b"
commit_file "$TEST_ROOT/kind-b" f.txt committed
printf 'work\n' >"$TEST_ROOT/kind-b/f.txt"
run_cmd git -C "$TEST_ROOT/kind-b" guard save
assert_eq 0 "$RC" "a SHA-256 repository's work was not saved: $ERR"
assert_eq work "$(git -C "$TEST_ROOT/kind-b" show "$(stranded_refs "$TEST_ROOT/kind-b"):f.txt" 2>&1)" \
    "the edit in a SHA-256 repository was lost"

# ------------------------------------------------------------------------------------
section "a full disk: a clear refusal, the tree untouched"
# full_disk_save LABEL FREE_KB: fills the small file system but FREE_KB, then saves.
full_disk_save() {
    local label=$1 free_kb=$2 repo=$MNT/$1
    new_repo "$repo"
    git -C "$repo" guard status >/dev/null # the log exists before the disk fills
    printf 'edited\n' >"$repo/README"
    head -c 3000000 /dev/urandom >"$repo/big.bin"
    dd if=/dev/zero of="$MNT/filler" bs=4096 >/dev/null 2>&1
    truncate -s "-${free_kb}K" "$MNT/filler"
    local before
    before=$(state_of "$repo")
    run_cmd git -C "$repo" guard save
    assert_eq 1 "$RC" "$label: a save on a full disk does not exit 1 (refused)"
    assert_contains "$ERR" "No space left on device" "$label: the refusal does not say the disk is full"
    assert_contains "$ERR" "git-guard: refused:" "$label: a full disk is not reported as a refusal"
    assert_contains "$ERR" "untracked: big.bin" "$label: the refusal does not say what the tree holds"
    assert_eq "$before" "$(state_of "$repo")" "$label: a save on a full disk changed the tree, its index or refs"
    assert_eq "" "$(ls -A "$repo/.git/guard/tmp" 2>/dev/null)" "$label: a private index was left behind"
    # git itself may leave its half-written tmp_obj_* on ENOSPC; the next save sweeps those
    # once they are an hour old (no git writes one object that long).
    assert_eq "" "$(find "$repo/.git/objects" -name 'tmp_*' ! -name 'tmp_obj_*')" "$label: a half-written object was left behind"
    rm -f "$MNT/filler"
    run_cmd git -C "$repo" guard save
    assert_eq 0 "$RC" "$label: the save still fails once space was freed: $ERR"
    assert_eq 1 "$(stranded_refs "$repo" | wc -l)" "$label: the save after space was freed made no branch"
    assert_eq "$(sha1sum <"$repo/big.bin")" "$(git -C "$repo" show "$(stranded_refs "$repo"):big.bin" | sha1sum)" \
        "$label: the big file was not saved intact once space was freed"
}
MNT=$TEST_ROOT/small
if [ "$(id -u)" -ne 0 ]; then
    echo "  skip: not root, cannot mount a small tmpfs to fill"
elif ! mkdir -p "$MNT" || ! mount -t tmpfs -o size=16m tmpfs "$MNT" 2>/dev/null; then
    echo "  skip: mount -t tmpfs is not permitted here"
else
    trap 'umount "$MNT" 2>/dev/null; _guard_on_exit' EXIT
    full_disk_save no-room-at-all 0
    full_disk_save room-for-the-index-only 256
    umount "$MNT"
    trap _guard_on_exit EXIT
fi

finish
