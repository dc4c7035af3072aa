#!/usr/bin/env bash
# What the reference-transaction hook costs (issue 8, DESIGN §11), side by side in one
# hyperfine run per git: the same command in a repository with no hook, with a no-op
# static hook (bench/noop_hook.c, built here with cc -static -O2) and with git-guard's
# hook placed as install places it (a link to git-guard-hook, guard.enabled). For
#   git update-ref refs/heads/x HEAD
#   git commit --allow-empty
#   git fetch of 1,000 new tags (from a local origin)
# it prints the medians and the ratio (guard - no hook) / (no-op hook - no hook): 1.0
# means the guard costs what the cheapest possible hook costs. Then, for a transaction
# deleting 1,000 branches that each hold an unpushed commit (git update-ref --stdin),
# the median time the guard adds per deleted branch (every one of them saved), from
# one hyperfine run of both.
# Last, issue 35's goal: `git branch -D` of 300 branches, each one unpushed commit, in a
# clone (origin/HEAD present, so every tip gets the published check), with no hook, a
# no-op `#!/bin/sh` hook and the guard's, interleaved; it prints the medians and what the
# guard adds per branch over the sh hook (goal: at most 2 ms).
# Reports; never asserts.
#
# Usage: bench/hook.sh [BIN_DIR] [GIT...]   (default: build/bin; git on PATH and
# /opt/git-2.55/bin/git when present). For the installed layout, install first
# (`cmake --install build --prefix DIR`) and pass DIR/libexec/git-guard. $RUNS (default 30) and $FETCH_RUNS (default 5)
# set hyperfine's run counts.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(cd "${1:-${GUARD_BIN_DIR:-$root/build/bin}}" && pwd)
shift || true
front=$bin/git-guard-hook
needs=(hyperfine)
source "$root/bench/hook_world.bash"
runs=${RUNS:-30}
fetch_runs=${FETCH_RUNS:-5}

# interleave LABEL RUNS DIR PREPARE COMMAND: runs COMMAND in DIR (a git dir's work tree)
# with each kind of hook (none, noop, guard) in turn, rotating which goes first, RUNS
# rounds: the same repository every time, only the hook differs, and the machine's load
# falls on all three alike. PREPARE runs untimed before each. In both, {} is DIR. Prints
# the medians and the ratio (guard - no hook) / (no-op hook - no hook), and the same for
# the fastest run of each.
interleave() {
    local label=$1 n=$2 dir=$3 prepare=$4 command=$5 i kind start end kinds=(none noop guard)
    declare -A times=()
    for ((i = 0; i < n; i++)); do
        # Each round starts with another kind: no kind always follows the same one.
        for kind in "${kinds[@]:i%3}" "${kinds[@]:0:i%3}"; do
            place "$kind" "$dir/.git"
            [ -z "$prepare" ] || sh -c "${prepare//\{\}/$dir}" >/dev/null 2>&1
            start=$EPOCHREALTIME
            sh -c "${command//\{\}/$dir}" >/dev/null 2>&1
            end=$EPOCHREALTIME
            times[$kind]+="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) * 1000 }') "
        done
    done
    local median_none median_noop median_guard
    median_none=$(median ${times[none]})
    median_noop=$(median ${times[noop]})
    median_guard=$(median ${times[guard]})
    # On a loaded machine the fastest runs are the steadier estimate: both ratios.
    awk -v label="$label" -v n="$median_none" -v o="$median_noop" -v g="$median_guard" \
        -v fn="$(fastest ${times[none]})" -v fo="$(fastest ${times[noop]})" -v fg="$(fastest ${times[guard]})" 'BEGIN {
        printf "  %-24s no hook %9.2f ms  no-op hook %9.2f ms  guard %9.2f ms  ratio %5.2f  (fastest: %.2f %.2f %.2f ms, ratio %5.2f)\n",
               label, n, o, g, ((o - n) > 0 ? (g - n) / (o - n) : 0), fn, fo, fg, ((fo - fn) > 0 ? (fg - fn) / (fo - fn) : 0) }'
}

fastest() {
    printf '%s\n' "$@" | sort -n | head -1
}

for git in "${gits[@]}"; do
    version=$("$git" version)
    w=$work/$(echo "$version" | tr -c 'a-z0-9.\n' _)
    mkdir -p "$w"
    PATH=$(dirname "$git"):$PATH
    hash -r
    # An origin with 1,000 tags; per kind a clone (fetching them) and a work repository.
    git init -q "$w/origin"
    git -C "$w/origin" commit -q --allow-empty -m base
    for ((i = 0; i < 1000; i++)); do echo "create refs/tags/t$i HEAD"; done | git -C "$w/origin" update-ref --stdin
    git init -q "$w/repo"
    git -C "$w/repo" commit -q --allow-empty -m bench
    git -C "$w/repo" config guard.enabled true
    git clone -q --no-tags "$w/origin" "$w/clone" 2>/dev/null
    git -C "$w/clone" config guard.enabled true
    echo "== $version (medians of interleaved runs)"
    interleave "update-ref ($runs runs)" "$runs" "$w/repo" "" "git -C {} update-ref refs/heads/x HEAD"
    interleave "commit ($runs runs)" "$runs" "$w/repo" "" "git -C {} commit -q --allow-empty -m run"
    drop="git -C {} -c core.hooksPath=/dev/null for-each-ref --format='delete %(refname)' refs/tags | git -C {} -c core.hooksPath=/dev/null update-ref --stdin"
    interleave "fetch 1,000 tags ($fetch_runs)" "$fetch_runs" "$w/clone" "$drop" "git -C {} fetch -q origin 'refs/tags/*:refs/tags/*'"

    # 1,000 branches, each one unpushed commit, deleted in one transaction: a repository
    # without the hook and one with it (hyperfine runs them side by side).
    for kind in none guard; do
        git init -q "$w/$kind"
        git -C "$w/$kind" commit -q --allow-empty -m bench
        git -C "$w/$kind" config guard.enabled true
        place "$kind" "$w/$kind/.git"
    done
    for kind in none guard; do
        r=$w/$kind
        base=$(git -C "$r" rev-parse HEAD)
        tree=$(git -C "$r" rev-parse 'HEAD^{tree}')
        : >"$w/$kind.create"
        : >"$w/$kind.delete"
        for ((i = 0; i < 1000; i++)); do
            c=$(echo "work $i" | git -C "$r" commit-tree "$tree" -p "$base")
            echo "create refs/heads/d$i $c" >>"$w/$kind.create"
            echo "delete refs/heads/d$i" >>"$w/$kind.delete"
        done
    done
    args=()
    for kind in none guard; do
        r=$w/$kind
        prep="sh -c \"$folds_done $r/.git; git -C $r -c core.hooksPath=/dev/null for-each-ref --format='delete %(refname)' refs/heads/stranded/ | git -C $r -c core.hooksPath=/dev/null update-ref --stdin && git -C $r -c core.hooksPath=/dev/null update-ref --stdin <$w/$kind.create\""
        args+=(--prepare "$prep" -n "delete1000 $kind" "sh -c 'git -C $r update-ref --stdin <$w/$kind.delete'")
    done
    hyperfine --warmup 1 --runs "$fetch_runs" --export-csv "$w/delete.csv" "${args[@]}" >/dev/null
    saved=$(git -C "$w/guard" for-each-ref refs/heads/stranded/ | grep -c . || true)
    awk -F, -v saved="$saved" '
        NR > 1 { median[$1] = $4 * 1000 }
        END {
            n = median["delete1000 none"]; g = median["delete1000 guard"]
            printf "  %-24s no hook %9.2f ms  guard %9.2f ms  added per branch %6.2f ms (%d saved in the last run)\n",
                   "delete 1,000 branches", n, g, (g - n) / 1000, saved
        }' "$w/delete.csv"

    # branch -D of 300 unpushed branches in a clone with origin/HEAD: per round, the
    # branches made again (hooks off) and the saves of the round before dropped.
    git init -q "$w/src"
    git -C "$w/src" commit -q --allow-empty -m base
    git clone -q --bare "$w/src" "$w/hub.git"
    git clone -q "$w/hub.git" "$w/mass" 2>/dev/null
    git -C "$w/mass" config guard.enabled true
    mass_branches() { # N branches mass/<i>, each one commit of its own on main
        local i base
        base=$(git -C "$w/mass" rev-parse HEAD)
        for ((i = 0; i < $1; i++)); do
            printf 'commit refs/heads/mass/%d\ncommitter T <t@e> 1700000000 +0000\ndata 1\nm\nfrom %s\nM 644 inline f%d\ndata 2\n%d\n\n' \
                "$i" "$base" "$i" $((i % 10))
        done | git -C "$w/mass" -c core.hooksPath=/dev/null fast-import --quiet
        git -C "$w/mass" -c core.hooksPath=/dev/null for-each-ref --format='delete %(refname)' refs/heads/stranded/ refs/stranded/ |
            git -C "$w/mass" -c core.hooksPath=/dev/null update-ref --stdin
    }
    printf '#!/bin/sh\nexit 0\n' >"$work/sh-hook"
    chmod +x "$work/sh-hook"
    declare -A mass=()
    kinds=(none sh guard)
    for ((i = 0; i < fetch_runs; i++)); do
        for kind in "${kinds[@]:i%3}" "${kinds[@]:0:i%3}"; do
            place none "$w/mass/.git"
            mass_branches 300
            case $kind in
            sh) cp "$work/sh-hook" "$w/mass/.git/hooks/reference-transaction" ;;
            guard) place guard "$w/mass/.git" ;;
            esac
            names=$(git -C "$w/mass" for-each-ref --format='%(refname:short)' refs/heads/mass/)
            start=$EPOCHREALTIME
            # shellcheck disable=SC2086
            git -C "$w/mass" branch -D $names >/dev/null 2>&1
            end=$EPOCHREALTIME
            "$folds_done" "$w/mass/.git" # untimed: the fold runs after git, detached
            mass[$kind]+="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) * 1000 }') "
            [[ $kind != guard ]] || saved=$(git -C "$w/mass" for-each-ref refs/heads/stranded/ refs/stranded/ | grep -c . || true)
        done
    done
    awk -v n="$(median ${mass[none]})" -v s="$(median ${mass[sh]})" -v g="$(median ${mass[guard]})" -v saved="$saved" 'BEGIN {
        printf "  %-24s no hook %9.2f ms  sh hook %9.2f ms  guard %9.2f ms  added per branch over the sh hook %6.2f ms (goal <= 2; %d save refs after the last guarded run)\n",
               "branch -D of 300 (clone)", n, s, g, (g - s) / 300, saved }'
    echo
done
