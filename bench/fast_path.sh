#!/usr/bin/env bash
# The fast paths (DESIGN.md §11): what the shim and the hook front end add to a git
# call when there is nothing to guard. Times, side by side in one hyperfine run:
#   git --version                  real git   vs the shim
#   git rev-parse HEAD             real git   vs the shim
#   git update-ref refs/heads/x    no hook    vs git-guard-hook (linked as the hook, C5)
# plus a static process that does nothing (git-guard-hook --guard-version) as the
# floor. Prints median wall time, mean CPU time and the ratios guarded/plain.
# Reports; never asserts.
#
# Usage: bench/fast_path.sh [BIN_DIR]   (default: $GUARD_BIN_DIR, else build/bin)
# Extra hyperfine options go in $HYPERFINE_OPTS (default: --warmup 20 --runs 300).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(cd "${1:-${GUARD_BIN_DIR:-$root/build/bin}}" && pwd)
for tool in hyperfine git; do
    command -v "$tool" >/dev/null || { echo "fast_path: $tool is not installed" >&2; exit 2; }
done
real_git=$(command -v git)
case "$(basename "$(readlink -f "$real_git")")" in
git-guard-shim) echo "fast_path: 'git' on PATH is already the shim; take it off PATH" >&2; exit 2 ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/git-guard-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

mkdir -p "$work/shim"
ln -s "$bin/git-guard-shim" "$work/shim/git"
for repo in plain hooked; do
    "$real_git" init -q "$work/$repo"
    "$real_git" -C "$work/$repo" commit -q --allow-empty -m bench
done
# The hook as install places it (contract C5): a link git starts directly, no shell.
ln -s "$bin/git-guard-hook" "$work/hooked/.git/hooks/reference-transaction"
"$real_git" -C "$work/hooked" config guard.enabled true

# shellcheck disable=SC2086
hyperfine -N ${HYPERFINE_OPTS:---warmup 20 --runs 300} --export-csv "$work/times.csv" \
    -n "static floor" "$bin/git-guard-hook --guard-version" \
    -n "git --version" "$real_git --version" \
    -n "shim --version" "$work/shim/git --version" \
    -n "git rev-parse" "$real_git -C $work/plain rev-parse HEAD" \
    -n "shim rev-parse" "$work/shim/git -C $work/plain rev-parse HEAD" \
    -n "update-ref" "$real_git -C $work/plain update-ref refs/heads/x HEAD" \
    -n "hooked update-ref" "$real_git -C $work/hooked update-ref refs/heads/x HEAD"

# Wall time (median) is what a user waits; CPU time (user + system, mean) is steadier
# on a busy machine. Both ratios are guarded/plain.
echo
awk -F, '
    NR > 1 { wall[$1] = $4 * 1000; cpu[$1] = ($5 + $6) * 1000 }
    END {
        printf "%-24s %9s %9s %7s %9s   %9s %9s %7s\n", "median wall / mean cpu", "git ms",
               "guard ms", "ratio", "added ms", "git cpu", "guard cpu", "ratio"
        row("git --version", "git --version", "shim --version")
        row("git rev-parse HEAD", "git rev-parse", "shim rev-parse")
        row("git update-ref + hook", "update-ref", "hooked update-ref")
        printf "%-24s %9.3f %9s %7s %9s   %9.3f\n", "static process floor",
               wall["static floor"], "", "", "", cpu["static floor"]
    }
    function row(label, base, guarded) {
        printf "%-24s %9.3f %9.3f %7.2f %9.3f   %9.3f %9.3f %7.2f\n", label, wall[base],
               wall[guarded], wall[guarded] / wall[base], wall[guarded] - wall[base],
               cpu[base], cpu[guarded], cpu[guarded] / cpu[base]
    }' "$work/times.csv"
