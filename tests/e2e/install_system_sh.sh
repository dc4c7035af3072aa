#!/usr/bin/env bash
# installer/install.sh --system with its defaults (/usr/local): as a non-root user it
# refuses before building; as root it installs, makes /usr/bin/git the shim, guards the
# repository and runs doctor; an absolute-path removal then saves, and `git guard uninstall
# --system` restores the distribution's git byte for byte. All of it in a private mount
# namespace (system_namespace.bash), /usr/local included. It builds in this test's own build
# directory (GUARD_BUILD_DIR), which is up to date: install_sh covers the clean-clone build.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/system_namespace.bash"

distrib_state() { stat -c '%F %a %u %g %s' "$1"; sha256sum <"$1"; }

inside() {
    section "install.sh --system as a non-root user"
    chmod 755 "$TEST_ROOT"
    run_cmd setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent \
        GUARD_BUILD_DIR="$TEST_ROOT/nobody-build" bash "$src/installer/install.sh" --system "$repo"
    assert_eq 1 "$RC" "install.sh --system refuses as a non-root user"
    assert_contains "$ERR" "--system must run as root" "and says why: $ERR"
    assert_no_file "$TEST_ROOT/nobody-build" "before building anything"

    section "install.sh --system as root"
    # sudo's secure_path: a git that GUARD_TEST_GIT put first is not the shim, and doctor says so.
    run_cmd env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        bash "$src/installer/install.sh" --system "$repo"
    assert_eq 0 "$RC" "install.sh --system succeeds"
    [ "$RC" -eq 0 ] || printf '%s\n%s\n' "$OUT" "$ERR" | tail -30 | sed 's/^/       /'
    assert_contains "$OUT" "install.sh: 3/5 install: --system" "it reports the system install step"
    assert_eq /usr/local/libexec/git-guard/git-guard-shim "$(readlink /usr/bin/git)" "/usr/bin/git is the installed shim"
    assert_eq "$original" "$(distrib_state /usr/bin/git.distrib)" "the distribution's git is kept, byte for byte"
    assert_contains "$OUT" "ok    system_install: system install" "install.sh's doctor run says: system install"
    assert_contains "$OUT" "/usr/bin/git is the shim: every git on this machine is guarded" "and its hint says so"

    section "an absolute-path removal saves"
    git_real -C "$repo" worktree add -q "$TEST_ROOT/T" -b T
    echo "unsaved" >"$TEST_ROOT/T/notes.txt"
    run_cmd env -i /usr/bin/git -C "$repo" worktree remove --force "$TEST_ROOT/T"
    assert_eq 0 "$RC" "the removal succeeds: $ERR"
    assert_ne "" "$(git_real -C "$repo" for-each-ref refs/heads/stranded/T/)" \
        "the unsaved file of a tree removed by /usr/bin/git under env -i was destroyed, not saved"

    section "git guard uninstall --system"
    run_cmd /usr/local/bin/git-guard uninstall --system
    assert_eq 0 "$RC" "uninstall --system succeeds: $ERR"
    assert_eq "$original" "$(distrib_state /usr/bin/git)" "/usr/bin/git is the distribution's git again, byte for byte"
    assert_eq "$diversions" "$(dpkg-divert --list | LC_ALL=C sort)" "and dpkg-divert --list is as before"
}

if [ "${1:-}" = --inside ]; then
    system_ns_enter
    original=$(distrib_state /usr/bin/git)
    diversions=$(dpkg-divert --list | LC_ALL=C sort)
    src=$GUARD_SOURCE_DIR
    if [ -z "${GUARD_TEST_GIT:-}" ]; then # a copy: /usr/bin/git becomes the shim below
        mkdir -p "$TEST_ROOT/git" && cp -p /usr/bin/git "$TEST_ROOT/git/git" && REAL_GIT=$TEST_ROOT/git/git
    fi
    repo=$TEST_ROOT/repo
    new_repo "$repo"
    export GUARD_BUILD_DIR=$GUARD_BUILD
    inside
    finish
fi

system_ns_require
chmod 755 "$TEST_ROOT"
system_ns_before
system_ns_run "$0" GUARD_BUILD="$(cd "$GUARD_BIN_DIR/.." && pwd)"
system_ns_after
finish
