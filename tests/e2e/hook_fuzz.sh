#!/usr/bin/env bash
# Fuzzed hook input: 100,000 lines of garbage, a last line without a newline, NUL bytes,
# CRLF, ids of the wrong length. Neither the front end nor the full binary may crash or
# hang; what they say is clear (never an empty reason); and a real deletion mixed into
# the garbage is still guarded: its tip is saved.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GIT=$REAL_GIT
Z40=0000000000000000000000000000000000000000

hooked_clone fuzz
N=0

# victim: a new branch with one unpushed commit, named $name, at $tip.
victim() {
    N=$((N + 1))
    name=victim$N
    local blob tree
    blob=$(echo "victim $N's work" | "$GIT" -C "$REPO" hash-object -w --stdin)
    tree=$(printf '100644 blob %s\tvictim%d.txt\n' "$blob" "$N" | "$GIT" -C "$REPO" mktree)
    tip=$("$GIT" -C "$REPO" commit-tree "$tree" -p main -m "fuzz victim $N")
    "$GIT" -C "$REPO" -c core.hooksPath=/dev/null branch "victim$N" "$tip"
}

# garbage FILE MODE DELETION: 100,000 lines of MODE garbage with DELETION in the middle.
garbage() {
    python3 - "$1" "$2" "$3" <<'EOF'
import random, sys
path, mode, deletion = sys.argv[1], sys.argv[2], sys.argv[3].encode()
rng = random.Random(8)
hexd = b"0123456789abcdef"
lines = []
for i in range(100000):
    kind = rng.randrange(6) if mode == "mixed" else {"nul": 1, "crlf": 2, "ids": 3}[mode]
    if kind == 0:
        line = bytes(rng.randrange(1, 256) for _ in range(rng.randrange(0, 120))).replace(b"\n", b"")
    elif kind == 1:
        line = b"%s\0%s refs/heads/n\0ul%d" % (b"0" * 40, b"0" * 40, i)
    elif kind == 2:
        line = b"%s %s refs/heads/crlf%d\r" % (b"0" * 40, b"0" * 40, i)
    elif kind == 3:
        n = rng.choice([0, 1, 39, 41, 63, 65, 128])
        line = b"%s %s refs/heads/ids%d" % (bytes(rng.choice(hexd) for _ in range(n)), b"0" * n, i)
    elif kind == 4:
        line = b"%s %s refs/tags/t%d" % (b"0" * 40, bytes(rng.choice(hexd) for _ in range(40)), i)
    else:
        line = b" ".join(b"refs/heads/" * rng.randrange(3) for _ in range(rng.randrange(5)))
    lines.append(line)
lines.insert(50000, deletion)
with open(path, "wb") as f:
    f.write(b"\n".join(lines) + b"\n")
EOF
}

# check WHAT FILE BRANCH TIP COMMAND...: runs COMMAND on FILE (bounded), then checks.
check() {
    local what=$1 file=$2 branch=$3 tip=$4
    shift 4
    local start rc
    start=$(date +%s)
    (cd "$REPO" && timeout 120 "$@" <"$file" >"$TEST_ROOT/fuzz.out" 2>"$TEST_ROOT/fuzz.err") && rc=0 || rc=$?
    printf '  info %s: exit %d after %d s\n' "$what" "$rc" $(($(date +%s) - start))
    assert_ne 124 "$rc" "$what: it finished (no hang)"
    [ "$rc" -lt 128 ] && pass "$what: no crash (exit $rc)" || fail "$what: killed by signal $((rc - 128))"
    if [ "$rc" -ne 0 ]; then
        [ -s "$TEST_ROOT/fuzz.err" ] && pass "$what: the refusal says why" || fail "$what: refused with an empty reason"
    fi
    assert_ne "" "$(head -c 300 "$TEST_ROOT/fuzz.err")" "$what: it says what it ignored"
    assert_eq 1 "$(grep -c 'git does not write' "$TEST_ROOT/fuzz.err")" \
        "$what: the ignored lines are named once on git's stderr (front end and git-guard each named them)"
    saved=$("$GIT" -C "$REPO" for-each-ref --format='%(objectname)' "refs/heads/stranded/$branch/")
    assert_eq "$tip" "$saved" "$what: the real deletion of $branch hidden in the garbage was saved (its commit would be lost)"
}

for mode in mixed nul crlf ids; do
    section "100,000 lines of $mode garbage around one real deletion"
    victim
    garbage "$TEST_ROOT/$mode.in" "$mode" "$tip $Z40 refs/heads/$name"
    check "front end, $mode" "$TEST_ROOT/$mode.in" "$name" "$tip" .git/hooks/reference-transaction prepared
    victim
    garbage "$TEST_ROOT/$mode.in" "$mode" "$Z40 $Z40 refs/heads/$name"
    check "git-guard, $mode" "$TEST_ROOT/$mode.in" "$name" "$tip" \
        "$GUARD_BIN_DIR/git-guard" hook reference-transaction prepared
done

section "a real deletion on a last line without a newline"
victim
{
    head -c 2000000 "$TEST_ROOT/mixed.in"
    printf '\n%s %s refs/heads/%s' "$tip" "$Z40" "$name"
} >"$TEST_ROOT/tail.in"
check "front end, no final newline" "$TEST_ROOT/tail.in" "$name" "$tip" .git/hooks/reference-transaction prepared

section "garbage alone"
head -c 1000000 /dev/urandom >"$TEST_ROOT/random.in"
(cd "$REPO" && timeout 60 .git/hooks/reference-transaction prepared <"$TEST_ROOT/random.in" 2>"$TEST_ROOT/random.err") && rc=0 || rc=$?
assert_eq 0 "$rc" "1 MB of random bytes: exit 0 (no deletion git could have written)"
(cd "$REPO" && timeout 60 .git/hooks/reference-transaction committed <"$TEST_ROOT/random.in") && rc=0 || rc=$?
assert_eq 0 "$rc" "random bytes in state committed: exit 0"

finish
