#!/usr/bin/env bash
# The .deb: cpack builds it from the build tree, dpkg -i installs it, `git guard version`
# runs the packaged git-guard, dpkg -r removes it. Needs root (dpkg). dpkg -i and dpkg -r
# happen in a private mount namespace (system_namespace.bash), so the machine's dpkg
# database never holds the package (it did: a leftover "rc" entry, and install_system_deb,
# run beside this suite, skipped on seeing the package installed).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/system_namespace.bash"

if [ "${1:-}" = --inside ]; then
    system_ns_enter
    deb=$GUARD_DEB
    section "dpkg -i, in the private namespace"
    run_cmd dpkg -i "$deb"
    assert_eq 0 "$RC" "dpkg -i installs it: $ERR"
    run_cmd env PATH=/usr/bin:/bin git guard version
    assert_eq 0 "$RC" "git guard version runs the packaged git-guard"
    assert_contains "$OUT" "git-guard " "and prints its version"
    repo=$TEST_ROOT/repo
    new_repo "$repo"
    run_cmd env PATH=/usr/bin:/bin git -C "$repo" guard install --shim-dir "$TEST_ROOT/shim"
    assert_eq 0 "$RC" "the packaged git-guard installs into a repository: $ERR"
    hook=$repo/.git/hooks/reference-transaction
    assert_same_file /usr/libexec/git-guard/git-guard-hook "$hook" "its hook is a copy of the packaged front end"
    assert_eq /usr/bin/git-guard "$(cat "$repo/.git/hooks/git-guard.path")" "the hook's sidecar names the packaged git-guard"
    env PATH=/usr/bin:/bin git -C "$repo" guard uninstall >/dev/null
    run_cmd dpkg -r git-guard
    assert_eq 0 "$RC" "dpkg -r removes it again"
    finish
fi

system_ns_require
command -v cpack >/dev/null || system_ns_skip "cpack is not installed"
build=$(cd "$GUARD_BIN_DIR/.." && pwd)
section "cpack -G DEB"
run_cmd cpack --config "$build/CPackConfig.cmake" -G DEB -B "$TEST_ROOT/pkg"
assert_eq 0 "$RC" "cpack builds a .deb"
deb=$(ls "$TEST_ROOT"/pkg/git-guard_*.deb 2>/dev/null | head -1)
assert_ne "" "$deb" "the package file is there"
contents=$(dpkg-deb -c "$deb")
for file in ./usr/bin/git-guard ./usr/libexec/git-guard/git-guard-shim ./usr/libexec/git-guard/git-guard-hook \
    ./usr/share/man/man1/git-guard.1 ./usr/share/bash-completion/completions/git-guard \
    ./usr/share/git-guard/hooks/reference-transaction ./usr/share/git-guard/hooks/post-checkout; do
    assert_contains "$contents" "$file" "the package holds $file"
done
assert_not_contains "$contents" "./usr/bin/git-guard-" "no front end in /usr/bin, where git would list it"
assert_contains "$(dpkg-deb -f "$deb" Depends)" "git (>= 1:2.38)" "the package depends on git 2.38 or newer"
system_ns_before
system_ns_run "$0" GUARD_DEB="$deb"
system_ns_after
assert_eq "" "$(dpkg-query -W -f='${Status}' git-guard 2>/dev/null || true)" "the machine's dpkg database does not know the package"
finish
