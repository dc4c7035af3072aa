#!/usr/bin/env bash
# The .deb: cpack builds it from the build tree, dpkg -i installs it, `git guard version`
# runs the packaged git-guard. Needs root (dpkg); removes the package again afterwards
# unless it was installed before the test.
source "$(dirname "$0")/lib.sh"

build=$(cd "$GUARD_BIN_DIR/.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
    skip "dpkg -i needs root"
fi

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

section "dpkg -i"
was_installed=$(dpkg-query -W -f='${Status}' git-guard 2>/dev/null | grep -c 'install ok installed')
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
if [ "$was_installed" -eq 0 ]; then
    run_cmd dpkg -r git-guard
    assert_eq 0 "$RC" "dpkg -r removes it again"
fi

finish
