#!/usr/bin/env bash
# The README's first command: install what is missing, build, install git-guard, guard a
# repository, check it.
#
#   installer/install.sh [--prefix DIR] [--shim-dir DIR] [--lock-worktrees] [--force] [REPO]
#
# --prefix     where `cmake --install` puts git-guard (default ~/.local, /usr/local as root)
# --shim-dir   passed to `git guard install` (default ~/.local/share/git-guard/bin,
#              /usr/local/lib/git-guard/bin as root)
# --lock-worktrees, --force   passed to `git guard install`
# REPO         the repository to guard (default: the one you stand in; none: install only)
#
# GUARD_BUILD_DIR chooses the build directory (default: build/ in this checkout).
set -euo pipefail

start_dir=$PWD
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
while [ $# -gt 0 ]; do
    case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --shim-dir) shim_dir=$2; shift 2 ;;
    --lock-worktrees | --force) install_options+=("$1"); shift ;;
    -h | --help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) repo=$1; shift ;;
    esac
done

say() { printf '\ninstall.sh: %s\n' "$*"; }

say "1/5 packages: checking the build dependencies"
guard_install_packages
say "2/5 build: $guard_build"
guard_build
say "3/5 install: cmake --install to $prefix"
cmake --install "$guard_build" --prefix "$prefix"
guard=$prefix/bin/git-guard

if [ -z "$repo" ]; then
    repo=$(cd "$start_dir" && git rev-parse --show-toplevel 2>/dev/null) || {
        say "git-guard is installed in $prefix/bin; you stand in no repository, so none is guarded yet."
        echo "  guard one with: $guard -C <repo> install"
        exit 0
    }
fi
repo=$(cd "$start_dir" && cd "$repo" && pwd)

say "4/5 guard: git guard install in $repo"
"$guard" -C "$repo" install --shim-dir "$shim_dir" "${install_options[@]}"

# The doctor sees PATH as a new shell will, once the line printed above is in your profile.
say "5/5 check: git guard doctor (with $shim_dir first on PATH)"
doctor_status=0
PATH=$shim_dir:$prefix/bin:$PATH "$guard" -C "$repo" doctor || doctor_status=$?

say "done: git-guard $("$guard" version | cut -d' ' -f2) guards $repo"
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "  $prefix/bin is not on your PATH; add it so that 'git guard' finds git-guard:"
   echo "    export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
case ":$PATH:" in
"$shim_dir:"*) ;;
*) echo "  put the shim first on PATH (add to ~/.profile or ~/.bashrc):"
   echo "    export PATH=\"$shim_dir:\$PATH\"" ;;
esac
exit "$doctor_status"
