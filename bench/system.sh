#!/usr/bin/env bash
# The system install's price (docs/install.md, "System install"): once /usr/bin/git is the
# shim, every git call on the machine pays its fast path. Side by side in one hyperfine run,
# for git --version, rev-parse, status, diff and log -1 in a small repository:
#   distrib   /usr/bin/git.distrib, the distribution's git, as every caller ran it before
#   wrap      a static program that only execs it: the floor of any wrapper named git
#   shim      /usr/bin/git, the shim, by absolute path (services, env -i, desktop clients)
#   shim-path `git` found on PATH=/usr/bin:/bin (cron, sudo's secure_path)
# Prints median wall time, mean CPU time and the ratios shim/wrap and shim/distrib.
# Reports; never asserts.
#
# Usage: bench/system.sh                  on a machine with a system install
#        bench/system.sh --namespace DIR  as root, without one: in a private mount
#            namespace (tests/e2e/system_namespace.bash), DIR/bin/git-guard (an installed
#            layout, cmake --install build --prefix DIR) makes the system install there,
#            and the machine's /usr/bin/git and dpkg database are never touched.
# Extra hyperfine options go in $HYPERFINE_OPTS (default: --warmup 20 --runs 300).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ "${1:-}" = --namespace ]; then
    prefix=$(cd "${2:?--namespace needs the installed prefix}" && pwd)
    upper=$(mktemp -d "${TMPDIR:-/tmp}/git-guard-bench-ns.XXXXXX")
    trap 'rmdir "$upper"' EXIT
    unshare -m --propagation private env GUARD_NS_OUTER="$(readlink /proc/self/ns/mnt)" \
        GUARD_NS_UPPER="$upper" bash -c "source '$root/tests/e2e/system_namespace.bash' &&
            system_ns_enter && '$prefix/bin/git-guard' install --system >/dev/null &&
            bash '$root/bench/system.sh'"
    exit
fi
for tool in hyperfine cc; do
    command -v "$tool" >/dev/null || { echo "system: $tool is not installed" >&2; exit 2; }
done
distrib=/usr/bin/git.distrib
[ "$(basename "$(readlink /usr/bin/git)")" = git-guard-shim ] && [ -x "$distrib" ] ||
    { echo "system: /usr/bin/git is not the shim (no system install; see --namespace)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/git-guard-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work GIT_CONFIG_NOSYSTEM=1 LC_ALL=C PATH=/usr/bin:/bin
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
repo=$work/repo
"$distrib" init -q "$repo"
for i in 1 2 3 4 5; do printf 'line %s\n' "$i" >"$repo/f$i.txt"; done
"$distrib" -C "$repo" add . && "$distrib" -C "$repo" commit -q -m files
printf '#include <unistd.h>\nint main(int c, char** v) { (void)c; execv("%s", v); return 127; }\n' \
    "$distrib" >"$work/wrap.c"
cc -O2 -static -o "$work/wrap" "$work/wrap.c"
/usr/bin/git --version >/dev/null # the exec-path mirror exists before timing starts

runs=()
for cmd in "--version" "-C $repo rev-parse HEAD" "-C $repo status --short" "-C $repo diff" \
    "-C $repo log -1 --oneline"; do
    name=${cmd##* $repo }
    runs+=(-n "distrib $name" "$distrib $cmd" -n "wrap $name" "$work/wrap $cmd"
        -n "shim $name" "/usr/bin/git $cmd" -n "shim-path $name" "git $cmd")
done
# shellcheck disable=SC2086
hyperfine -N ${HYPERFINE_OPTS:---warmup 20 --runs 300} --export-csv "$work/times.csv" "${runs[@]}" >/dev/null

# Ratios: the shim against the static wrapper (what the shim itself adds) and against git.
awk -F, '
    NR > 1 { kind = $1; sub(/ .*/, "", kind); name = $1; sub(/^[^ ]+ /, "", name)
             wall[kind, name] = $4 * 1000; cpu[kind, name] = ($5 + $6) * 1000
             if (!(name in seen)) { seen[name] = 1; order[++n] = name } }
    function table(label, t,    i, c) {
        printf "%-22s %8s %8s %8s %9s %10s %10s %11s\n", label, "distrib", "wrap", "shim",
               "shim-path", "shim/wrap", "path/wrap", "shim/distrib"
        for (i = 1; i <= n; ++i) { c = order[i]
            printf "%-22s %8.3f %8.3f %8.3f %9.3f %9.2fx %9.2fx %10.2fx\n", c, t["distrib", c],
                   t["wrap", c], t["shim", c], t["shim-path", c], t["shim", c] / t["wrap", c],
                   t["shim-path", c] / t["wrap", c], t["shim", c] / t["distrib", c] }
    }
    END { table("median wall ms", wall); print ""; table("mean cpu ms", cpu) }' "$work/times.csv"
