#!/usr/bin/env bash
# The watcher runs nothing of the repository's (DESIGN §15, issue 34): a repository whose
# config (writable by a sandboxed agent) names a core.fsmonitor command, a clean filter, a
# textconv, a hook and guard.onSave, each touching a marker file. After an edit, two
# snapshot intervals and a libgit2 branch delete, the snapshot and the save were made and
# no marker exists. guard.onSave from the user's global config still runs.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/backstop_fixtures.bash"

if ! "$PYTHON" -c 'import pygit2' 2>/dev/null; then
    skip_suite "pygit2 is not installed (Debian: python3-pygit2): the libgit2 branch delete cannot be driven"
fi

git_real config --global guard.snapshotInterval 1
guarded_clone repo
MARKS=$TEST_ROOT/marks
mkdir -p "$MARKS"
# marker NAME: a program that leaves $MARKS/NAME and passes its input through.
marker() {
    printf '#!/bin/sh\ntouch "%s/%s"\nexec cat "$@"\n' "$MARKS" "$1" >"$TEST_ROOT/$1.sh"
    chmod +x "$TEST_ROOT/$1.sh"
    printf '%s\n' "$TEST_ROOT/$1.sh"
}
printf '* filter=mark diff=mark\n' >"$REPO/.gitattributes"
git_real -C "$REPO" add .gitattributes && git_real -C "$REPO" commit -q -m attributes
TIP=$(unpushed "$REPO" agent-side)
wait_known "$REPO" "$TIP"

# Armed only now: nothing the set-up ran leaves a mark.
git_real -C "$REPO" config core.fsmonitor "$(marker fsmonitor)"
git_real -C "$REPO" config filter.mark.clean "$(marker clean-filter)"
git_real -C "$REPO" config filter.mark.smudge "$(marker smudge-filter)"
git_real -C "$REPO" config diff.mark.textconv "$(marker textconv)"
git_real -C "$REPO" config guard.onSave "$(marker repo-onsave)"
marker post-index-change >/dev/null
cp "$TEST_ROOT/post-index-change.sh" "$REPO/.git/hooks/post-index-change"
git_real config --global guard.onSave "$(marker global-onsave)"

section "an edit, two snapshot intervals: a snapshot, and nothing of the repository's ran"
snapshots_of_repo() { # how many snapshots the journal records
    local n
    n=$(grep -c '"kind":"save".*"reason":"snapshot"' "$REPO/.git/guard/journal.jsonl" 2>/dev/null)
    echo "${n:-0}"
}
more_snapshots_than() { [ "$(snapshots_of_repo)" -gt "$1" ]; }
BEFORE=$(snapshots_of_repo)
printf 'edited by the agent\n' >"$REPO/a.txt"
printf 'new\n' >"$REPO/new.txt"
poll 60 more_snapshots_than "$BEFORE" || fail "the watcher took no snapshot of the edited tree"
sleep 2.5 # two more snapshot intervals
printf 'edited again\n' >"$REPO/a.txt"
poll 60 more_snapshots_than "$((BEFORE + 1))" || fail "the watcher took no second snapshot"
REF=$(git_real -C "$REPO" for-each-ref --format='%(refname)' refs/stranded/ | head -n 1)
assert_ne "" "$REF" "the snapshots left no ref under refs/stranded/"

section "a libgit2 branch delete: the watcher's save, and still nothing of the repository's ran"
"$PYTHON" -c "import pygit2, sys; pygit2.Repository(sys.argv[1]).branches.delete('agent-side')" "$REPO"
assert_no_ref "$REPO" refs/heads/agent-side "pygit2 did not delete the branch"
poll 30 saved_at "$REPO" agent-side "$TIP" || fail "the watcher did not save the deleted branch's commit $TIP"
poll 10 test -e "$MARKS/global-onsave" ||
    fail "guard.onSave from the user's global config did not run for the watcher's save"

for mark in fsmonitor clean-filter smudge-filter textconv repo-onsave post-index-change; do
    assert_no_file "$MARKS/$mark" "the watcher ran the repository's $mark command (as the user, outside any sandbox)"
done

finish
