#!/usr/bin/env bash
# Saves are private by default (issue 19, DESIGN §13). After `git guard install`, what the
# repository serves to a fetch or a clone, over file:// and over git daemon on 127.0.0.1,
# with protocol v0 and v2, lists no save and gives none out: not by name, not in a clone
# of everything, and (v0) not by the saved commit's id. Uninstall serves them again as git
# did before; doctor says which saves are served.
#
# git's protocol v2 serves any object whose id the client names (upstream's advice: keep
# private data in a separate repository), so over v2 an id must be known to be fetched;
# the section "protocol v2 and a known id" records what happens.
source "$(dirname "$0")/lib.sh"
GUARD=$GUARD_BIN_DIR/git-guard

if ! git_real daemon --help >/dev/null 2>&1 && [ ! -x "$(git_real --exec-path)/git-daemon" ]; then
    echo "SKIP: this git has no git daemon"
    exit 125
fi
if ! command -v python3 >/dev/null; then
    echo "SKIP: python3 is needed to find a free port"
    exit 125
fi

R=$TEST_ROOT/repo
new_repo "$R"
commit_file "$R" a.txt "a"
run_cmd "$GUARD" -C "$R" install --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "install succeeds ($ERR)"
shim_on "$TEST_ROOT/shim"

# An in-place save of a secret, and a removal save of a branch's unique commit.
printf 'API_KEY=hunter2\n' >"$R/a.txt"
run_cmd git -C "$R" reset -q --hard
SAVE=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/stranded/ | head -1)
assert_ne "" "$SAVE" "reset --hard saved nothing: the test cannot go on"
SECRET=$(git_real -C "$R" rev-parse "$SAVE")
git_real -C "$R" switch -q -c topic
commit_file "$R" t.txt "unpublished"
git_real -C "$R" switch -q main
run_cmd git -C "$R" branch -D topic
BSAVE=$(git_real -C "$R" for-each-ref --format='%(refname)' refs/heads/stranded/ | head -1)
assert_ne "" "$BSAVE" "branch -D saved nothing: the test cannot go on"
BTIP=$(git_real -C "$R" rev-parse "$BSAVE")
shim_off

# served NAME URL: what a fetcher of URL gets, over both protocol versions.
served() {
    local name=$1 url=$2 v
    for v in 0 2; do
        section "$name, protocol v$v: no save is listed or given out"
        run_cmd git_real -c protocol.version=$v ls-remote "$url"
        assert_eq 0 "$RC" "$name v$v: ls-remote works ($ERR)"
        assert_contains "$OUT" "refs/heads/main" "$name v$v: ls-remote lists the branches"
        assert_not_contains "$OUT" "stranded" "$name v$v: ls-remote lists a save to whoever fetches"
        rm -rf "$TEST_ROOT/copy"
        git_real -c protocol.version=$v clone -q --mirror "$url" "$TEST_ROOT/copy"
        assert_eq "" "$(git_real -C "$TEST_ROOT/copy" for-each-ref refs/stranded refs/heads/stranded)" \
            "$name v$v: a mirror clone got the saves"
        run_cmd git_real -C "$TEST_ROOT/copy" cat-file -e "$SECRET"
        assert_ne 0 "$RC" "$name v$v: a mirror clone holds the saved secret"
        run_cmd git_real -C "$TEST_ROOT/copy" -c protocol.version=$v fetch "$url" "$SAVE:refs/got"
        assert_ne 0 "$RC" "$name v$v: the in-place save is given out by its name"
        run_cmd git_real -C "$TEST_ROOT/copy" -c protocol.version=$v fetch "$url" "$BSAVE:refs/got"
        assert_ne 0 "$RC" "$name v$v: the removal save is given out by its name"
    done
    section "$name, protocol v0: not by the saved commit's id either"
    run_cmd git_real -C "$TEST_ROOT/copy" -c protocol.version=0 fetch "$url" "$SECRET"
    assert_ne 0 "$RC" "$name v0: the saved secret is given out by its commit id"
    run_cmd git_real -C "$TEST_ROOT/copy" cat-file -e "$SECRET"
    assert_ne 0 "$RC" "$name v0: the saved secret arrived in the fetching repository"
    run_cmd git_real -C "$TEST_ROOT/copy" -c protocol.version=0 fetch "$url" "$BTIP"
    assert_ne 0 "$RC" "$name v0: the removal save's commit is given out by its id"
    section "$name, protocol v2 and a known id"
    run_cmd git_real -C "$TEST_ROOT/copy" -c protocol.version=2 fetch "$url" "$SECRET"
    printf '  note: git %s serves a known id over v2: exit %s (git serves any object by id over v2)\n' \
        "$(git_real --version | cut -d' ' -f3)" "$RC"
}

served "file://" "file://$R"

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# `git daemon` runs git-daemon as its child: killing git alone left the daemon serving
# after the suite, so the daemon's own pid is taken from --pid-file.
git_real daemon --listen=127.0.0.1 --port="$PORT" --base-path="$TEST_ROOT" --export-all --reuseaddr \
    --pid-file="$TEST_ROOT/daemon.pid" "$TEST_ROOT" >"$TEST_ROOT/daemon.log" 2>&1 &
DAEMON=$!
stop_daemon() {
    local rc=$?
    kill "$(cat "$TEST_ROOT/daemon.pid" 2>/dev/null)" "$DAEMON" 2>/dev/null
    (exit "$rc")
    _guard_on_exit
}
trap stop_daemon EXIT
for _ in $(seq 1 100); do
    git_real ls-remote "git://127.0.0.1:$PORT/repo" >/dev/null 2>&1 && break
    sleep 0.1
done
served "git daemon" "git://127.0.0.1:$PORT/repo"
kill "$(cat "$TEST_ROOT/daemon.pid")" "$DAEMON" 2>/dev/null
wait "$DAEMON" 2>/dev/null

section "doctor says which saves are served"
run_cmd "$GUARD" -C "$R" doctor
assert_contains "$OUT" "in-place saves (refs/stranded/) are hidden from fetches" "doctor does not say the in-place saves are private"
assert_contains "$OUT" "removal saves (refs/heads/stranded/) are hidden" "doctor does not say whether removal saves are served"

section "uninstall serves them as git did before"
run_cmd "$GUARD" -C "$R" uninstall
assert_eq 0 "$RC" "uninstall succeeds ($ERR)"
assert_eq "" "$(git_real -C "$R" config --get-all uploadpack.hideRefs)" "uninstall left uploadpack.hideRefs behind"
assert_contains "$(git_real ls-remote "file://$R")" "$SAVE" "after uninstall the repository still hides what install hid"

section "a hideRefs of the user's own is kept, and a guarded repository still takes pushes of saves"
git_real -C "$R" config uploadpack.hideRefs refs/private
run_cmd "$GUARD" -C "$R" install --shim-dir "$TEST_ROOT/shim"
assert_eq 0 "$RC" "install over an existing hideRefs succeeds ($ERR)"
assert_eq "refs/private refs/stranded refs/heads/stranded" "$(git_real -C "$R" config --get-all uploadpack.hideRefs | tr '\n' ' ' | sed 's/ $//')" \
    "install replaced the user's own uploadpack.hideRefs"
new_repo "$TEST_ROOT/other"
git_real -C "$TEST_ROOT/other" update-ref refs/heads/stranded/pushed/20240101T000000.000Z HEAD
run_cmd git_real -C "$TEST_ROOT/other" push "$R" refs/heads/stranded/pushed/20240101T000000.000Z
assert_eq 0 "$RC" "a guarded repository refuses a backup push of a save ($ERR)"
git_real -C "$R" config core.editor true # changed after install: uninstall goes key by key
run_cmd "$GUARD" -C "$R" uninstall
assert_contains "$OUT" "key by key" "uninstall did not take the key-by-key path this check is for"
assert_eq "refs/private" "$(git_real -C "$R" config --get-all uploadpack.hideRefs)" "uninstall removed the user's own uploadpack.hideRefs, or left its own"

finish
