#!/usr/bin/env bash
# The README's test command: install what is missing, build everything (the tests too)
# into build/, run every test.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../installer/setup.sh"

build=${GUARD_BUILD_DIR:-$guard_root/build}
# The end-to-end suites also drive python3 (a subprocess client), jq (--json), xxd,
# chattr (e2fsprogs), setpriv (util-linux) and git-lfs (e2e_save_bytes: a file git-lfs tracks).
guard_install_packages libboost-test-dev python3 jq xxd e2fsprogs util-linux git-lfs
# The coexistence suites drive the real hook managers: pre-commit from Debian, lefthook
# and husky from npm, into a cache the suites find (GUARD_TOOLS_DIR). Each suite skips,
# saying why, when its tool could not be installed.
export GUARD_TOOLS_DIR=${GUARD_TOOLS_DIR:-$build/tools}
install_hook_managers() {
    local tool
    for tool in pre-commit npm; do # one at a time: one that cannot be installed spoils no other
        command -v "$tool" >/dev/null || guard_apt "$tool" >/dev/null 2>&1 ||
            echo "git-guard: could not install $tool: the coexistence suites that need it skip"
    done
    # The backstop's suites drive the libraries that bypass git's command line: pygit2 and
    # dulwich from Debian, isomorphic-git from npm (into the same cache).
    /usr/bin/python3 -c 'import pygit2, dulwich' 2>/dev/null ||
        guard_apt python3-pygit2 python3-dulwich >/dev/null 2>&1 ||
        echo "git-guard: could not install python3-pygit2 and python3-dulwich: their backstop suites skip"
    command -v npm >/dev/null || return 0
    for tool in lefthook husky isomorphic-git; do
        [ -d "$GUARD_TOOLS_DIR/$tool/node_modules/$tool" ] && continue
        # --ignore-scripts: lefthook's postinstall runs `lefthook install` in the directory
        # npm was started from, which is this checkout.
        npm install --silent --ignore-scripts --no-fund --no-audit --prefix "$GUARD_TOOLS_DIR/$tool" \
            "$tool" >/dev/null 2>&1 ||
            echo "git-guard: could not install $tool from npm: its coexistence suite skips"
    done
}
[ "${GUARD_SKIP_HOOK_MANAGERS:-0}" = 1 ] || install_hook_managers
# ccache, when Debian has it: install_sh builds the product again from a clean clone with the
# installer's flags (Release, no tests), the same compilations as this build's product; the
# cache below the build directory turns them into hits (CCACHE_BASEDIR makes the two
# checkouts' paths alike). A launcher the caller chose is kept; without ccache both builds
# compile everything.
if [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ] &&
    { command -v ccache >/dev/null || guard_apt ccache >/dev/null 2>&1; }; then
    export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
    export CCACHE_DIR=${CCACHE_DIR:-$build/ccache} CCACHE_BASEDIR=${CCACHE_BASEDIR:-$guard_root}
    export CCACHE_NOHASHDIR=1
fi
# The suites run with LC_ALL=C LANG=C (tests/e2e/lib.sh), and ccache keys on the locale.
LC_ALL=C LANG=C guard_build "$build" -DCMAKE_BUILD_TYPE=Release
cd "$build"
ctest --output-on-failure -j 2 "$@"
