#!/usr/bin/env bash
# Shared by installer/install.sh and tests/run.sh: install any missing Debian package,
# then configure and build. Idempotent: a second run skips apt and builds incrementally.
#
# guard_build_dir: where guard_build builds (GUARD_BUILD_DIR, else the caller's default).
set -euo pipefail

guard_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# What building git-guard needs; the tests add libboost-test-dev and their tools.
guard_packages=(libgit2-dev libboost-program-options-dev libboost-dev libspdlog-dev cmake g++ git
                pkg-config)

guard_missing_packages() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
    done
}

guard_apt() {
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    # A fresh machine has empty package lists until the first update.
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@"
}

guard_install_packages() {
    local missing
    mapfile -t missing < <(guard_missing_packages "${guard_packages[@]}" "$@")
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "git-guard: installing missing packages: ${missing[*]}"
    guard_apt "${missing[@]}"
}

# guard_build DIR [CMAKE OPTIONS...]: configures DIR once with the options, then builds it.
guard_build() {
    local dir=$1 jobs
    shift
    jobs=$(nproc 2>/dev/null || echo 2)
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        cmake -S "$guard_root" -B "$dir" "$@"
    fi
    cmake --build "$dir" -j "$jobs"
}
