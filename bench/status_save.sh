#!/usr/bin/env bash
# git-guard's status and save against git's own commands (issues 2 and 7, "Speed"), each
# comparison side by side in one hyperfine run, on the repository of make_repo.sh
# (100,000 files; 1,000 modified, 100 deleted, 1,000 untracked, 10,000 ignored):
#   status        git-guard status TREE    vs  git --no-optional-locks status --porcelain -uall
#                 (also with core.untrackedCache=true, the cache written by one plain status,
#                 and with core.fsmonitor=true where git has its daemon)
#   save, first   git-guard save TREE      vs  the private-index recipe, and git stash create
#   save, repeat  the same, nothing new on disk since the last save
#   small save    the same in a repository of 10 files with one modified
#   start-up      git-guard version        vs  git --version
# then the peak memory (max RSS) of each command. Prints ratios against the named git
# baseline; never asserts on times. Exits 0 unless a command fails.
#
# With --before DIR, each save comparison also runs the git-guard in DIR beside this one (the
# same hyperfine run, so both see the same load): issue 34 measured its raw path this way.
#
# Usage: bench/status_save.sh [--runs N] [--bin DIR] [--before DIR] [--repo DIR] [--only small|save]
#   --runs N    timed runs per command on the big repository (default 5; the small
#               repository and start-up use 30 and 50)
#   --bin DIR   where git-guard is (default $GUARD_BIN_DIR, else build/bin)
#   --repo DIR  the generated repository, reused between runs
#               (default ${TMPDIR:-/tmp}/git-guard-bench-repo)
#   --only small  only the small save and start-up (no 100,000-file repository is built)
#   --only save   the saves alone (no status comparison)
#   --before DIR  another git-guard (an earlier build's installed libexec/git-guard) measured
#               beside this one in every save comparison
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=5
bin=${GUARD_BIN_DIR:-$root/build/bin}
repo=${TMPDIR:-/tmp}/git-guard-bench-repo
only=""
before_bin=""
while (($#)); do
    case $1 in
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --bin) bin=${2:?--bin needs a directory}; shift 2 ;;
    --repo) repo=${2:?--repo needs a directory}; shift 2 ;;
    --only) only=${2:?--only needs a part}; [[ $only == small || $only == save ]] || { echo "status_save: --only takes 'small' or 'save'" >&2; exit 2; }; shift 2 ;;
    --before) before_bin=${2:?--before needs a directory}; shift 2 ;;
    -h | --help) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "status_save: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

# Installs Debian package $2 when $1 is missing, as root only; otherwise says how.
need() {
    command -v "$1" >/dev/null && return
    if [[ $(id -u) == 0 ]]; then
        apt-get install -y -q "$2" >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q "$2" >/dev/null; }
    else
        echo "status_save: $1 is missing: run 'sudo apt-get install $2'" >&2
        exit 2
    fi
}
need hyperfine hyperfine
need /usr/bin/time time
need python3 python3
need git git
guard=$(cd "$bin" && pwd)/git-guard
[[ -x $guard ]] || { echo "status_save: no git-guard in $bin: build it, or pass --bin" >&2; exit 2; }
real_git=$(command -v git)
before=""
if [[ -n $before_bin ]]; then
    before=$(cd "$before_bin" && pwd)/git-guard
    [[ -x $before ]] || { echo "status_save: no git-guard in $before_bin" >&2; exit 2; }
fi
# with_before LABEL ARGS...: hyperfine's -n/command pair for the --before git-guard, or nothing.
with_before() {
    [[ -n $before ]] || return 0
    local label=$1
    shift
    printf '%s\0' -n "$label" "$(q "$before") $*"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/git-guard-status-save.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
mkdir -p "$HOME"

echo "== machine"
echo "date:      $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu:       $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "load:      $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
echo "git:       $("$real_git" --version)"
echo "hyperfine: $(hyperfine --version)"
echo "git-guard: $guard ($("$guard" version 2>/dev/null | head -1))"
[[ -z $before ]] || echo "before:    $before ($("$before" version 2>/dev/null | head -1))"
echo

if [[ $only != small ]]; then
    "$root/bench/make_repo.sh" "$repo"
    repo=$(cd "$repo" && pwd)
fi
small=$work/small
"$real_git" init -q -b main "$small"
for i in 0 1 2 3 4 5 6 7 8 9; do echo "small file $i" >"$small/f$i.txt"; done
"$real_git" -C "$small" add -A
"$real_git" -C "$small" commit -q -m small
echo "modified" >>"$small/f3.txt"

q() { printf '%q' "$1"; }
# Shell snippets for hyperfine, which runs them with sh from the repository's directory
# (git-guard opens the repository it is run in).
drop_stranded() { # every `git-guard save` adds a branch; these keep them from piling up
    echo "$(q "$real_git") -C $(q "$1") for-each-ref --format='delete %(refname)' refs/heads/stranded | $(q "$real_git") -C $(q "$1") update-ref --stdin"
}
prune() { echo "$(q "$real_git") -C $(q "$1") prune --expire=now"; }
recipe() { # git's private-index save: the tree's index and files are never written
    local g idx=$work/recipe-index
    g="$(q "$real_git") -C $(q "$1")"
    echo "cp $(q "$1")/.git/index $(q "$idx") && GIT_INDEX_FILE=$(q "$idx") $g add -A &&" \
        "$g commit-tree \$(GIT_INDEX_FILE=$(q "$idx") $g write-tree) -p HEAD -m m"
}

# bench NAME [hyperfine options and commands]: one side-by-side hyperfine run.
bench() {
    local name=$1
    shift
    echo "== $name"
    hyperfine --style basic --export-json "$work/$name.json" "$@"
    echo
}

names=()
cmds=()
prepares=()
# remember NAME COMMAND [PREPARE]: measured for peak memory at the end.
remember() { names+=("$1"); cmds+=("$2"); prepares+=("${3:-true}"); }

repeat_refs=0
cold=true
big() { # the measurements on the 100,000-file repository
echo "== what git-guard sees"
(cd "$repo" && "$guard" status "$repo")
echo

cd "$repo"
git_status="$(q "$real_git") --no-optional-locks -C $(q "$repo") status --porcelain -uall"
if [[ $only != save ]]; then
bench status --warmup 1 --runs "$runs" \
    -n "git status --porcelain -uall" "$git_status" \
    -n "git-guard status" "$(q "$guard") status $(q "$repo")"
remember "git status --porcelain -uall" "$git_status"
remember "git-guard status" "$(q "$guard") status $(q "$repo")"

# The same with the untracked cache on, written into the index by one plain status.
"$real_git" -C "$repo" config core.untrackedCache true
"$real_git" -C "$repo" status --porcelain -uall >/dev/null
bench status-uc --warmup 1 --runs "$runs" \
    -n "git status --porcelain -uall" "$git_status" \
    -n "git-guard status" "$(q "$guard") status $(q "$repo")"
"$real_git" -C "$repo" config --unset core.untrackedCache
"$real_git" -C "$repo" update-index --no-untracked-cache
fi

# First save: no stranded branch and none of the new blobs in the object store, so
# every command hashes and writes all 2,000 changed files.
cold="$(drop_stranded "$repo"); $(prune "$repo")"
stash="$(q "$real_git") -C $(q "$repo") stash create"
mapfile -d '' -t prior < <(with_before "git-guard save, before" save "$(q "$repo")")
bench save-first --warmup 1 --runs "$runs" --prepare "$cold" \
    -n "recipe (private index)" "$(recipe "$repo")" \
    -n "git-guard save" "$(q "$guard") save $(q "$repo")" \
    "${prior[@]}" \
    -n "git stash create" "$stash"
remember "recipe (private index)" "$(recipe "$repo")" "$cold"
remember "git-guard save" "$(q "$guard") save $(q "$repo")" "$cold"
remember "git stash create" "$stash" "$cold"

# Repeat save: one save already holds this work and its blobs are all stored.
eval "$cold"
"$guard" save "$repo" >/dev/null
mapfile -d '' -t prior < <(with_before "git-guard save, repeat, before" save "$(q "$repo")")
bench save-repeat --warmup 1 --runs "$runs" \
    -n "recipe, repeat" "$(recipe "$repo")" \
    -n "git-guard save, repeat" "$(q "$guard") save $(q "$repo")" \
    "${prior[@]}"
remember "git-guard save, repeat" "$(q "$guard") save $(q "$repo")" "$cold; $(q "$guard") save $(q "$repo") >/dev/null"
repeat_refs=$("$real_git" -C "$repo" for-each-ref refs/heads/stranded | wc -l)
eval "$cold"

# With git's own file-system monitor (core.fsmonitor=true, the built-in daemon, with the
# untracked cache), where this git has it (git >= 2.36 on macOS and Windows; the Linux
# daemon came later: `git version --build-options` says "feature: fsmonitor--daemon").
if "$real_git" version --build-options | grep -q 'fsmonitor--daemon'; then
    "$real_git" -C "$repo" config core.fsmonitor true
    "$real_git" -C "$repo" config core.untrackedCache true
    "$real_git" -C "$repo" fsmonitor--daemon start >/dev/null 2>&1 || true
    "$real_git" -C "$repo" status --porcelain -uall >/dev/null # writes the caches into the index
    "$real_git" -C "$repo" status --porcelain -uall >/dev/null
    "$guard" save "$repo" >/dev/null
    bench status-fsm --warmup 1 --runs "$runs" \
        -n "git status --porcelain -uall" "$git_status" \
        -n "git-guard status" "$(q "$guard") status $(q "$repo")"
    bench save-repeat-fsm --warmup 1 --runs "$runs" \
        -n "recipe, repeat" "$(recipe "$repo")" \
        -n "git-guard save, repeat" "$(q "$guard") save $(q "$repo")"
    "$real_git" -C "$repo" fsmonitor--daemon stop >/dev/null 2>&1 || true
    "$real_git" -C "$repo" config --unset core.fsmonitor
    "$real_git" -C "$repo" config --unset core.untrackedCache
    "$real_git" -C "$repo" update-index --no-untracked-cache --no-fsmonitor
    eval "$cold"
else
    echo "== status and save with core.fsmonitor: not measured ($("$real_git" --version) has no fsmonitor--daemon here)"
    echo
fi
}
[[ $only == small ]] || big

cd "$small"
mapfile -d '' -t prior < <(with_before "git-guard save, small, before" save "$(q "$small")")
bench save-small --warmup 3 --runs 30 --prepare "$(drop_stranded "$small")" \
    -n "recipe, small" "$(recipe "$small")" \
    -n "git-guard save, small" "$(q "$guard") save $(q "$small")" \
    "${prior[@]}" \
    -n "git stash create, small" "$(q "$real_git") -C $(q "$small") stash create"
remember "recipe, small" "$(recipe "$small")" "$(drop_stranded "$small")"
remember "git-guard save, small" "$(q "$guard") save $(q "$small")" "$(drop_stranded "$small")"
remember "git stash create, small" "$(q "$real_git") -C $(q "$small") stash create"

bench start-up -N --warmup 5 --runs 50 \
    -n "git --version" "$(q "$real_git") --version" \
    -n "git-guard version" "$(q "$guard") version"
remember "git --version" "$(q "$real_git") --version"
remember "git-guard version" "$(q "$guard") version"

# Peak memory: GNU time's max RSS of one run. For a shell snippet that is the largest
# of its processes (Linux folds waited-for grandchildren into the child's maxrss).
: >"$work/rss.tsv"
for i in "${!names[@]}"; do
    dir=$repo
    [[ ${names[$i]} == *small* || $only == small ]] && dir=$small
    (cd "$dir" && sh -c "${prepares[$i]}" && /usr/bin/time -o "$work/rss" -f %M sh -c "${cmds[$i]}" >/dev/null 2>&1) ||
        { echo "status_save: '${names[$i]}' failed" >&2; exit 1; }
    printf '%s\t%s\n' "${names[$i]}" "$(tail -1 "$work/rss")" >>"$work/rss.tsv"
done
if [[ $only != small ]]; then
    cd "$repo"
    eval "$cold"
fi

python3 - "$work" "$repeat_refs" "$runs" <<'EOF'
import json, sys
work, repeat_refs, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# (file, title, baseline, goal)
tables = [
    ("status", "status, 100,000 files", "git status --porcelain -uall", 1.0),
    ("status-uc", "status, core.untrackedCache=true", "git status --porcelain -uall", 1.0),
    ("save-first", "save, first (new blobs)", "recipe (private index)", 1.0),
    ("save-repeat", "save, repeat (nothing new on disk)", "recipe, repeat", 1.0),
    ("save-small", "save, 10 files, 1 modified", "recipe, small", 1.0),
    ("status-fsm", "status, core.fsmonitor=true", "git status --porcelain -uall", 1.0),
    ("save-repeat-fsm", "save, repeat, core.fsmonitor=true", "recipe, repeat", 1.0),
    ("start-up", "start-up", "git --version", None),
]
def ms(s): return f"{s * 1000:8.1f}"
print("== results (wall: mean ± σ, min; cpu: mean user + system; ratios against the baseline's)")
print(f"{'comparison':37} {'command':30} {'mean ms':>8} {'± σ':>7} {'min ms':>8} {'cpu ms':>8} {'ratio':>7} {'cpu':>7}  goal")
import os
for name, title, base, goal in tables:
    if not os.path.exists(f"{work}/{name}.json"):
        continue  # core.fsmonitor: not measured with this git
    results = {r["command"]: r for r in json.load(open(f"{work}/{name}.json"))["results"]}
    b = results[base]["mean"]
    cpu = lambda r: r["user"] + r["system"]
    for cmd, r in results.items():
        ratio = r["mean"] / b
        cpu_ratio = cpu(r) / cpu(results[base])
        verdict = ""
        if cmd == base:
            verdict = "baseline"
        elif goal is not None and cmd.startswith("git-guard"):
            verdict = f"≤ {goal:.2f}×: " + ("met" if ratio <= goal else "not met")
        print(f"{title:37} {cmd:30} {ms(r['mean'])} {r['stddev'] * 1000:7.1f} {ms(r['min'])} {ms(cpu(r))} {ratio:6.2f}× {cpu_ratio:6.2f}×  {verdict}")
        title = ""
if os.path.exists(f"{work}/save-small.json"):
    results = {r["command"]: r for r in json.load(open(f"{work}/save-small.json"))["results"]}
    guard, stash = results["git-guard save, small"]["mean"], results["git stash create, small"]["mean"]
    print(f"{'small save against git stash create':37} {'git-guard save, small':30} {ms(guard)} {'':7} {'':8} {'':8} "
          f"{guard / stash:6.2f}× {'':7}  ≤ 2.00×: " + ("met" if guard / stash <= 2 else "not met"))
print()
print("== peak memory (max RSS of one run, GNU time)")
print(f"{'command':30} {'MiB':>8}")
for line in open(f"{work}/rss.tsv"):
    cmd, kb = line.rstrip("\n").split("\t")
    print(f"{cmd:30} {int(kb) / 1024:8.1f}")
print()
if repeat_refs:
  print(f"stranded branches after one save and {1 + runs} repeats: {repeat_refs}"
      + (" (a repeat save reuses the equal save)" if repeat_refs == 1 else " (each repeat save added one)"))
EOF
