#!/usr/bin/env bash
# How many git processes a guarded command starts (STYLE.md "one door to child processes",
# issue 17's targets), next to the same command with plain git. Counted from git's own
# trace: every git process that starts writes one "start" event to GIT_TRACE2_EVENT, so the
# count includes the real git that finally runs the command and every git the guard or git
# itself starts on the way. Runs on the installed layout (git guard install, the shim
# first on PATH), in a small repository with a bare origin, each case built afresh:
#   worktree remove --force, dirty   a linked tree with an edit, a staged file, an untracked file
#   branch -D, one unpushed branch   one commit no other ref holds
#   reset --hard, dirty / clean      the main tree with 3 edited files, then with none
#   checkout -- <file>, dirty / clean
# Prints a table; never asserts.
#
# Usage: bench/git_processes.sh [--prefix DIR] [--argv]
#   --prefix DIR  an installed git-guard (cmake --install build --prefix DIR); default: installs
#                 build/ into a temporary prefix first
#   --argv        also print each guarded case's git command lines (to see what is asked twice)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix="" show_argv=0
while (($#)); do
    case $1 in
    --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
    --argv) show_argv=1; shift ;;
    -h | --help) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "git_processes: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
source "$root/bench/installed.bash"
installed_layout git_processes

# fresh NAME GUARDED: a clone of a one-commit origin in $work/NAME, guarded when GUARDED=1.
fresh() {
    local dir=$work/$1
    # The last case's detached fold or the watcher may still write into it for a moment:
    # rm is tried again (a write during rm leaves "Directory not empty").
    local try
    for try in 1 2 3 4 5; do
        rm -rf "$dir" "$dir.origin" "$dir.wt" 2>/dev/null && break
        sleep 0.2
    done
    git init -q --bare "$dir.origin"
    git clone -q "$dir.origin" "$dir" 2>/dev/null || { echo "git_processes: cannot clone into $dir (something made it again)" >&2; exit 1; }
    for f in a b c d; do echo "$f" >"$dir/$f.txt"; done
    git -C "$dir" add . && git -C "$dir" commit -qm init && git -C "$dir" push -q origin main
    if [[ $2 == 1 ]]; then
        (cd "$dir" && PATH=$prefix/bin:$PATH git-guard install --shim-dir "$work/shim" >/dev/null)
    fi
}

# count GUARDED CMD...: the git processes `CMD` starts (run in the case's repository).
count() {
    local guarded=$1 trace=$work/trace path=$PATH
    shift
    rm -f "$trace"
    [[ $guarded == 1 ]] && path=$work/shim:$prefix/bin:$PATH # install's shim first, as a user has it
    # `command`: the git on PATH (the shim, when guarded), not this script's git function.
    (cd "$work/case" && PATH=$path GIT_TRACE2_EVENT=$trace command "$@" >/dev/null 2>&1) || true
    grep -c '"event":"start"' "$trace" 2>/dev/null || echo 0
    if [[ $guarded == 1 && $show_argv == 1 ]]; then
        grep '"event":"start"' "$trace" | sed 's/.*"argv":\[\(.*\)\]}$/    \1/' >&2
    fi
}

prepare() { # CASE: the state each case starts from, in $work/case
    case $1 in
    remove)
        git -C "$work/case" worktree add -q "$work/case.wt" -b wt 2>/dev/null
        echo edit >>"$work/case.wt/a.txt"
        echo staged >"$work/case.wt/s.txt" && git -C "$work/case.wt" add s.txt
        echo untracked >"$work/case.wt/u.txt" ;;
    remove-detached)
        git -C "$work/case" worktree add -q --detach "$work/case.wt" 2>/dev/null
        echo x >>"$work/case.wt/b.txt" && git -C "$work/case.wt" commit -qam "on the detached HEAD"
        echo edit >>"$work/case.wt/a.txt" ;;
    branch)
        git -C "$work/case" checkout -q -b doomed
        echo x >>"$work/case/a.txt" && git -C "$work/case" commit -qam unpushed
        git -C "$work/case" checkout -q main ;;
    dirty) for f in a b c; do echo edit >>"$work/case/$f.txt"; done ;;
    clean) ;;
    esac
}

row() { # LABEL CASE CMD...: plain git's count, then the guarded one
    local label=$1 kind=$2 plain guarded
    shift 2
    fresh case 0 && prepare "$kind" && plain=$(count 0 "$@")
    fresh case 1 && prepare "$kind" && guarded=$(count 1 "$@")
    printf '%-36s %6s %8s\n' "$label" "$plain" "$guarded"
}

# One guarded removal first, not counted: the first guarded call of a prefix asks the real
# git --exec-path once and keeps the answer (one git more, once per git binary).
fresh case 1 && prepare remove && count 1 git worktree remove --force "$work/case.wt" >/dev/null 2>&1
echo "git: $("$real_git" --version); git-guard: $prefix"
printf '%-36s %6s %8s\n' "command" "git" "guarded"
row "worktree remove --force, dirty" remove git worktree remove --force "$work/case.wt"
row "worktree remove --force, detached" remove-detached git worktree remove --force "$work/case.wt"
row "branch -D, one unpushed branch" branch git branch -D doomed
row "reset --hard, dirty tree" dirty git reset --hard
row "reset --hard, clean tree" clean git reset --hard
row "checkout -- <file>, dirty" dirty git checkout -- a.txt
row "checkout -- <file>, clean" clean git checkout -- a.txt
