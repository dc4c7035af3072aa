#!/usr/bin/env bash
# `git guard install --system` (DESIGN §15): /usr/bin/git diverted with dpkg-divert and the
# shim in its place, so that a git called by absolute path (env -i, cron's PATH, sudo's
# secure_path) saves the work it destroys; `uninstall --system` puts the distribution's git
# back byte for byte and removes the diversion. Everything runs in a private mount
# namespace (system_namespace.bash): the machine's /usr/bin/git and dpkg database are
# checked, from outside, to be unchanged afterwards.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/system_namespace.bash"

# --- inside the namespace ------------------------------------------------------------

# The machine's git, whatever /usr/bin/git is at the moment.
distrib_state() { stat -c '%F %a %u %g %s' "$1"; sha256sum <"$1"; }

inside_refusals() {
    section "refusals change nothing"
    run_cmd setpriv --reuid=65534 --regid=65534 --clear-groups "$guard" install --system
    assert_eq 1 "$RC" "a non-root install --system fails"
    assert_contains "$ERR" "must run as root" "and says that it must run as root: $ERR"
    run_cmd setpriv --reuid=65534 --regid=65534 --clear-groups "$guard" uninstall --system
    assert_contains "$ERR" "must run as root" "a non-root uninstall --system refuses the same way"
    mkdir -m 700 "$TEST_ROOT/private"
    cp -a "$prefix" "$TEST_ROOT/private/prefix"
    run_cmd "$TEST_ROOT/private/prefix/bin/git-guard" install --system
    assert_eq 1 "$RC" "a shim that other users cannot run is refused"
    assert_contains "$ERR" "cannot be run by every user" "naming why: $ERR"
    run_cmd "$guard" install --system --force
    assert_eq 2 "$RC" "--system with a repository's option is a usage error"
    assert_eq "$original" "$(distrib_state /usr/bin/git)" "after the refusals /usr/bin/git is the distribution's"
    assert_eq "" "$(dpkg-divert --listpackage /usr/bin/git)" "and no diversion was made"
}

inside_install() {
    section "install --system"
    run_cmd "$guard" install --system
    assert_eq 0 "$RC" "install --system succeeds: $ERR"
    assert_contains "$OUT" "diverted /usr/bin/git to /usr/bin/git.distrib" "it says what it diverted"
    assert_eq LOCAL "$(dpkg-divert --listpackage /usr/bin/git)" "dpkg holds a local diversion of /usr/bin/git"
    assert_eq /usr/bin/git.distrib "$(dpkg-divert --truename /usr/bin/git)" "to /usr/bin/git.distrib"
    assert_eq "$prefix/libexec/git-guard/git-guard-shim" "$(readlink /usr/bin/git)" "/usr/bin/git is the installed shim"
    assert_eq "$original" "$(distrib_state /usr/bin/git.distrib)" "git.distrib is the distribution's git, byte for byte"
    assert_eq "$version" "$(env -i /usr/bin/git --version)" "git --version is the distribution's"
    assert_eq "$exec_path" "$(env -i /usr/bin/git --exec-path)" "git --exec-path is git's own under env -i"
    assert_eq "$exec_path" "$(env -i PATH=/usr/bin:/bin git --exec-path)" "and with cron's PATH"
    mkdir -m 777 "$TEST_ROOT/nobody"
    local nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME="$TEST_ROOT/nobody")
    assert_eq "$version" "$("${nobody[@]}" /usr/bin/git --version 2>&1)" "another user's /usr/bin/git runs the distribution's git"
    assert_eq "$exec_path" "$("${nobody[@]}" /usr/bin/git --exec-path 2>&1)" "and its git --exec-path is git's own"
    assert_eq "$prefix/libexec/git-guard/git-guard-shim" \
        "$("${nobody[@]}" /usr/bin/git -c alias.who='!readlink -f "$(command -v git)"' who 2>&1)" \
        "git's own children (a shell alias) reach the shim through that user's exec-path mirror"
    assert_file_exists /etc/profile.d/git-guard.sh "login shells get /etc/profile.d/git-guard.sh"
    assert_eq "$prefix/lib/git-guard/login/git" \
        "$(env -i HOME="$HOME" bash -lc 'command -v git')" "a login shell's git is the shim, first on PATH"
    run_cmd env -i PATH=/usr/bin:/bin git-upload-pack --advertise-refs "$repo"
    assert_eq 0 "$RC" "git-upload-pack (a link to git in /usr/bin) still runs git's own: $ERR"
    run_cmd "$guard" install --system
    assert_eq 0 "$RC" "a second install --system succeeds"
    assert_contains "$OUT" "nothing changed" "and changes nothing"
}

# remove_guarded NAME ENV...: a tree with an unsaved file, removed by /usr/bin/git (or by a
# `git` found on the given PATH) in a bare environment; the file must be saved.
remove_guarded() {
    local name=$1 tree=$TEST_ROOT/$1
    shift
    git_real -C "$repo" worktree add -q "$tree" -b "$name"
    echo "unsaved $name" >"$tree/notes.txt"
    run_cmd env -i "$@" worktree remove --force "$tree"
    assert_eq 0 "$RC" "$name: the removal succeeds: $ERR"
    assert_no_file "$tree" "$name: the tree is gone"
    local ref
    ref=$(git_real -C "$repo" for-each-ref --format='%(refname)' "refs/heads/stranded/$name/")
    assert_ne "" "$ref" "$name: the unsaved file of a tree removed by an absolute-path git was destroyed, not saved"
    assert_eq "unsaved $name" "$(git_real -C "$repo" show "$ref:notes.txt" 2>&1)" "$name: the save holds the file"
}

inside_guarded() {
    section "absolute-path callers are guarded"
    run_cmd env PATH=/usr/bin:/bin "$guard" -C "$repo" install --shim-dir "$TEST_ROOT/shim"
    assert_eq 0 "$RC" "the repository is guarded by git-guard run with the system git: $ERR"
    remove_guarded envi /usr/bin/git -C "$repo"
    remove_guarded cron PATH=/usr/bin:/bin git -C "$repo"
    remove_guarded sudo PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root git -C "$repo"
    run_cmd env -i PATH=/usr/bin:/bin "$guard" -C "$repo" doctor
    assert_contains "$OUT" "ok    system_install: system install: /usr/bin/git is the git-guard shim" \
        "doctor says: system install, /usr/bin/git is the shim"
    assert_contains "$OUT" "ok    real_git: git $(cut -d' ' -f3 <<<"$version" | cut -d. -f1,2) at /usr/bin/git.distrib" \
        "doctor finds the distribution's git at the diverted path"
    assert_contains "$OUT" "ok    exec_path" "doctor: the exec-path mirror is right"
    run_cmd env -i PATH=/usr/bin:/bin:"$prefix/bin" HOME=/root git -C "$repo" guard doctor
    assert_contains "$OUT" "ok    system_install: system install" "git guard doctor through the shim says the same"
}

inside_broken() {
    section "a broken system install: doctor says what to do"
    rm /usr/bin/git
    run_cmd "$guard" -C "$repo" doctor
    assert_eq 1 "$RC" "doctor fails when the shim is missing"
    assert_contains "$OUT" "FAIL  system_install: broken system install: /usr/bin/git is diverted to /usr/bin/git.distrib but /usr/bin/git is missing" \
        "doctor names the missing shim"
    assert_contains "$OUT" "install --system (puts the shim back)" "and the fix"
    ln -s /nonexistent/git-guard-shim /usr/bin/git
    run_cmd "$guard" -C "$repo" doctor
    assert_contains "$OUT" "a dangling link to /nonexistent/git-guard-shim" "doctor names a dangling shim link"
    run_cmd "$guard" install --system
    assert_eq 0 "$RC" "install --system repairs it: $ERR"
    assert_eq "$prefix/libexec/git-guard/git-guard-shim" "$(readlink /usr/bin/git)" "the shim is back at /usr/bin/git"
    assert_eq "$version" "$(env -i /usr/bin/git --version)" "and git runs again"
}

inside_uninstall() {
    section "uninstall --system restores the distribution's git byte for byte"
    run_cmd env PATH="/usr/bin:/bin:$prefix/bin" git guard uninstall --system
    assert_eq 0 "$RC" "git guard uninstall --system, run through the shim itself, succeeds: $ERR"
    assert_eq "$original" "$(distrib_state /usr/bin/git)" "/usr/bin/git is the distribution's git again, byte for byte"
    assert_eq "" "$(dpkg-divert --listpackage /usr/bin/git)" "the diversion is gone"
    assert_eq "$diversions" "$(dpkg-divert --list | LC_ALL=C sort)" "dpkg-divert --list is as before the install"
    assert_no_file /usr/bin/git.distrib "no git.distrib is left"
    assert_no_file /etc/profile.d/git-guard.sh "the profile.d entry is gone"
    assert_no_file "$prefix/lib/git-guard/login" "and so is the login shells' shim directory"
    run_cmd "$guard" uninstall --system
    assert_eq 0 "$RC" "a second uninstall --system succeeds"
    assert_contains "$OUT" "nothing changed" "and changes nothing"
    assert_eq "$original" "$(distrib_state /usr/bin/git)" "/usr/bin/git is still the distribution's"
    run_cmd "$guard" -C "$repo" doctor
    assert_contains "$OUT" "ok    system_install: PATH only" "doctor says: PATH only"
    run_cmd "$guard" install --system
    assert_eq 0 "$RC" "a second install after the uninstall succeeds"
    run_cmd "$guard" uninstall --system
    assert_eq "$original" "$(distrib_state /usr/bin/git)" "and its uninstall restores git byte for byte again"
}

if [ "${1:-}" = --inside ]; then
    system_ns_enter
    prefix=$GUARD_PREFIX
    guard=$prefix/bin/git-guard
    original=$(distrib_state /usr/bin/git)
    version=$(env -i /usr/bin/git --version)
    exec_path=$(env -i /usr/bin/git --exec-path)
    diversions=$(dpkg-divert --list | LC_ALL=C sort)
    if [ -z "${GUARD_TEST_GIT:-}" ]; then # a copy: /usr/bin/git becomes the shim below
        mkdir -p "$TEST_ROOT/git" && cp -p /usr/bin/git "$TEST_ROOT/git/git" && REAL_GIT=$TEST_ROOT/git/git
    fi
    repo=$TEST_ROOT/repo
    new_repo "$repo"
    chmod 755 "$TEST_ROOT"
    inside_refusals
    inside_install
    inside_guarded
    inside_broken
    inside_uninstall
    finish
fi

# --- outside ---------------------------------------------------------------------------

system_ns_require
chmod 755 "$TEST_ROOT" # /usr/bin/git will run the shim in here, for every user
section "the installed layout"
run_cmd cmake --install "$(cd "$GUARD_BIN_DIR/.." && pwd)" --prefix "$TEST_ROOT/prefix"
assert_eq 0 "$RC" "cmake --install puts git-guard in a prefix: $ERR"
system_ns_before
system_ns_run "$0" GUARD_PREFIX="$TEST_ROOT/prefix"
system_ns_after
finish
