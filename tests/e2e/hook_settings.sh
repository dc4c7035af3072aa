#!/usr/bin/env bash
# One reader per fact (issue 16 item 8, DESIGN §0.5, §7): the hook reads guard.* through
# `git config` typed as git reads it (a valueless `[guard] enabled` is true), holds each
# branch's lock across its save, and waits for a held lock no longer than
# guard.lockTimeout. The locks are exercised with real processes (an fcntl lock held by
# python3, as Boost's file_lock takes it).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GIT=$REAL_GIT
command -v python3 >/dev/null || { echo "hook_settings.sh: python3 is needed to hold a lock from another process" >&2; exit 125; }

# unpushed REPO NAME: branch NAME holding one commit found nowhere else.
unpushed() {
    local base tree blob index=$TEST_ROOT/.idx
    rm -f "$index"
    GIT_INDEX_FILE=$index "$GIT" -C "$1" read-tree main
    blob=$(printf 'work on %s\n' "$2" | "$GIT" -C "$1" hash-object -w --stdin)
    GIT_INDEX_FILE=$index "$GIT" -C "$1" update-index --add --cacheinfo "100644,$blob,$2.txt"
    tree=$(GIT_INDEX_FILE=$index "$GIT" -C "$1" write-tree)
    rm -f "$index"
    "$GIT" -C "$1" branch "$2" "$("$GIT" -C "$1" commit-tree "$tree" -p main -m "work on $2")"
}
saves_of() {
    "$GIT" -C "$1" for-each-ref --format='%(refname)' "refs/heads/stranded/$2/" | grep -c . || true
}

# lock_file REPO KEY: the file PathLock takes for KEY (FNV-1a 64 of the key, guard/base/lock.cpp).
lock_file() {
    python3 - "$1/.git/guard/locks" "$2" <<'EOF'
import sys
h = 14695981039346656037
for c in sys.argv[2].encode():
    h = ((h ^ c) * 1099511628211) % (1 << 64)
print("%s/%016x.lock" % (sys.argv[1], h))
EOF
}

make_clone repo
REPO=$TEST_ROOT/repo
install_hook "$REPO"

section "a valueless '[guard] enabled' (git reads it as true) guards the hook too"
printf '[guard]\n\tenabled\n' >>"$REPO/.git/config"
assert_eq true "$("$GIT" -C "$REPO" config --bool guard.enabled)" "git reads the valueless key as true"
unpushed "$REPO" bare-key
tip=$("$GIT" -C "$REPO" rev-parse bare-key)
run_cmd "$GIT" -C "$REPO" branch -D bare-key
assert_eq 0 "$RC" "branch -D succeeds ($ERR)"
assert_eq 1 "$(saves_of "$REPO" bare-key)" "branch -D under a valueless guard.enabled destroyed the unpushed commit unsaved"
"$GIT" -C "$REPO" config guard.enabled yes
unpushed "$REPO" yes-key
run_cmd "$GIT" -C "$REPO" branch -D yes-key
assert_eq 1 "$(saves_of "$REPO" yes-key)" "guard.enabled=yes (true to git) did not guard branch -D"
"$GIT" -C "$REPO" config guard.enabled off
unpushed "$REPO" off-key
run_cmd "$GIT" -C "$REPO" branch -D off-key
assert_eq "0:0" "$RC:$(saves_of "$REPO" off-key)" "guard.enabled=off (false to git) still saved"
"$GIT" -C "$REPO" config guard.enabled true

# hold FILE SECONDS: a separate process holding FILE's fcntl lock for SECONDS; prints its
# pid once the lock is held.
hold() {
    mkdir -p "$(dirname "$1")"
    python3 -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
fcntl.lockf(fd, fcntl.LOCK_EX)
print(os.getpid(), flush=True)
time.sleep(float(sys.argv[2]))
' "$1" "$2" >"$TEST_ROOT/holder.pid" &
    for _ in $(seq 100); do [ -s "$TEST_ROOT/holder.pid" ] && break; sleep 0.05; done
}

section "guard.lockTimeout bounds the wait for a branch's lock"
unpushed "$REPO" locked
tip=$("$GIT" -C "$REPO" rev-parse locked)
"$GIT" -C "$REPO" config guard.lockTimeout 1
: >"$TEST_ROOT/holder.pid"
hold "$(lock_file "$REPO" refs/heads/locked)" 30
run_cmd "$GIT" -C "$REPO" branch -D locked
holder=$(<"$TEST_ROOT/holder.pid")
kill "$holder" 2>/dev/null
wait 2>/dev/null
assert_ne 0 "$RC" "branch -D went ahead while another process held the branch's lock past guard.lockTimeout"
assert_eq "$tip" "$("$GIT" -C "$REPO" rev-parse -q --verify refs/heads/locked)" "the branch whose lock was held was deleted"
assert_contains "$ERR" "guard.lockTimeout" "the refusal says the lock timed out and how to wait longer"
assert_contains "$ERR" "pid $holder" "the refusal names the holder"
run_cmd "$GIT" -C "$REPO" branch -D locked
assert_eq "0:1" "$RC:$(saves_of "$REPO" locked)" "once the lock is free, branch -D saves and deletes"
"$GIT" -C "$REPO" config --unset guard.lockTimeout

section "the hook holds each branch's lock across its save"
# Many branches in one transaction keep the hook saving for a while; a watcher in another
# process waits for the lock of the first one and, the moment it gets it, checks that the
# save already exists.
names=()
for i in $(seq 1 150); do unpushed "$REPO" "held$i"; names+=("held$i"); done
lock=$(lock_file "$REPO" refs/heads/held1)
python3 - "$lock" "$REPO/.git" "$TEST_ROOT/watch.out" <<'EOF' &
import fcntl, glob, os, sys, time
lock, gitdir, out = sys.argv[1:4]
deadline = time.time() + 120
os.makedirs(os.path.dirname(lock), exist_ok=True)
fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
seen_held = False
while time.time() < deadline and not seen_held:
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.lockf(fd, fcntl.LOCK_UN)
        time.sleep(0.001)
    except OSError:
        seen_held = True
if not seen_held:
    open(out, "w").write("never held\n")
    sys.exit(0)
fcntl.lockf(fd, fcntl.LOCK_EX)
packed = gitdir + "/packed-refs"
saved = glob.glob(gitdir + "/refs/heads/stranded/held1/*") or \
    (os.path.exists(packed) and " refs/heads/stranded/held1/" in open(packed).read())
open(out, "w").write("saved\n" if saved else "released before the save\n")
EOF
watcher=$!
sleep 0.3
run_cmd "$GIT" -C "$REPO" branch -D "${names[@]}"
wait "$watcher"
assert_eq 0 "$RC" "branch -D of 150 branches succeeds ($ERR)"
assert_eq 1 "$(saves_of "$REPO" held1)" "held1's unpushed commit was lost, not saved"
assert_eq "saved" "$(cat "$TEST_ROOT/watch.out" 2>/dev/null)" \
    "another process got held1's lock before its save was written (or never saw it held)"

finish
