#!/usr/bin/env bash
# What the reference-transaction hook costs ref packing (issue 20 item 2): git pack-refs,
# git gc and (2.55+) git refs optimize prune every loose ref they pack in a transaction
# of its own, and run the hook for each (prepared and committed on 2.39; preparing too on
# 2.54+). The guard's front end recognises the pruning with one binary search in
# packed-refs per run; before, it read all of packed-refs each time (quadratic).
#
# One repository with $BRANCHES loose branches (default 20,000) at one commit; before
# every timed run the loose refs are restored from a copy and packed-refs removed
# (untimed). Each command runs with no hook, with a no-op static hook (bench/noop_hook.c)
# and with git-guard's hook as installed (a link to the installed front end,
# guard.enabled), and with that hook and the installed shim first on PATH (the shim runs
# ref packing with hooks off when ours is the only hook), in turn, rotating which goes
# first, $RUNS rounds (default 3). Prints the medians and three ratios: hook / no hook
# and shim / no hook (what the goal of issue 20 names), and hook / no-op hook (what any
# hook costs: git starts one process per pruned ref).
# Then one pruning run of each hook, started directly $DIRECT times (default 200) with all
# refs packed: the front end's own cost per run. ONLY_PER_RUN=1 measures only that.
# Reports; never asserts.
#
# Usage: bench/pack_refs.sh [BUILD_DIR] [GIT...]   (default: build; git on PATH and
# /opt/git-2.55/bin/git when present). Installs BUILD_DIR with `cmake --install` into a
# temporary prefix first.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
shift || true
needs=(cmake)
source "$root/bench/hook_world.bash"
runs=${RUNS:-3}
branches=${BRANCHES:-20000}
cmake --install "$build" --prefix "$work/prefix" >/dev/null
front=$work/prefix/libexec/git-guard/git-guard-hook
mkdir -p "$work/shim"
ln -s "$work/prefix/libexec/git-guard/git-guard-shim" "$work/shim/git"

# measure LABEL REPO COMMAND: COMMAND (in REPO) after restoring its loose refs, per kind.
measure() {
    local label=$1 repo=$2 command=$3 i kind start end path kinds=(none noop guard shim)
    declare -A times=()
    for ((i = 0; i < runs; i++)); do
        for kind in "${kinds[@]:i%4}" "${kinds[@]:0:i%4}"; do
            path=$PATH
            if [ "$kind" = shim ]; then
                place guard "$repo/.git"
                path=$work/shim:$PATH
            else
                place "$kind" "$repo/.git"
            fi
            rm -rf "$repo/.git/refs/heads" "$repo/.git/packed-refs"
            cp -a "$repo.heads" "$repo/.git/refs/heads"
            start=$EPOCHREALTIME
            (cd "$repo" && PATH=$path sh -c "$command") >/dev/null 2>&1
            end=$EPOCHREALTIME
            times[$kind]+="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') "
            loose=$(find "$repo/.git/refs/heads" -type f | wc -l)
            [ "$loose" -eq 0 ] || echo "  warning: $kind left $loose loose branches after '$command'" >&2
        done
    done
    awk -v label="$label" -v n="$(median ${times[none]})" -v o="$(median ${times[noop]})" \
        -v g="$(median ${times[guard]})" -v s="$(median ${times[shim]})" 'BEGIN {
        printf "  %-22s no hook %7.2f s  no-op hook %7.2f s  hook %7.2f s  shim %7.2f s  hook/no hook %6.2f  shim/no hook %5.2f  hook/no-op %5.2f\n",
               label, n, o, g, s, (n > 0 ? g / n : 0), (n > 0 ? s / n : 0), (o > 0 ? g / o : 0) }'
}

# per_run REPO: what one pruning run of each hook costs, started directly (no git around it)
# $DIRECT times (default 200) with the line git sends for a pruned ref, all refs packed.
# Shows the front end's own cost per run, which ref packing pays once per pruned ref.
per_run() {
    local repo=$1 kind start end hook direct=${DIRECT:-200} oid line
    git -C "$repo" -c core.hooksPath=/dev/null pack-refs --all
    oid=$(git -C "$repo" rev-parse HEAD)
    line="$oid $(printf '0%.0s' $(seq 1 ${#oid})) refs/heads/b$((branches / 2))"
    declare -A per=()
    for kind in noop guard; do
        hook=$work/noop-hook
        [ "$kind" = noop ] || hook=$front
        start=$EPOCHREALTIME
        for ((i = 0; i < direct; i++)); do
            (cd "$repo" && "$hook" "$repo/.git/hooks/reference-transaction" prepared <<<"$line") >/dev/null 2>&1
        done
        end=$EPOCHREALTIME
        per[$kind]=$(awk -v a="$start" -v b="$end" -v n="$direct" 'BEGIN { printf "%.3f", (b - a) * 1000 / n }')
    done
    awk -v o="${per[noop]}" -v g="${per[guard]}" -v n="$direct" 'BEGIN {
        printf "  %-22s no-op hook %6.2f ms  guard %6.2f ms  guard/no-op %5.2f  (%d direct runs each)\n",
               "one pruning run", o, g, (o > 0 ? g / o : 0), n }'
}

for git in "${gits[@]}"; do
    version=$("$git" version)
    PATH=$(dirname "$git"):$PATH
    hash -r
    repo=$work/$(echo "$version" | tr -c 'a-z0-9.\n' _)
    git init -q "$repo"
    git -C "$repo" commit -q --allow-empty -m base
    git -C "$repo" config guard.enabled true
    for ((i = 0; i < branches; i++)); do echo "create refs/heads/b$i HEAD"; done | git -C "$repo" update-ref --stdin
    cp -a "$repo/.git/refs/heads" "$repo.heads"
    echo "== $version, $branches loose branches (medians of $runs interleaved runs; load $(cut -d' ' -f1-3 /proc/loadavg))"
    [ -z "${ONLY_PER_RUN:-}" ] || { per_run "$repo"; echo; continue; }
    measure "pack-refs --all" "$repo" "git pack-refs --all"
    measure "gc" "$repo" "git gc -q"
    if git -C "$repo" refs optimize -h 2>&1 | grep -q -- --all; then
        measure "refs optimize --all" "$repo" "git refs optimize --all"
    fi
    per_run "$repo"
    echo
done
