#!/usr/bin/env bash
# Saves at scale (issue 20): the same guarded repository with 0, N saves of each kind kept
# as git-guard keeps them now (folded onto chains beyond guard.keepBranches) and the same
# saves as loose refs (as earlier versions kept them), side by side in one run.
#
#   bench/scale.sh [--bin DIR] [--sizes "0 1000"] [--runs N]     (default: 0 and 1000, 3 runs)
#   bench/scale.sh --sizes "0 1000 10000"                         (the issue's full table; minutes)
#
# The saves are synthetic, of exactly the product's shape: commits-only saves (a unique
# commit on main, as a branch deletion's save points at the branch tip) under
# refs/heads/stranded/<name>/<stamp> and refs/stranded/<name>/<stamp>, written with hooks
# off; "folded" then runs `git guard fold`, the migration an earlier version's repository
# gets on first use. Times are medians in ms; the ratio is against the same repository with
# no saves. Not run by ctest.
set -euo pipefail

BIN=${GUARD_BIN_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build/bin}
SIZES="0 1000"
RUNS=3
while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    *) echo "usage: $0 [--bin DIR] [--sizes \"0 1000 10000\"] [--runs N]" >&2; exit 2 ;;
    esac
done
GIT=$(command -v git)
GUARD=$BIN/git-guard
[ -x "$GUARD" ] || { echo "no git-guard in $BIN (build first, or --bin DIR)" >&2; exit 2; }

W=$(mktemp -d "${TMPDIR:-/tmp}/guard-scale.XXXXXX")
trap 'rm -rf "$W"' EXIT
export HOME=$W/home GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
mkdir -p "$HOME" "$W/shim"
ln -s "$BIN/git-guard-shim" "$W/shim/git"
git config --global user.name bench && git config --global user.email bench@localhost
git config --global init.defaultBranch main && git config --global gc.auto 0

ms() { # ms COMMAND...: median wall time of RUNS runs, in ms
    local t=()
    for _ in $(seq "$RUNS"); do
        local s=$(date +%s%N)
        "$@" >/dev/null 2>&1 || true
        t+=($((($(date +%s%N) - s) / 1000000)))
    done
    printf '%s\n' "${t[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}

# make_repo DIR N: a guarded clone of $W/origin with N saves of each kind as loose refs.
make_repo() {
    "$GIT" clone -q "$W/origin" "$1"
    "$GIT" -C "$1" config guard.enabled true
    sed "s|@GUARD_HOOK_FRONT@|$BIN/git-guard-hook|" "$(dirname "$0")/../hooks/reference-transaction" \
        >"$1/.git/hooks/reference-transaction"
    chmod +x "$1/.git/hooks/reference-transaction"
    local tree; tree=$("$GIT" -C "$1" rev-parse 'HEAD^{tree}')
    python3 - "$1" "$2" "$tree" <<'EOF' | "$GIT" -C "$1" fast-import --quiet
import sys
repo, n, tree = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for i in range(n):
    for kind, ref in (("branch", "refs/heads/stranded/b%d/20240101T%06d.000Z" % (i % 50, i)),
                      ("in-place", "refs/stranded/t%d/20240101T%06d.000Z" % (i % 50, i))):
        msg = ("%s save %d\n" % (kind, i)).encode()
        sys.stdout.buffer.write(b"commit %s\ncommitter g <g@l> %d +0000\ndata %d\n%s\nfrom refs/heads/main^0\n"
                                % (ref.encode(), 1700000000 + i, len(msg), msg))
EOF
}

measure() { # measure DIR: one line of figures
    local d=$1 o=$W/origin
    "$GIT" -C "$o" commit -q --allow-empty -m more 2>/dev/null || (cd "$W/seed" && "$GIT" commit -q --allow-empty -m more && "$GIT" push -q "$o" main)
    local fetch push logall lines bd wr rh list status gc
    fetch=$(ms "$GIT" -C "$d" fetch -q origin)
    "$GIT" -C "$d" commit -q --allow-empty -m local
    push=$(ms "$GIT" -C "$d" push -q origin HEAD:refs/heads/bench-$RANDOM)
    logall=$(ms "$GIT" -C "$d" log --all --oneline)
    lines=$("$GIT" -C "$d" branch | wc -l)
    bd=$(ms sh -c "'$GIT' -C '$d' branch -q gone HEAD~0 && '$GIT' -C '$d' branch -q -D gone")
    wr=$(ms sh -c "PATH=$W/shim:\$PATH; git -C '$d' worktree add -q '$d.wt' 2>/dev/null && echo x >'$d.wt/new' && git -C '$d' worktree remove --force '$d.wt'")
    rh=$(ms sh -c "PATH=$W/shim:\$PATH; echo e >>'$d/README' && git -C '$d' reset -q --hard")
    list=$(ms "$GUARD" -C "$d" list --all)
    status=$(ms "$GUARD" -C "$d" status)
    gc=$(ms "$GIT" -C "$d" gc -q)
    echo "$fetch $push $logall $lines $bd $wr $rh $list $status $gc"
}

mkdir -p "$W/seed" && cd "$W/seed" && "$GIT" init -q && echo r >README && "$GIT" add README &&
    "$GIT" commit -q -m init && "$GIT" init -q --bare "$W/origin" && "$GIT" push -q "$W/origin" main && cd - >/dev/null
printf '%-22s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n' "repository" fetch push "log-all" "branch#" "branch-D" \
    "wt-rm" "reset" "list" "status" gc
base=
for n in $SIZES; do
    for mode in loose folded; do
        [ "$n" = 0 ] && [ "$mode" = folded ] && continue
        d=$W/r$n-$mode
        make_repo "$d" "$n"
        [ "$mode" = folded ] && "$GUARD" -C "$d" fold >/dev/null
        refs=$("$GIT" -C "$d" for-each-ref | wc -l)
        f=($(measure "$d"))
        [ -z "$base" ] && base=("${f[@]}")
        printf '%-22s' "$n+$n $mode ($refs refs)"
        for i in "${!f[@]}"; do
            if [ "$i" = 3 ]; then printf ' %8s' "${f[$i]}"; else
                printf ' %8s' "$(awk -v a="${f[$i]}" -v b="${base[$i]}" 'BEGIN{printf "%d/%.1fx", a, (b>0?a/b:1)}')"; fi
        done
        echo
    done
done
echo "(ms/ratio against the repository with no saves; branch# = lines of 'git branch')"
