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
# guard.enabled), in turn, rotating which goes first, $RUNS rounds (default 3). Prints
# the medians and two ratios: guard / no hook (what the goal of issue 20 names) and
# guard / no-op hook (what any hook costs: git starts one process per pruned ref).
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

# measure LABEL REPO COMMAND: COMMAND (in REPO) after restoring its loose refs, per kind.
measure() {
    local label=$1 repo=$2 command=$3 i kind start end kinds=(none noop guard)
    declare -A times=()
    for ((i = 0; i < runs; i++)); do
        for kind in "${kinds[@]:i%3}" "${kinds[@]:0:i%3}"; do
            place "$kind" "$repo/.git"
            rm -rf "$repo/.git/refs/heads" "$repo/.git/packed-refs"
            cp -a "$repo.heads" "$repo/.git/refs/heads"
            start=$EPOCHREALTIME
            (cd "$repo" && sh -c "$command") >/dev/null 2>&1
            end=$EPOCHREALTIME
            times[$kind]+="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') "
            loose=$(find "$repo/.git/refs/heads" -type f | wc -l)
            [ "$loose" -eq 0 ] || echo "  warning: $kind left $loose loose branches after '$command'" >&2
        done
    done
    awk -v label="$label" -v n="$(median ${times[none]})" -v o="$(median ${times[noop]})" \
        -v g="$(median ${times[guard]})" 'BEGIN {
        printf "  %-22s no hook %8.2f s  no-op hook %8.2f s  guard %8.2f s  guard/no hook %6.2f  guard/no-op %5.2f\n",
               label, n, o, g, n > 0 ? g / n : 0, o > 0 ? g / o : 0 }'
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
    measure "pack-refs --all" "$repo" "git pack-refs --all"
    measure "gc" "$repo" "git gc -q"
    if git -C "$repo" refs optimize -h 2>&1 | grep -q -- --all; then
        measure "refs optimize --all" "$repo" "git refs optimize --all"
    fi
    echo
done
