#!/usr/bin/env bash
# The .deb's system install (docs/install.md, "The .deb"): made by postinst only when
# /etc/default/git-guard says SYSTEM_INSTALL=yes, or by hand with git-guard install
# --system; undone by prerm when the package goes, so /usr/bin/git never names a removed
# shim. dpkg -i, dpkg -r and the diversion all happen in a private mount namespace
# (system_namespace.bash); the machine's dpkg database is checked unchanged afterwards.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/system_namespace.bash"

distrib_state() { stat -c '%F %a %u %g %s' "$1"; sha256sum <"$1"; }

# absolute_removal NAME: a tree with an unsaved file, removed by /usr/bin/git under env -i.
absolute_removal() {
    local tree=$TEST_ROOT/$1
    git_real -C "$repo" worktree add -q "$tree" -b "$1"
    echo "unsaved $1" >"$tree/notes.txt"
    run_cmd env -i /usr/bin/git -C "$repo" worktree remove --force "$tree"
    assert_eq 0 "$RC" "$1: the removal succeeds: $ERR"
    assert_ne "" "$(git_real -C "$repo" for-each-ref "refs/heads/stranded/$1/")" \
        "$1: the unsaved file of a tree removed by /usr/bin/git was destroyed, not saved"
}

inside_flagged() {
    section "dpkg -i with SYSTEM_INSTALL=yes makes the system install"
    echo SYSTEM_INSTALL=yes >/etc/default/git-guard
    run_cmd dpkg -i "$deb"
    assert_eq 0 "$RC" "dpkg -i installs the package: $ERR"
    assert_eq /usr/libexec/git-guard/git-guard-shim "$(readlink /usr/bin/git)" "postinst linked the packaged shim at /usr/bin/git"
    assert_eq "$original" "$(distrib_state /usr/bin/git.distrib)" "the distribution's git is kept at /usr/bin/git.distrib"
    run_cmd env -i PATH=/usr/bin:/bin git -C "$repo" guard install --shim-dir "$TEST_ROOT/shim"
    assert_eq 0 "$RC" "the packaged git-guard guards a repository through /usr/bin/git: $ERR"
    absolute_removal flagged
    run_cmd dpkg -i "$deb"
    assert_eq 0 "$RC" "a reinstall (an upgrade) succeeds"
    assert_eq /usr/libexec/git-guard/git-guard-shim "$(readlink /usr/bin/git)" "and keeps the system install"
    run_cmd dpkg -r git-guard
    assert_eq 0 "$RC" "dpkg -r removes the package: $ERR"
    assert_eq "$original" "$(distrib_state /usr/bin/git)" "prerm put the distribution's git back, byte for byte"
    assert_eq "" "$(dpkg-divert --listpackage /usr/bin/git)" "and removed the diversion"
    rm /etc/default/git-guard
}

inside_by_hand() {
    section "dpkg -i alone leaves /usr/bin/git; git-guard install --system makes it"
    run_cmd dpkg -i "$deb"
    assert_eq 0 "$RC" "dpkg -i installs the package"
    assert_eq "$original" "$(distrib_state /usr/bin/git)" "without the flag, /usr/bin/git stays the distribution's"
    run_cmd /usr/bin/git-guard install --system
    assert_eq 0 "$RC" "git-guard install --system makes the system install: $ERR"
    absolute_removal by_hand
    run_cmd dpkg -r git-guard
    assert_eq 0 "$RC" "dpkg -r removes the package"
    assert_eq "$original" "$(distrib_state /usr/bin/git)" "prerm restored the distribution's git byte for byte"
    assert_eq "$diversions" "$(dpkg-divert --list | LC_ALL=C sort)" "dpkg-divert --list is as before"
    assert_no_file /usr/libexec/git-guard "nothing of the package is left in /usr/libexec (the exec-path mirror went too)"
}

if [ "${1:-}" = --inside ]; then
    system_ns_enter
    deb=$GUARD_DEB
    original=$(distrib_state /usr/bin/git)
    diversions=$(dpkg-divert --list | LC_ALL=C sort)
    if dpkg-query -W -f='${Status}' git-guard 2>/dev/null | grep -q 'install ok installed'; then
        echo "git-guard is installed as a package here already"
        exit 125
    fi
    if [ -z "${GUARD_TEST_GIT:-}" ]; then # a copy: /usr/bin/git becomes the shim below
        mkdir -p "$TEST_ROOT/git" && cp -p /usr/bin/git "$TEST_ROOT/git/git" && REAL_GIT=$TEST_ROOT/git/git
    fi
    repo=$TEST_ROOT/repo
    new_repo "$repo"
    inside_flagged
    inside_by_hand
    finish
fi

system_ns_require
command -v cpack >/dev/null || system_ns_skip "cpack is not installed"
section "cpack -G DEB"
run_cmd cpack --config "$(cd "$GUARD_BIN_DIR/.." && pwd)/CPackConfig.cmake" -G DEB -B "$TEST_ROOT/pkg"
assert_eq 0 "$RC" "cpack builds a .deb: $ERR"
deb=$(ls "$TEST_ROOT"/pkg/git-guard_*.deb 2>/dev/null | head -1)
assert_ne "" "$deb" "the package file is there"
assert_contains "$(dpkg-deb -I "$deb")" "prerm" "the package has its prerm, which undoes the system install"
system_ns_before
system_ns_run "$0" GUARD_DEB="$deb"
system_ns_after
finish
