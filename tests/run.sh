#!/usr/bin/env bash
# The README's test command: install what is missing, build, run every test.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../installer/setup.sh"

# The end-to-end suites also drive python3 (a subprocess client), jq (--json), xxd,
# chattr (e2fsprogs) and setpriv (util-linux).
guard_install_packages python3 jq xxd e2fsprogs util-linux
guard_build
cd "$guard_build"
ctest --output-on-failure -j 2 "$@"
