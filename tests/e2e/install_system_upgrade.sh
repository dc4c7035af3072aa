#!/usr/bin/env bash
# A git upgrade under a system install (docs/install.md, "System install"): dpkg unpacks
# the git package's /usr/bin/git to the diverted /usr/bin/git.distrib, /usr/bin/git stays
# the shim, and uninstall --system then restores the upgraded git byte for byte. The
# "upgrade" is the installed git package repacked with a higher version and one byte
# appended to its /usr/bin/git (so its bytes tell where dpkg put it), made and installed in
# a private mount namespace (system_namespace.bash) only.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/system_namespace.bash"

distrib_state() { stat -c '%F %a %u %g %s' "$1"; sha256sum <"$1"; }

# repack_git DIR: the installed git package as DIR/git-upgrade.deb (dpkg-repack's way).
repack_git() {
    local stage=$1/stage version path
    mkdir -p "$stage/DEBIAN"
    version=$(dpkg-query -W -f='${Version}' git)
    while IFS= read -r path; do
        [ -d "$path" ] && [ ! -L "$path" ] && { mkdir -p "$stage$path"; continue; }
        cp -a --parents "$path" "$stage" 2>/dev/null || true
    done </var/lib/dpkg/info/git.list
    printf 'x' >>"$stage/usr/bin/git"
    dpkg-query -s git | sed -e '/^Status:/d' -e '/^Conffiles:/,/^[^ ]/{/^Conffiles:/d;/^ /d}' \
        -e "s/^Version: .*/Version: $version+guardtest1/" >"$stage/DEBIAN/control"
    dpkg-query -W -f='${Conffiles}\n' git | awk 'NF { print $1 }' >"$stage/DEBIAN/conffiles"
    for script in preinst postinst prerm postrm; do
        [ ! -f "/var/lib/dpkg/info/git.$script" ] || cp -p "/var/lib/dpkg/info/git.$script" "$stage/DEBIAN/$script"
    done
    dpkg-deb -Zgzip -z1 --build "$stage" "$1/git-upgrade.deb" >/dev/null
}

inside() {
    section "a git upgrade lands at the diverted path"
    repack_git "$TEST_ROOT/pkg"
    assert_file_exists "$TEST_ROOT/pkg/git-upgrade.deb" "the installed git package is repacked as an upgrade"
    local upgraded
    upgraded=$(distrib_state "$TEST_ROOT/pkg/stage/usr/bin/git")
    run_cmd "$guard" install --system
    assert_eq 0 "$RC" "install --system succeeds: $ERR"
    run_cmd dpkg -i --force-depends "$TEST_ROOT/pkg/git-upgrade.deb"
    assert_eq 0 "$RC" "dpkg -i upgrades git under the diversion: $ERR"
    assert_eq "$prefix/libexec/git-guard/git-guard-shim" "$(readlink /usr/bin/git)" \
        "/usr/bin/git is still the shim after the upgrade (dpkg did not overwrite it)"
    assert_eq "$upgraded" "$(distrib_state /usr/bin/git.distrib)" "the upgraded git is at /usr/bin/git.distrib"
    assert_eq "$version" "$(env -i /usr/bin/git --version)" "/usr/bin/git runs it"
    run_cmd "$guard" uninstall --system
    assert_eq 0 "$RC" "uninstall --system succeeds: $ERR"
    assert_eq "$upgraded" "$(distrib_state /usr/bin/git)" \
        "/usr/bin/git is the upgraded package's git, byte for byte"
    assert_eq "" "$(dpkg-divert --listpackage /usr/bin/git)" "and the diversion is gone"
}

if [ "${1:-}" = --inside ]; then
    system_ns_enter
    prefix=$GUARD_PREFIX
    guard=$prefix/bin/git-guard
    version=$(env -i /usr/bin/git --version)
    inside
    finish
fi

system_ns_require
dpkg-query -W -f='${Status}' git 2>/dev/null | grep -q 'install ok installed' ||
    system_ns_skip "git is not installed as a Debian package here"
command -v dpkg-deb >/dev/null || system_ns_skip "dpkg-deb is not installed"
chmod 755 "$TEST_ROOT"
run_cmd cmake --install "$(cd "$GUARD_BIN_DIR/.." && pwd)" --prefix "$TEST_ROOT/prefix"
assert_eq 0 "$RC" "cmake --install puts git-guard in a prefix: $ERR"
system_ns_before
system_ns_run "$0" GUARD_PREFIX="$TEST_ROOT/prefix"
system_ns_after
finish
