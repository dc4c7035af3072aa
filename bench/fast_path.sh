#!/usr/bin/env bash
# The fast paths (DESIGN.md §11): what the shim and the hook front end add to a git
# call when there is nothing to guard. Times, side by side in one hyperfine run:
#   git --version                  real git   vs the shim
#   git rev-parse HEAD             real git   vs the shim
#   git update-ref refs/heads/x    no hook    vs the stub + git-guard-hook
# plus a static process that does nothing (git-guard-hook --guard-version) as the
# floor. Prints each mean and the ratio shim/git. Reports; never asserts.
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
sed "s|@GUARD_HOOK_FRONT@|$bin/git-guard-hook|" "$root/hooks/reference-transaction" \
    >"$work/hooked/.git/hooks/reference-transaction"
chmod +x "$work/hooked/.git/hooks/reference-transaction"

# shellcheck disable=SC2086
hyperfine -N ${HYPERFINE_OPTS:---warmup 20 --runs 300} --export-csv "$work/times.csv" \
    -n "static floor" "$bin/git-guard-hook --guard-version" \
    -n "git --version" "$real_git --version" \
    -n "shim --version" "$work/shim/git --version" \
    -n "git rev-parse" "$real_git -C $work/plain rev-parse HEAD" \
    -n "shim rev-parse" "$work/shim/git -C $work/plain rev-parse HEAD" \
    -n "update-ref" "$real_git -C $work/plain update-ref refs/heads/x HEAD" \
    -n "hooked update-ref" "$real_git -C $work/hooked update-ref refs/heads/x HEAD"

echo
awk -F, '
    NR > 1 { mean[$1] = $2 * 1000 }
    END {
        printf "%-28s %10s %10s %8s %10s\n", "", "git (ms)", "guard (ms)", "ratio", "added (ms)"
        row("git --version", "git --version", "shim --version")
        row("git rev-parse HEAD", "git rev-parse", "shim rev-parse")
        row("git update-ref (hook)", "update-ref", "hooked update-ref")
        printf "%-28s %10.3f\n", "static process floor", mean["static floor"]
    }
    function row(label, base, guarded) {
        printf "%-28s %10.3f %10.3f %8.2f %10.3f\n", label, mean[base], mean[guarded],
               mean[guarded] / mean[base], mean[guarded] - mean[base]
    }' "$work/times.csv"
