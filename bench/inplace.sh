#!/usr/bin/env bash
# The in-place destroyers through the guard against plain git (issue 10, "Speed"), each
# pair side by side in one hyperfine run, on the 100,000-file repository of make_repo.sh,
# brought to a clean state and then given a few changes (5 modified files):
#   checkout -- <one file>   the file changed before every run, so every guarded run saves
#   reset --hard             the 5 files changed before every run, every guarded run saves
#   clean -fd, nothing to clean, and checkout -- . on a clean tree: the "nothing destroyed" cost
# Prints ratios guarded / plain (goals: checkout ≤ 1.2×, reset --hard ≤ 1.5×); never asserts.
#
# Usage: bench/inplace.sh [--runs N] [--bin DIR] [--repo DIR]
#   --runs N    timed runs per command (default 10)
#   --bin DIR   where git-guard-shim and git-guard are (default $GUARD_BIN_DIR, else build/bin)
#   --repo DIR  the generated repository (default ${TMPDIR:-/tmp}/git-guard-bench-inplace);
#               this script resets its tree: do not share it with status_save.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=10
bin=${GUARD_BIN_DIR:-$root/build/bin}
repo=${TMPDIR:-/tmp}/git-guard-bench-inplace
while (($#)); do
    case $1 in
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --bin) bin=${2:?--bin needs a directory}; shift 2 ;;
    --repo) repo=${2:?--repo needs a directory}; shift 2 ;;
    -h | --help) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "inplace: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
for tool in hyperfine python3 git; do
    command -v "$tool" >/dev/null || { echo "inplace: $tool is missing (Debian package: $tool)" >&2; exit 2; }
done
bin=$(cd "$bin" && pwd)
[[ -x $bin/git-guard-shim && -x $bin/git-guard ]] || { echo "inplace: no git-guard-shim in $bin: build it, or pass --bin" >&2; exit 2; }
real_git=$(command -v git)

work=$(mktemp -d "${TMPDIR:-/tmp}/git-guard-inplace.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
mkdir -p "$HOME" "$work/shim"
ln -s "$bin/git-guard-shim" "$work/shim/git"
shim=$work/shim/git

echo "== machine"
echo "date:      $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu:       $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "load:      $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
echo "git:       $("$real_git" --version)"
echo

"$root/bench/make_repo.sh" "$repo"
repo=$(cd "$repo" && pwd)
g() { "$real_git" -C "$repo" "$@"; }
g checkout -q -- . && g clean -fdq && g update-index -q --refresh >/dev/null || true
g config guard.enabled true
few="d0001/f01.txt d0500/f10.txt d1000/f20.txt d1500/f30.txt d1999/f49.txt"

q() { printf '%q' "$1"; }
# A new line in each file before every run: every guarded run has something new to save.
touch_files() {
    local s="" f
    for f in "$@"; do s+="date +%s%N >>$(q "$repo/$f"); "; done
    echo "$s true"
}
drop_saves="$(q "$real_git") -C $(q "$repo") for-each-ref --format='delete %(refname)' refs/stranded/ | $(q "$real_git") -C $(q "$repo") update-ref --stdin"

# bench NAME PREPARE ARGS...: `git ARGS` plain and through the shim, side by side.
bench() {
    local name=$1 prepare=$2
    shift 2
    local args
    args=$(printf ' %q' "$@")
    echo "== $name"
    hyperfine --style basic --warmup 1 --runs "$runs" --prepare "$prepare" --export-json "$work/$name.json" \
        -n "git$args" "$(q "$real_git") -C $(q "$repo")$args" \
        -n "guarded git$args" "$(q "$shim") -C $(q "$repo")$args" | grep -E '^(Benchmark|  Time)'
    python3 - "$work/$name.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
plain, guarded = r[0], r[1]
print(f"ratio: {guarded['mean'] / plain['mean']:.2f}x  (mean {guarded['mean']*1000:.1f} ms vs {plain['mean']*1000:.1f} ms;"
      f" fastest {guarded['min'] / plain['min']:.2f}x)")
PY
    echo
}

# shellcheck disable=SC2086
bench checkout-one "$(touch_files d0001/f01.txt)" checkout -- d0001/f01.txt
# shellcheck disable=SC2086
bench reset-hard "$(touch_files $few)" reset -q --hard
bench clean-nothing true clean -fd
bench checkout-dot-clean true checkout -- .
echo "saves made: $(g for-each-ref refs/stranded/ | wc -l)"
eval "$drop_saves"
