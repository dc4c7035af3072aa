#!/usr/bin/env bash
# Shared by installer/install.sh and tests/run.sh: install any missing Debian
# package, then configure and build into build/. Idempotent: a second run skips
# apt and builds incrementally.
set -euo pipefail

guard_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
guard_build=${GUARD_BUILD_DIR:-$guard_root/build}

guard_packages=(libgit2-dev libboost-program-options-dev libboost-test-dev libboost-dev
                libspdlog-dev cmake g++ git pkg-config)

guard_install_packages() {
    local missing=() p
    for p in "${guard_packages[@]}" "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "git-guard: installing missing packages: ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    # A fresh machine has empty package lists until the first update.
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
        "${missing[@]}"
}

guard_build() {
    local jobs
    jobs=$(nproc 2>/dev/null || echo 2)
    if [ ! -f "$guard_build/CMakeCache.txt" ]; then
        cmake -S "$guard_root" -B "$guard_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
    fi
    cmake --build "$guard_build" -j "$jobs"
}
