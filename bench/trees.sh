#!/usr/bin/env bash
# Many worktrees cost O(trees) (issue 20, item 4): each figure at 1, 10 and 50 linked trees,
# side by side with git alone, in one run, on the installed layout (git guard install, the
# shim first on PATH):
#   status     `git guard status` (every tree)  vs  `git status --porcelain` in each tree, summed
#   branch -D  one unpushed branch, guarded     vs  the same with plain git
#   prune      10 trees whose directories were deleted, `git worktree prune` guarded vs plain
#              (one save each is the guard's own work; prints the saves made), and against
#              the goal's allowance: 2x git's own prune plus 10 x one save (the median of
#              `git guard save` of each of 10 trees like them, measured in the same run)
# and the git processes each guarded command starts (GIT_TRACE2_EVENT start events). Each
# time is the median of --runs runs; ratios are guarded / git. Never asserts.
#
# Usage: bench/trees.sh [--prefix DIR] [--runs N] [--trees "1 10 50"]
#   --prefix DIR  an installed git-guard (cmake --install build --prefix DIR); default:
#                 installs build/ into a temporary prefix first
#   --runs N      timed runs per figure (default 5)
#   --trees LIST  the tree counts (default "1 10 50")
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix="" runs=5 counts="1 10 50"
while (($#)); do
    case $1 in
    --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --trees) counts=${2:?--trees needs a list}; shift 2 ;;
    -h | --help) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "trees: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
source "$root/bench/installed.bash"
installed_layout trees
guarded_path=$work/shim:$prefix/bin:$PATH

# repo DIR TREES GUARDED: a clone of a small origin with TREES linked trees (each with one
# staged edit, so status has something to say and a vanished tree's index is work to
# save), guarded when GUARDED=1.
repo() {
    local dir=$1 n=$2 i
    rm -rf "$dir" "$dir.origin" "$dir".t*
    git init -q --bare "$dir.origin"
    git clone -q "$dir.origin" "$dir" 2>/dev/null
    for i in $(seq 1 20); do echo "$i" >"$dir/f$i.txt"; done
    git -C "$dir" add . && git -C "$dir" commit -qm init && git -C "$dir" push -q origin main
    for i in $(seq 1 "$n"); do
        git -C "$dir" worktree add -q "$dir.t$i" -b "t$i" 2>/dev/null
        echo edit >>"$dir.t$i/f1.txt" && git -C "$dir.t$i" add f1.txt
    done
    if [[ $3 == 1 ]]; then
        (cd "$dir" && PATH=$prefix/bin:$PATH git-guard install --shim-dir "$work/shim" >/dev/null)
    fi
}

now() { date +%s%N; }
# median MS...: the median of the given milliseconds.
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

# time_ms PREPARE CMD...: runs PREPARE (a function name or :), then times CMD, in ms.
time_ms() {
    local prep=$1 t0 t1
    shift
    "$prep"
    t0=$(now)
    "$@" >/dev/null 2>&1 || true
    t1=$(now)
    echo $(((t1 - t0) / 1000000))
}

# procs CMD...: the git processes CMD starts (trace2 start events).
procs() {
    local trace=$work/trace
    rm -f "$trace"
    GIT_TRACE2_EVENT=$trace "$@" >/dev/null 2>&1 || true
    grep -c '"event":"start"' "$trace" 2>/dev/null || echo 0
}

plain_status_all() { local t; for t in "$R" "$R".t*; do git -C "$t" status --porcelain >/dev/null; done; }
guard_status() { PATH=$guarded_path command git -C "$R" guard status; }
make_doomed() { git -C "$R" branch -q -f doomed main && git -C "$R" update-ref refs/heads/doomed "$(git -C "$R" commit-tree -p main -m unpushed "$(git -C "$R" rev-parse 'main^{tree}')")"; }
plain_branch_d() { git -C "$R" branch -D doomed; }
guard_branch_d() { PATH=$guarded_path command git -C "$R" branch -D doomed; }

status_row() { # N
    local n=$1 i plain=() guarded=() p g
    R=$work/r$n
    repo "$R" "$n" 1
    for ((i = 0; i < runs; ++i)); do
        plain+=("$(time_ms : plain_status_all)")
        guarded+=("$(time_ms : guard_status)")
    done
    p=$(median "${plain[@]}") g=$(median "${guarded[@]}")
    printf '%-28s %5s %9s %9s %7s %7s\n' "status, $n trees" "$n" "$p" "$g" "$(ratio "$g" "$p")" \
        "$(procs guard_status)"
}

branch_row() { # N
    local n=$1 i plain=() guarded=() p g
    R=$work/p$n
    repo "$R" "$n" 0
    for ((i = 0; i < runs; ++i)); do plain+=("$(time_ms make_doomed plain_branch_d)"); done
    R=$work/g$n
    repo "$R" "$n" 1
    for ((i = 0; i < runs; ++i)); do guarded+=("$(time_ms make_doomed guard_branch_d)"); done
    p=$(median "${plain[@]}") g=$(median "${guarded[@]}")
    make_doomed
    printf '%-28s %5s %9s %9s %7s %7s\n' "branch -D, $n trees" "$n" "$p" "$g" "$(ratio "$g" "$p")" \
        "$(procs guard_branch_d)"
}

# prune_case DIR GUARDED: a repository of 10 linked trees whose directories are deleted.
vanish() { local i; for i in $(seq 1 10); do rm -rf "$R.t$i"; done; }
# one_saves: `git guard save` of each of the 10 trees (one staged edit each), in ms, one a line.
one_saves() {
    local i
    R=$work/s && repo "$R" 10 1
    for i in $(seq 1 10); do time_ms : env PATH="$guarded_path" git -C "$R.t$i" guard save; done
}
prune_row() {
    local i plain=() guarded=() save=() p g s allowance saves
    for ((i = 0; i < runs; ++i)); do
        R=$work/q && repo "$R" 10 0 && vanish
        plain+=("$(time_ms : git -C "$R" worktree prune)")
        R=$work/q && repo "$R" 10 1 && vanish
        guarded+=("$(time_ms : env PATH="$guarded_path" git -C "$R" worktree prune)")
        mapfile -t -O "${#save[@]}" save < <(one_saves)
    done
    R=$work/q
    saves=$(git -C "$R" for-each-ref refs/heads/stranded/ refs/stranded/ | wc -l)
    p=$(median "${plain[@]}") g=$(median "${guarded[@]}") s=$(median "${save[@]}")
    allowance=$((2 * p + 10 * s))
    R=$work/q && repo "$R" 10 1 && vanish
    printf '%-28s %5s %9s %9s %7s %7s   (%s saves)\n' "prune, 10 vanished" 10 "$p" "$g" "$(ratio "$g" "$p")" \
        "$(procs env PATH="$guarded_path" git -C "$R" worktree prune)" "$saves"
    printf '%-28s %5s %9s %9s %7s %7s   (goal: ratio <= 1; one save %s ms)\n' "prune, vs 2x git + 10 saves" 10 \
        "$allowance" "$g" "$(ratio "$g" "$allowance")" "" "$s"
}

echo "git: $("$real_git" --version); git-guard: $prefix; median of $runs runs, ms"
printf '%-28s %5s %9s %9s %7s %7s\n' "figure" "trees" "git" "guarded" "ratio" "procs"
for n in $counts; do status_row "$n"; done
for n in $counts; do branch_row "$n"; done
prune_row
