#!/usr/bin/env bash
# The fast paths (DESIGN.md §11): what the shim and the hook front end add to a git
# call when there is nothing to guard. Times, side by side in one hyperfine run:
#   git --version                  real git   vs the shim
#   git rev-parse HEAD             real git   vs the shim, and vs a static exec wrapper
#                                  (the ratio of what each adds: issue 35's measure)
#   git update-ref refs/heads/x    no hook    vs git-guard-hook (linked as the hook, C5)
#   git status / diff / log -1 / checkout <branch>
#                                  a static exec wrapper vs the shim (the shim's parse,
#                                  its exec-path mirror and the exec: DESIGN §11 wants
#                                  <= 1.1x the wrapper)
# plus a static process that does nothing (git-guard-hook --guard-version) as the
# floor. Prints median wall time, mean CPU time and the ratios guarded/plain.
# Reports; never asserts.
#
# Usage: bench/fast_path.sh [BIN_DIR [BEFORE_DIR]]   (default: $GUARD_BIN_DIR, else build/bin)
# BEFORE_DIR, an earlier build's binaries, adds its shim on rev-parse and its hook on
# update-ref to the same hyperfine run ("before" rows), so both are measured side by side.
# Extra hyperfine options go in $HYPERFINE_OPTS (default: --warmup 20 --runs 300).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(cd "${1:-${GUARD_BIN_DIR:-$root/build/bin}}" && pwd)
before=${2:+$(cd "$2" && pwd)}
for tool in hyperfine git cc; do
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
for repo in plain hooked hooked-before; do
    "$real_git" init -q "$work/$repo"
    "$real_git" -C "$work/$repo" commit -q --allow-empty -m bench
done
for i in 1 2 3 4 5; do printf 'line %s\n' "$i" >"$work/plain/f$i.txt"; done
"$real_git" -C "$work/plain" add . && "$real_git" -C "$work/plain" commit -q -m files
# The floor for a wrapper named `git` ahead of the real one: a static program that only
# execs it. The shim must cost no more than this plus a little.
printf '#include <unistd.h>\nint main(int c, char** v) { (void)c; execv("%s", v); return 127; }\n' \
    "$real_git" >"$work/wrap.c"
mkdir -p "$work/wrap"
cc -O2 -static -o "$work/wrap/git" "$work/wrap.c"
"$work/shim/git" --version >/dev/null # the exec-path mirror exists before timing starts
# The hook as install places it (contract C5): a link git starts directly, no shell.
ln -s "$bin/git-guard-hook" "$work/hooked/.git/hooks/reference-transaction"
"$real_git" -C "$work/hooked" config guard.enabled true
extra=()
if [ -n "$before" ]; then
    mkdir -p "$work/shim-before"
    ln -s "$before/git-guard-shim" "$work/shim-before/git"
    "$work/shim-before/git" --version >/dev/null
    ln -s "$before/git-guard-hook" "$work/hooked-before/.git/hooks/reference-transaction"
    "$real_git" -C "$work/hooked-before" config guard.enabled true
    extra=(-n "before rev-parse" "$work/shim-before/git -C $work/plain rev-parse HEAD"
        -n "before update-ref" "$real_git -C $work/hooked-before update-ref refs/heads/x HEAD")
fi

branch=$("$real_git" -C "$work/plain" symbolic-ref --short HEAD)
# shellcheck disable=SC2086
hyperfine -N ${HYPERFINE_OPTS:---warmup 20 --runs 300} --export-csv "$work/times.csv" \
    -n "static floor" "$bin/git-guard-hook --guard-version" \
    -n "git --version" "$real_git --version" \
    -n "shim --version" "$work/shim/git --version" \
    -n "git rev-parse" "$real_git -C $work/plain rev-parse HEAD" \
    -n "shim rev-parse" "$work/shim/git -C $work/plain rev-parse HEAD" \
    -n "wrap rev-parse" "$work/wrap/git -C $work/plain rev-parse HEAD" \
    -n "update-ref" "$real_git -C $work/plain update-ref refs/heads/x HEAD" \
    -n "hooked update-ref" "$real_git -C $work/hooked update-ref refs/heads/x HEAD" \
    -n "wrap status" "$work/wrap/git -C $work/plain status --short" \
    -n "shim status" "$work/shim/git -C $work/plain status --short" \
    -n "wrap diff" "$work/wrap/git -C $work/plain diff" \
    -n "shim diff" "$work/shim/git -C $work/plain diff" \
    -n "wrap log" "$work/wrap/git -C $work/plain log -1 --oneline" \
    -n "shim log" "$work/shim/git -C $work/plain log -1 --oneline" \
    -n "wrap checkout" "$work/wrap/git -C $work/plain checkout -q $branch" \
    -n "shim checkout" "$work/shim/git -C $work/plain checkout -q $branch" \
    "${extra[@]}"

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
        printf "%-24s %s\n", "", "(below: a static exec wrapper instead of git)"
        row("git status --short", "wrap status", "shim status")
        row("git diff", "wrap diff", "shim diff")
        row("git log -1", "wrap log", "shim log")
        row("git checkout <branch>", "wrap checkout", "shim checkout")
        printf "%-24s %9.3f %9s %7s %9s   %9.3f\n", "static process floor",
               wall["static floor"], "", "", "", cpu["static floor"]
        # Issue 35 measures what the shim adds to git rev-parse HEAD over what a
        # static exec wrapper adds (1.0: the shim costs no more than any wrapper).
        printf "\nshim overhead / static wrapper overhead on rev-parse HEAD: wall %.2f, cpu %.2f\n",
               (wall["shim rev-parse"] - wall["git rev-parse"]) / (wall["wrap rev-parse"] - wall["git rev-parse"]),
               (cpu["shim rev-parse"] - cpu["git rev-parse"]) / (cpu["wrap rev-parse"] - cpu["git rev-parse"])
        if ("before rev-parse" in wall) {
            printf "the same, before:                                           wall %.2f, cpu %.2f\n",
                   (wall["before rev-parse"] - wall["git rev-parse"]) / (wall["wrap rev-parse"] - wall["git rev-parse"]),
                   (cpu["before rev-parse"] - cpu["git rev-parse"]) / (cpu["wrap rev-parse"] - cpu["git rev-parse"])
            row("update-ref + hook, before", "update-ref", "before update-ref")
        }
    }
    function row(label, base, guarded) {
        printf "%-24s %9.3f %9.3f %7.2f %9.3f   %9.3f %9.3f %7.2f\n", label, wall[base],
               wall[guarded], wall[guarded] / wall[base], wall[guarded] - wall[base],
               cpu[base], cpu[guarded], cpu[guarded] / cpu[base]
    }' "$work/times.csv"
