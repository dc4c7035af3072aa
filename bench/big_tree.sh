#!/usr/bin/env bash
# Wall time on a big tree (issue 17, "Targets"): the guarded commands next to git alone,
# and next to an earlier installed git-guard when --before names one, side by side in one
# hyperfine run per case, on a generated repository of N files (N/50 directories of 50):
#   worktree remove --force   a linked tree with 5 edited files, 1 staged file, 1 untracked
#                             file (git alone: plain removal; the guard saves it first)
#   reset --hard              the main tree with 5 edited files (every guarded run saves)
#   checkout -- <file>        one edited file (every guarded run saves)
#   git guard status          against git status --porcelain -uall
#   save, first / repeat      git guard save against the private-index recipe (a temporary
#                             index, add -A, write-tree, commit-tree); "first" prunes the
#                             objects a save wrote before each run, "repeat" does not
# Each prepare ends with `sync`, and each command runs once untimed first (a cold cache
# would fall on the first layout alone). Each installed layout gets its own copy of the repository, installed with its own
# `git guard install`, and runs through its own shim; the watcher install starts is stopped
# (it would snapshot in the background while others are timed). Prints hyperfine's table and ratios
# against git alone; never asserts.
#
# Usage: bench/big_tree.sh [--files N] [--runs N] [--prefix DIR] [--before DIR] [--only CASES]
#   --files N     files in the repository (default 30000)
#   --runs N      timed runs per command (default 5)
#   --prefix DIR  the installed git-guard to measure (cmake --install build --prefix DIR);
#                 default: installs build/ into a temporary prefix first
#   --before DIR  an earlier installed git-guard, measured beside it ("before" and "after")
#   --only CASES  only these cases, comma-separated: remove, reset, checkout, status, save
#                 (default: all), to run a noisy case again with more runs
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
files=30000 runs=5 prefix="" before="" only=remove,reset,checkout,status,save
while (($#)); do
    case $1 in
    --files) files=${2:?--files needs a number}; shift 2 ;;
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
    --before) before=$(cd "${2:?--before needs a directory}" && pwd); shift 2 ;;
    --only) only=${2:?--only needs a list of cases}; shift 2 ;;
    -h | --help) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "big_tree: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
for tool in hyperfine python3; do
    command -v "$tool" >/dev/null || { echo "big_tree: $tool is missing (Debian package: $tool)" >&2; exit 2; }
done
[[ -z $before || -x $before/bin/git-guard ]] || { echo "big_tree: no bin/git-guard under $before" >&2; exit 2; }
source "$root/bench/installed.bash"
installed_layout big_tree

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $("$real_git" --version), $files files"

# The committed repository, made once with fast-import (every file small and distinct).
seed=$work/seed
git init -q "$seed"
python3 - "$files" <<'EOF' | git -C "$seed" fast-import --quiet
import sys
n = int(sys.argv[1])
out = sys.stdout.buffer
out.write(b"commit refs/heads/main\ncommitter bench <bench@example.com> 1704067200 +0000\ndata 5\nseed\n")
for i in range(n):
    data = b"file %d\n" % i
    out.write(b"M 100644 inline d%04d/f%02d.txt\ndata %d\n%s\n" % (i // 50, i % 50, len(data), data))
EOF
git -C "$seed" checkout -q main

# layout NAME PREFIX: a clone of the seed in $work/NAME guarded by PREFIX's git-guard, its
# shim in $work/NAME.shim ("" for git alone: no install, the real git).
declare -A shim_of repo_of bin_of
layout() {
    local name=$1 from=$2 dir=$work/$1
    git clone -q --no-hardlinks "$seed" "$dir"
    repo_of[$name]=$dir
    if [[ -n $from ]]; then
        (cd "$dir" && "$from/bin/git-guard" install --shim-dir "$dir.shim" >/dev/null)
        # The watcher (the backstop) snapshots in the background: it would take the
        # machine from the commands timed here, and earlier versions have none.
        "$from/bin/git-guard" watch --stop >/dev/null 2>&1 || true
        shim_of[$name]=$dir.shim bin_of[$name]=$from/bin
    else
        mkdir -p "$dir.shim" && ln -s "$real_git" "$dir.shim/git"
        shim_of[$name]=$dir.shim bin_of[$name]=$dir.shim
    fi
}
names=(git)
layout git ""
if [[ -n $before ]]; then
    names+=(before)
    layout before "$before"
fi
names+=(after)
layout after "$prefix"

few="d0000/f01.txt d0001/f10.txt d0002/f20.txt d0003/f30.txt d0004/f40.txt"
q() { printf '%q' "$1"; }
# run_in NAME CMD: CMD run with NAME's shim first on PATH, standing in NAME's repository.
run_in() { printf 'cd %s && PATH=%s:%s:$PATH %s' "$(q "${repo_of[$1]}")" "$(q "${shim_of[$1]}")" "$(q "${bin_of[$1]}")" "$2"; }
# drop NAME: deletes NAME's saves and prunes what they held (every save is then a first).
drop() {
    printf '%s' "git -C $(q "${repo_of[$1]}") for-each-ref --format='delete %(refname)' refs/heads/stranded refs/stranded | git -C $(q "${repo_of[$1]}") -c core.hooksPath=/dev/null update-ref --stdin && git -C $(q "${repo_of[$1]}") prune --expire=now"
}
edit() { # edit NAME: the five edited files (no trailing `;`: bench_case appends `; sync`)
    local f out=""
    for f in $few; do out+="${out:+; }echo edit >>$(q "${repo_of[$1]}/$f")"; done
    printf '%s' "$out"
}

# One hyperfine run with every layout's command per case.
results=()
# bench_case KEY TITLE PREPARE-FN COMMAND-FN: skipped unless KEY is in --only.
bench_case() {
    [[ ,$only, == *,$1,* ]] || return 0
    shift
    local title=$1 prep=$2 cmd=$3 args=() name json=$work/$RANDOM.json
    for name in "${names[@]}"; do
        # sync: the tree a prepare wrote is on disk before the clock starts (else its
        # writeback lands on whichever command runs next: 2.2-6.6 s for one removal).
        args+=(-n "$name" --prepare "$($prep "$name"); sync" "$($cmd "$name")")
    done
    echo
    echo "== $title"
    hyperfine --style basic --warmup 1 --runs "$runs" --export-json "$json" "${args[@]}" 2>&1 | grep -v '^ *Warning'
    results+=("$title|$json")
}

wt_prep() { printf '%s' "$(run_in "$1" "git worktree prune; rm -rf $(q "${repo_of[$1]}.wt"); git worktree add -q --detach $(q "${repo_of[$1]}.wt") && cd $(q "${repo_of[$1]}.wt") && for f in $few; do echo edit >>\$f; done && echo staged >s.txt && git add s.txt && echo loose >u.txt")"; }
wt_cmd() { run_in "$1" "git worktree remove --force $(q "${repo_of[$1]}.wt")"; }
bench_case remove "worktree remove --force, dirty tree" wt_prep wt_cmd

reset_prep() { printf '%s' "$(edit "$1")"; }
reset_cmd() { run_in "$1" "git reset -q --hard"; }
bench_case reset "reset --hard, 5 edited files" reset_prep reset_cmd

co_prep() { printf '%s' "echo edit >>$(q "${repo_of[$1]}/d0000/f01.txt")"; }
co_cmd() { run_in "$1" "git checkout -- d0000/f01.txt"; }
bench_case checkout "checkout -- <file>, edited" co_prep co_cmd

status_prep() { printf '%s' "$(edit "$1")"; }
status_cmd() { [[ $1 == git ]] && run_in git "git status --porcelain -uall" || run_in "$1" "git guard status"; }
bench_case status "git guard status (git alone: git status --porcelain -uall)" status_prep status_cmd

# The private-index recipe: what a save must do at least, with git alone.
recipe() {
    local r=${repo_of[git]}
    printf '%s' "cd $(q "$r") && i=\$(mktemp) && cp .git/index \$i && GIT_INDEX_FILE=\$i git add -A && t=\$(GIT_INDEX_FILE=\$i git write-tree) && git commit-tree \$t -p HEAD -m m >/dev/null; rm -f \$i"
}
save_first_prep() { [[ $1 == git ]] && printf '%s' "git -C $(q "${repo_of[git]}") prune --expire=now" || drop "$1"; }
save_cmd() { [[ $1 == git ]] && recipe || run_in "$1" "git guard save"; }
bench_case save "save, first (git alone: the private-index recipe)" save_first_prep save_cmd
save_repeat_prep() { printf 'true'; }
bench_case save "save, repeat" save_repeat_prep save_cmd

echo
echo "== ratios against git alone (mean)"
for entry in "${results[@]}"; do
    python3 - "${entry%%|*}" "${entry#*|}" <<'EOF'
import json, sys
title, path = sys.argv[1], sys.argv[2]
rows = {r["command"]: r["mean"] for r in json.load(open(path))["results"]}
base = rows["git"]
cells = "  ".join(f"{n} {rows[n] * 1000:8.1f} ms {rows[n] / base:5.2f}x" for n in rows)
print(f"{title[:44]:<44} {cells}")
EOF
done
