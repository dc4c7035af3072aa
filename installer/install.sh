#!/usr/bin/env bash
# The README's first command: install what is missing, build, install git-guard, guard a
# repository, check it.
#
#   installer/install.sh [--system] [--prefix DIR] [--shim-dir DIR] [--lock-worktrees] [--force] [REPO]
#
# --system     as root: also make /usr/bin/git the shim (`git guard install --system`:
#              dpkg-divert keeps the distribution's git at /usr/bin/git.distrib), so that
#              callers by absolute path, cron, sudo and services are guarded too; undo it
#              with `git guard uninstall --system` (docs/install.md, "System install")
# --prefix     where `cmake --install` puts git-guard (default ~/.local, /usr/local as root)
# --shim-dir   passed to `git guard install` (default ~/.local/share/git-guard/bin,
#              /usr/local/lib/git-guard/bin as root)
# --lock-worktrees, --force   passed to `git guard install`
# REPO         the repository to guard (default: the one you stand in; none: install only)
#
# It builds only what a user needs (Release, no tests) in its own directory, build-install/
# (GUARD_BUILD_DIR chooses another), and installs it stripped: tests/run.sh builds
# everything, tests included, in build/.
set -euo pipefail

start_dir=$PWD
given=("$@")
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

if [ "$(id -u)" -eq 0 ]; then
    prefix=/usr/local
    shim_dir=/usr/local/lib/git-guard/bin
else
    prefix=$HOME/.local
    shim_dir=$HOME/.local/share/git-guard/bin
fi
install_options=()
repo=
system=
while [ $# -gt 0 ]; do
    case "$1" in
    --system) system=1; shift ;;
    --prefix) prefix=$2; shift 2 ;;
    --shim-dir) shim_dir=$2; shift 2 ;;
    --lock-worktrees | --force) install_options+=("$1"); shift ;;
    -h | --help) sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) repo=$1; shift ;;
    esac
done

say() { printf '\ninstall.sh: %s\n' "$*"; }

# Before anything is built: /usr/bin/git and dpkg's diversions belong to root.
if [ -n "$system" ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: --system must run as root: it makes /usr/bin/git the shim for every user" >&2
    echo "  (dpkg-divert keeps the distribution's git); run: sudo $0 ${given[*]}" >&2
    exit 1
fi

build=${GUARD_BUILD_DIR:-$guard_root/build-install}
say "1/5 packages: checking the build dependencies"
guard_install_packages
say "2/5 build: $build (Release, without the tests)"
guard_build "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF
say "3/5 install: cmake --install --strip to $prefix"
cmake --install "$build" --prefix "$prefix" --strip
guard=$prefix/bin/git-guard
# The first version put the front ends in bin/, where git lists them as commands
# (git guard-hook, git guard-shim): they live in libexec/git-guard/ now.
for old in "$prefix/bin/git-guard-hook" "$prefix/bin/git-guard-shim"; do
    if [ -x "$old" ] && "$old" --guard-version 2>/dev/null | grep -q "^${old##*/} "; then
        rm -f "$old"
        echo "removed $old (the front ends are in $prefix/libexec/git-guard/ now)"
    fi
done
# Repositories guarded by an earlier install get hooks and a shim link that point here.
registry=$HOME/.local/share/git-guard/repos
if [ -s "$registry" ]; then
    while IFS= read -r common; do
        link=$(sed -n 's/^shim\t//p' "$common/guard/manifest" 2>/dev/null | head -1)
        [ -n "$link" ] || continue
        "$guard" --git-dir="$common" install --shim-dir "${link%/*}" >/dev/null 2>&1 &&
            echo "updated the hooks and the shim link of $common" ||
            echo "could not update $common: run '$guard -C <its worktree> install' there"
    done <"$registry"
fi

# The system install: the installed git-guard diverts /usr/bin/git and links the shim there.
if [ -n "$system" ]; then
    say "3/5 install: --system: /usr/bin/git becomes the shim (git guard install --system)"
    "$guard" install --system
fi

# shim_hint: the PATH lines a new shell needs, whatever repository is guarded.
shim_hint() {
    case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "  $prefix/bin is not on your PATH; add it so that 'git guard' finds git-guard:"
       echo "    export PATH=\"$prefix/bin:\$PATH\"" ;;
    esac
    if [ -n "$system" ]; then
        echo "  /usr/bin/git is the shim: every git on this machine is guarded, whatever PATH holds"
        echo "  an open shell may have hashed git's old location: run 'hash -r' there"
        return
    fi
    case ":$PATH:" in
    "$shim_dir:"*) ;;
    *) echo "  'git guard install' links the shim as $shim_dir/git; put it first on PATH"
       echo "  (add to ~/.profile or ~/.bashrc):"
       echo "    export PATH=\"$shim_dir:\$PATH\"" ;;
    esac
    echo "  an open shell may have hashed git's old location: run 'hash -r' there"
}

if [ -z "$repo" ]; then
    repo=$(cd "$start_dir" && git rev-parse --show-toplevel 2>/dev/null) || {
        say "git-guard is installed in $prefix; you stand in no repository, so none is guarded yet."
        echo "  guard one with: $guard -C <repo> install --shim-dir $shim_dir"
        shim_hint
        exit 0
    }
fi
repo=$(cd "$start_dir" && cd "$repo" && pwd)

say "4/5 guard: git guard install in $repo"
"$guard" -C "$repo" install --shim-dir "$shim_dir" "${install_options[@]}"

# The doctor sees PATH as a new shell will, once the line printed above is in your profile.
if [ -n "$system" ]; then
    say "5/5 check: git guard doctor (the shim is /usr/bin/git)"
else
    say "5/5 check: git guard doctor (with $shim_dir first on PATH)"
fi
doctor_status=0
caller_path=$shim_dir:$prefix/bin:$PATH
[ -z "$system" ] || caller_path=$prefix/bin:$PATH
GIT_GUARD_CALLER_PATH=$caller_path "$guard" -C "$repo" doctor || doctor_status=$?

say "done: git-guard $("$guard" version | cut -d' ' -f2) guards $repo"
shim_hint
exit "$doctor_status"
