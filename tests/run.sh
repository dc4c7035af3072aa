#!/usr/bin/env bash
# The README's test command: install what is missing, build, run every test.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../installer/setup.sh"

guard_install_packages python3
guard_build
cd "$guard_build"
ctest --output-on-failure -j 2 "$@"
