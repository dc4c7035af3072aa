#!/usr/bin/env bash
# What the backstop's watcher costs (issue 18, DESIGN §15), measured on this machine in one
# run, against git's own commands where there is one:
#   idle:     the watcher's CPU over IDLE seconds with 10 guarded repositories and 50
#             worktrees (default 10 s; --full: 60 s; --repos N and --trees M for another
#             scale, M linked worktrees spread over the N repositories; --interval S sets
#             guard.snapshotInterval, default 60), its wakes (voluntary context switches),
#             the git processes it ran, its memory (VmRSS), and with strace its poll(2),
#             stat and open calls (goal at 100 repositories and 150 trees: <= 0.1% of a core);
#   latency:  from a branch deleted with hooks off (no hook, no shim: what libgit2 does) to
#             its save under refs/heads/stranded/, median and max of N deletions (goal
#             <= 100 ms), beside the time `git branch -D` takes when the hook saves;
#   hold:     from a new unpushed branch to the watcher knowing it (and, since issue 38,
#             holding it in its kept pack), median of N, with the git calls per event; and
#             100 branches deleted with hooks off in one transaction to all 100 saved;
#   snapshot: the CPU one snapshot check of an unchanged 30,000-file tree costs (the
#             watcher's own and its git children's), beside `git status` in that tree, and
#             as a share of one core at the default interval (60 s; goal <= 1%), with and
#             without fsmonitor (when the git in use has a working fsmonitor daemon).
# Reports; never asserts.
#
# Usage: bench/watch.sh [--full] [--bin DIR] [--runs N] [--repos N] [--trees M] [--interval S]
#                       [--only idle|latency|hold|snapshot]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${GUARD_BIN_DIR:-$root/build/bin}
idle=10
runs=20
only=
repos=10
trees=50
interval=
while [ $# -gt 0 ]; do
    case $1 in
    --full) idle=60 ;;
    --bin) bin=$2; shift ;;
    --runs) runs=$2; shift ;;
    --only) only=$2; shift ;;
    --repos) repos=$2; shift ;;
    --trees) trees=$2; shift ;;
    --interval) interval=$2; shift ;;
    *) echo "usage: bench/watch.sh [--full] [--bin DIR] [--runs N] [--repos N] [--trees M] [--interval S] [--only idle|latency|hold|snapshot]" >&2; exit 2 ;;
    esac
    shift
done
bin=$(cd "$bin" && pwd)
guard=$bin/git-guard
ticks=$(getconf CLK_TCK)

work=$(mktemp -d "${TMPDIR:-/tmp}/git-guard-bench-watch.XXXXXX")
cleanup() { HOME=$work "$guard" watch --stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
export HOME=$work GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
printf '[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n[init]\n\tdefaultBranch = main\n' >"$HOME/.gitconfig"

# The git the watcher runs counts its calls (the watcher takes $GIT_GUARD_REAL_GIT).
real_git=$(command -v git)
printf '#!/bin/sh\necho x >>"%s"\nexec "%s" "$@"\n' "$work/git-calls" "$real_git" >"$work/counting-git"
chmod +x "$work/counting-git"
export GIT_GUARD_REAL_GIT=$work/counting-git
calls() { [ -f "$work/git-calls" ] && wc -l <"$work/git-calls" || echo 0; }

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# cpu PID: user+system CPU ticks of PID and its waited-for children.
cpu() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat"; }
watcher() { "$guard" watch --status --json | sed -n 's/.*"pid":\([0-9]*\).*/\1/p'; }
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
part() { [ -z "$only" ] || [ "$only" = "$1" ]; }

[ "$repos" -ge 2 ] || { echo "bench/watch.sh: --repos needs at least 2 (latency and hold use repo1 and repo2)" >&2; exit 2; }
echo "== setup: $repos guarded repositories with $trees worktrees${interval:+, guard.snapshotInterval $interval}"
for r in $(seq 1 "$repos"); do
    repo=$work/repo$r
    git init -q "$repo"
    git -C "$repo" commit -q --allow-empty -m initial
    [ -z "$interval" ] || git -C "$repo" config guard.snapshotInterval "$interval"
    # The trees spread evenly: repository r has those t with t % repos == r % repos.
    for t in $(seq "$r" "$repos" "$trees"); do
        git -C "$repo" worktree add -q -b "wt$t" "$work/repo$r-wt$t"
    done
    "$guard" -C "$repo" install --shim-dir "$work/shim" >/dev/null
done
pid=$(watcher)
echo "watcher pid $pid"

# wakes PID: the times PID gave up the CPU on its own (each poll(2) return is one).
wakes() { awk '/^voluntary_ctxt_switches/ {print $2}' "/proc/$1/status"; }

if part idle; then
# The first checks of every tree (git per tree) end before idleness is measured.
settled=$(calls)
sleep 3
while [ "$(calls)" != "$settled" ]; do settled=$(calls); sleep 3; done
echo "== idle: ${idle} s, $repos repositories, $((repos + trees)) trees"
before=$(cpu "$pid")
calls_before=$(calls)
wakes_before=$(wakes "$pid")
status_before=$(stat -c %i "$HOME/.local/share/git-guard/watch/status")
sleep "$idle"
after=$(cpu "$pid")
awk -v t=$((after - before)) -v hz="$ticks" -v s="$idle" \
    'BEGIN {printf "idle CPU: %.3f s over %d s = %.3f%% of one core\n", t / hz, s, 100 * t / hz / s}'
awk -v w=$(($(wakes "$pid") - wakes_before)) -v s="$idle" 'BEGIN {printf "wakes: %d over %d s = %.2f a second\n", w, s, w / s}'
echo "git processes the watcher ran while idle: $(($(calls) - calls_before)) over ${idle} s"
[ "$(stat -c %i "$HOME/.local/share/git-guard/watch/status")" = "$status_before" ] &&
    echo "status file: not rewritten" || echo "status file: rewritten"
echo "memory (VmRSS) with $trees worktrees: $(awk '/VmRSS/ {print $2, $3}' "/proc/$pid/status")"
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
    # A second window under strace (which slows what it counts): the calls behind the wakes.
    strace -c -f -p "$pid" -o "$work/strace" 2>/dev/null &
    tracer=$!
    sleep "$idle"
    kill -INT "$tracer"
    wait "$tracer" 2>/dev/null || true
    awk -v s="$idle" '$NF ~ /^(poll|ppoll|newfstatat|statx|openat|rename|write)$/ {printf "%s %s; ", $NF, $4} END {printf "over %d s (strace -c -f)\n", s}' "$work/strace"
fi
fi

if part latency; then
echo "== latency: $runs deletions with hooks off"
repo=$work/repo1
lat=()
for i in $(seq 1 "$runs"); do
    tip=$(git -C "$repo" commit-tree -p main -m "work $i" "$(git -C "$repo" rev-parse 'main^{tree}')")
    git -C "$repo" update-ref "refs/heads/lat$i" "$tip"
    until tr '\0' '\n' <"$repo/.git/guard/watch/tips" | grep -qx "$tip"; do sleep 0.01; done
    t0=$(now_ms)
    git -C "$repo" -c core.hooksPath=/dev/null update-ref -d "refs/heads/lat$i"
    until [ -n "$(git -C "$repo" for-each-ref --format=x "refs/heads/stranded/lat$i/")" ]; do sleep 0.002; done
    lat+=($(($(now_ms) - t0)))
done
hook=()
for i in $(seq 1 "$runs"); do
    tip=$(git -C "$repo" commit-tree -p main -m "hooked $i" "$(git -C "$repo" rev-parse 'main^{tree}')")
    git -C "$repo" update-ref "refs/heads/hk$i" "$tip"
    t0=$(now_ms)
    git -C "$repo" branch -q -D "hk$i" 2>/dev/null
    hook+=($(($(now_ms) - t0)))
done
lmed=$(printf '%s\n' "${lat[@]}" | median)
lmax=$(printf '%s\n' "${lat[@]}" | sort -n | tail -1)
hmed=$(printf '%s\n' "${hook[@]}" | median)
echo "event to save: median ${lmed} ms, max ${lmax} ms (goal <= 100 ms); git branch -D with the hook's save: median ${hmed} ms"
awk -v a="$lmed" -v b="$hmed" 'BEGIN {if (b > 0) printf "ratio watcher save / hook save (medians): %.2f\n", a / b}'
fi
if part hold; then
echo "== hold: $runs new unpushed branches, then 100 deleted at once (hooks off)"
repo=$work/repo2
known() { tr '\0' '\n' <"$repo/.git/guard/watch/tips" 2>/dev/null | grep -qx "$1"; }
held=()
calls_before=$(calls)
for i in $(seq 1 "$runs"); do
    tip=$(git -C "$repo" commit-tree -p main -m "held $i" "$(git -C "$repo" rev-parse 'main^{tree}')")
    t0=$(now_ms)
    git -C "$repo" -c core.hooksPath=/dev/null update-ref "refs/heads/held$i" "$tip"
    until known "$tip"; do sleep 0.002; done
    held+=($(($(now_ms) - t0)))
done
per_event=$(( ($(calls) - calls_before) / runs ))
echo "new branch to known (and held): median $(printf '%s\n' "${held[@]}" | median) ms, max $(printf '%s\n' "${held[@]}" | sort -n | tail -1) ms; git calls per event: ${per_event}"
for i in $(seq 1 100); do
    printf 'create refs/heads/mass%s %s\n' "$i" "$(git -C "$repo" commit-tree -p main -m "mass $i" "$(git -C "$repo" rev-parse 'main^{tree}')")"
done | git -C "$repo" -c core.hooksPath=/dev/null update-ref --stdin
last=$(git -C "$repo" rev-parse mass100)
until known "$last"; do sleep 0.01; done
t0=$(now_ms)
for i in $(seq 1 100); do printf 'delete refs/heads/mass%s\n' "$i"; done |
    git -C "$repo" -c core.hooksPath=/dev/null update-ref --stdin
saved_all() {
    [ "$(git -C "$repo" for-each-ref --format='%(objectname)' refs/heads/stranded/ refs/stranded/ |
        git -C "$repo" log --stdin --format=%s | grep -c '^mass ')" -ge 100 ]
}
until saved_all; do sleep 0.05; done
echo "100 deleted at once to all saved: $(($(now_ms) - t0)) ms"
fi
part snapshot || exit 0

echo "== snapshot of an unchanged 30,000-file tree"
big=$work/big
git init -q "$big"
(cd "$big" && for d in $(seq -w 0 299); do mkdir "d$d" && for f in $(seq -w 0 99); do echo "$d $f" >"d$d/f$f"; done; done)
git -C "$big" add -A && git -C "$big" commit -q -m files
echo "dirty" >"$big/d000/f00" # a changed tree: the first snapshot saves it, the next ones find it unchanged
# snapshot_cost LABEL: the watcher's CPU per snapshot check of the unchanged tree.
snapshot_cost() {
    for r in $(seq 1 "$repos"); do git -C "$work/repo$r" config guard.snapshotInterval 0; done
    git -C "$big" config guard.snapshotInterval 1
    "$guard" -C "$big" install --shim-dir "$work/shim" >/dev/null
    local p n=10 before after objects
    p=$(watcher)
    until [ -n "$(git -C "$big" for-each-ref --format=x refs/stranded/big/)" ]; do sleep 0.1; done
    sleep 2
    objects=$(git -C "$big" count-objects | cut -d' ' -f1)
    before=$(cpu "$p")
    sleep "$n"
    after=$(cpu "$p")
    git -C "$big" config guard.snapshotInterval 0
    local status_ms t0
    t0=$(date +%s%N)
    git -C "$big" status --porcelain >/dev/null
    status_ms=$((($(date +%s%N) - t0) / 1000000))
    awk -v t=$((after - before)) -v hz="$ticks" -v n="$n" -v st="$status_ms" -v l="$1" \
        'BEGIN {c = 1000 * t / hz / n; printf "%s: %.0f ms CPU per check (git status: %d ms wall), %.3f%% of one core at the 60 s default\n", l, c, st, c / 600}'
    echo "$1: new loose objects over $n unchanged checks: $(($(git -C "$big" count-objects | cut -d' ' -f1) - objects))"
}
snapshot_cost "without fsmonitor"
if git -C "$big" fsmonitor--daemon start >/dev/null 2>&1; then
    git -C "$big" config core.fsmonitor true
    snapshot_cost "with fsmonitor"
    git -C "$big" fsmonitor--daemon stop >/dev/null 2>&1 || true
else
    echo "with fsmonitor: $(git --version) has no working fsmonitor daemon here (not measured)"
fi
