# Shared by the system install suites (install_system*.sh), sourced after lib.sh: a
# private mount namespace in which /usr, /etc and /var are overlays on a tmpfs, so that
# /usr/bin/git, dpkg's database and everything dpkg -i writes (conffiles, /var/cache/man
# through man-db's trigger, /var/log/dpkg.log) change there only. The machine's own /usr/bin/git and dpkg database are never touched:
# the suite records them before, and checks them after, from outside the namespace.
#
#   if [ "${1:-}" = --inside ]; then system_ns_enter; ...checks...; finish; fi
#   system_ns_require; system_ns_before; system_ns_run "$0"; system_ns_after

k_ns_dirs=(/usr /etc /var)

# system_ns_skip MESSAGE: the suite cannot run here; exit 125 saying why.
system_ns_skip() {
    echo "SKIP: $*"
    _guard_finished=1
    cd / && rm -rf "$TEST_ROOT"
    exit 125
}

# What a system install test needs, outside the namespace.
system_ns_require() {
    [ "$(id -u)" -eq 0 ] || system_ns_skip "needs root (dpkg-divert and a private mount namespace)"
    local tool
    for tool in unshare dpkg-divert setpriv sha256sum; do
        command -v "$tool" >/dev/null || system_ns_skip "$tool is not installed"
    done
    unshare -m --propagation private true 2>/dev/null ||
        system_ns_skip "cannot make a private mount namespace here (unshare -m failed)"
    grep -qw overlay /proc/filesystems || system_ns_skip "the kernel has no overlay filesystem"
}

# The machine's state that the namespace must keep: printed, to compare.
system_ns_state() {
    sha256sum /usr/bin/git
    stat -c '%n %F %a %u %g %s %i' /usr/bin/git
    ls -la /usr/bin/git.distrib 2>&1
    dpkg-divert --list | LC_ALL=C sort
    dpkg-query -W git 2>&1
    sha256sum /var/lib/dpkg/diversions
    ls -la /etc/profile.d /etc/default
}

system_ns_before() {
    system_ns_state >"$TEST_ROOT/machine.before"
}

# system_ns_run SCRIPT [ENV=VALUE...]: SCRIPT --inside in a new private mount namespace
# (its exit code in $NS_RC), with the outer namespace's id to prove it is another one.
system_ns_run() {
    local script=$1
    shift
    mkdir -p "$TEST_ROOT/ns" # the overlays' upper layers: a tmpfs that dies with the namespace
    unshare -m --propagation private env GUARD_NS_OUTER="$(readlink /proc/self/ns/mnt)" \
        GUARD_NS_UPPER="$TEST_ROOT/ns" "$@" bash "$script" --inside && NS_RC=0 || NS_RC=$?
    if [ "$NS_RC" -eq 125 ]; then
        system_ns_skip "the private mount namespace could not be set up (see above)"
    fi
    assert_eq 0 "$NS_RC" "every check inside the private mount namespace passed"
}

# From outside: the machine's /usr/bin/git and dpkg's diversions are as they were.
system_ns_after() {
    system_ns_state >"$TEST_ROOT/machine.after"
    assert_same_file "$TEST_ROOT/machine.before" "$TEST_ROOT/machine.after" \
        "outside the namespace, /usr/bin/git, dpkg-divert --list, git's package and /etc/profile.d are unchanged"
    assert_no_file /usr/bin/.git-guard-ns-probe "the namespace's probe file never reached the machine's /usr/bin"
}

# Inside (the suite run with --inside): overlays over every directory a system install
# writes, each checked to be an overlay in a namespace that is not the caller's. Any
# doubt ends the suite with 125 before anything is written.
system_ns_enter() {
    local here dir upper
    here=$(readlink /proc/self/ns/mnt)
    [ -n "${GUARD_NS_OUTER:-}" ] && [ "$here" != "$GUARD_NS_OUTER" ] ||
        { echo "not in a mount namespace of its own: refusing to touch /usr/bin/git"; exit 125; }
    upper=${GUARD_NS_UPPER:?}
    mount -t tmpfs tmpfs "$upper" || { echo "cannot mount a tmpfs"; exit 125; }
    for dir in "${k_ns_dirs[@]}"; do
        local name=${dir//\//_}
        mkdir -p "$upper/$name/u" "$upper/$name/w"
        mount -t overlay overlay -o "lowerdir=$dir,upperdir=$upper/$name/u,workdir=$upper/$name/w" "$dir" ||
            { echo "cannot put an overlay over $dir"; exit 125; }
        [ "$(findmnt -n -o FSTYPE --target "$dir" | tail -1)" = overlay ] ||
            { echo "$dir is not the private overlay"; exit 125; }
    done
    : >/usr/bin/.git-guard-ns-probe || { echo "cannot write the overlay over /usr/bin"; exit 125; }
    hash -r
}
