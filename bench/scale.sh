#!/usr/bin/env bash
# Saves at scale (issue 20): the same guarded repository with 0, N saves of each kind kept
# as git-guard keeps them now (folded onto chains beyond guard.keepBranches) and the same
# saves as loose refs (as earlier versions kept them), side by side in one run.
#
#   bench/scale.sh [--bin DIR] [--sizes "0 1000"] [--runs N]     (default: 0 and 1000, 3 runs)
#   bench/scale.sh --sizes "0 1000 10000"                         (the issue's full table; minutes)
#   bench/scale.sh --sizes "0 10000" --modes folded --runs 1      (as saves are kept now only)
#
# The saves are synthetic, of exactly the product's shape (bench/scale_saves.py): in-place
# saves (save commits with git-guard's message and trailers) under refs/stranded/t<k>/<stamp>
# and branch-deletion saves (a unique commit) under refs/heads/stranded/b<k>/<stamp>, with
# their journal lines, written by fast-import (no hook); "folded" then runs `git guard fold`,
# the migration an earlier version's repository gets on first use; "loose" is how earlier
# versions kept them. Times are medians in ms; the ratio is against the same repository
# with no saves. Then `pack-refs --all` of $BRANCHES (default 20,000) loose branches with
# the guard's hook (git run directly, and through the shim, which packs with hooks off
# when ours is the only hook) against the same without a hook. Not run by ctest.
set -euo pipefail

BIN=${GUARD_BIN_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build/bin}
SIZES="0 1000"
MODES="loose folded"
RUNS=3
while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --modes) MODES=$2; shift 2 ;;
    *) echo "usage: $0 [--bin DIR] [--sizes \"0 1000 10000\"] [--modes \"loose folded\"] [--runs N]" >&2; exit 2 ;;
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
    mkdir -p "$1/.git/guard"
    # Hooks off: our hook passes ref creations and writes nothing, but starting it for each
    # of 20,000 refs made the set-up of one size take eight minutes.
    python3 "$(dirname "$0")/scale_saves.py" "$1" "$2" "$("$GIT" -C "$1" rev-parse HEAD)" "$1/.git/guard/journal.jsonl" |
        "$GIT" -C "$1" -c core.hooksPath=/dev/null fast-import --quiet
}

measure() { # measure DIR: one line of figures
    local d=$1 o=$W/origin
    "$GIT" -C "$o" commit -q --allow-empty -m more 2>/dev/null || (cd "$W/seed" && "$GIT" commit -q --allow-empty -m more && "$GIT" push -q "$o" main)
    local fetch push logall lines bd wr rh list status gc drop
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
    drop=$(ms "$GUARD" -C "$d" drop --published)
    gc=$(ms sh -c "PATH=$W/shim:\$PATH; git -C '$d' gc -q")
    echo "$fetch $push $logall $lines $bd $wr $rh $list $status $gc $drop"
}

mkdir -p "$W/seed" && cd "$W/seed" && "$GIT" init -q && echo r >README && "$GIT" add README &&
    "$GIT" commit -q -m init && "$GIT" init -q --bare "$W/origin" && "$GIT" push -q "$W/origin" main && cd - >/dev/null
printf '%-30s %10s %10s %10s %8s %10s %10s %10s %10s %10s %10s %10s\n' "repository" fetch push "log-all" "branch#" "branch-D" \
    "wt-rm" "reset" "list" "status" gc "drop-pub"
base=
for n in $SIZES; do
    for mode in $MODES; do
        [ "$n" = 0 ] && [ "$mode" = folded ] && [[ " $MODES " == *" loose "* ]] && continue
        d=$W/r$n-$mode
        make_repo "$d" "$n"
        [ "$mode" = folded ] && "$GUARD" -C "$d" fold >/dev/null
        refs=$("$GIT" -C "$d" for-each-ref | wc -l)
        f=($(measure "$d"))
        [ -z "$base" ] && base=("${f[@]}")
        printf '%-30s' "$n+$n $mode ($refs refs)"
        for i in "${!f[@]}"; do
            if [ "$i" = 3 ]; then printf ' %8s' "${f[$i]}"; else
                printf ' %10s' "$(awk -v a="${f[$i]}" -v b="${base[$i]}" 'BEGIN{printf "%d/%.1fx", a, (b>0?a/b:1)}')"; fi
        done
        echo
    done
done
echo "(ms/ratio against the repository with no saves; branch# = lines of 'git branch';" \
    "drop-pub = drop --published, which drops none of these)"

# pack-refs --all of BRANCHES loose branches: the guard's hook against no hook, interleaved.
BRANCHES=${BRANCHES:-20000}
P=$W/pack
"$GIT" init -q "$P" && "$GIT" -C "$P" commit -q --allow-empty -m base && "$GIT" -C "$P" config guard.enabled true
sed "s|@GUARD_HOOK_FRONT@|$BIN/git-guard-hook|" "$(dirname "$0")/../hooks/reference-transaction" >"$P/.git/hooks/reference-transaction"
chmod +x "$P/.git/hooks/reference-transaction"
for ((i = 0; i < BRANCHES; i++)); do echo "create refs/heads/b$i HEAD"; done | "$GIT" -C "$P" update-ref --stdin
cp -a "$P/.git/refs/heads" "$W/pack.heads"
pack() { # pack GIT ARGS...: one GIT pack-refs --all from the loose refs, in ms
    local git=$1
    shift
    rm -rf "$P/.git/refs/heads" "$P/.git/packed-refs" && cp -a "$W/pack.heads" "$P/.git/refs/heads"
    local s=$(date +%s%N)
    "$git" -C "$P" "$@" pack-refs --all
    echo $((($(date +%s%N) - s) / 1000000))
}
hook=() shim=() nohook=()
for _ in $(seq "$RUNS"); do
    hook+=("$(pack "$GIT")") shim+=("$(pack "$W/shim/git")") nohook+=("$(pack "$GIT" -c core.hooksPath=/dev/null)")
done
med() { printf '%s\n' "$@" | sort -n | sed -n "$(((RUNS + 1) / 2))p"; }
awk -v b="$BRANCHES" -v g="$(med "${hook[@]}")" -v s="$(med "${shim[@]}")" -v n="$(med "${nohook[@]}")" \
    'BEGIN { printf "pack-refs --all, %d loose branches: guard hook %d ms (%.1fx), through the shim %d ms (%.1fx), no hook %d ms\n",
             b, g, (n > 0 ? g / n : 0), s, (n > 0 ? s / n : 0), n }'
echo "(load $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; git $("$GIT" version | cut -d' ' -f3))"
