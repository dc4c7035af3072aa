#!/usr/bin/env bash
# git's own test scripts through the git-guard shim (not part of ctest: it needs git's
# source tree, built). Each script runs unguarded, then guarded, and prints git's summary.
#
# Usage: tests/git_suite.sh --src GITSRC --git BINDIR [--bin GUARD_BIN] [SCRIPT...]
#   --src GITSRC   a built git source tree (its t/ and t/helper/test-tool)
#   --git BINDIR   the directory of the real git the shim runs (e.g. /opt/git-2.55/bin)
#   --bin DIR      git-guard's build (default build/bin)
#   --mode MODE    unguarded, guarded or both (default both: unguarded first)
#   --log DIR      keep each script's whole verbose output in DIR/<script>.<mode>.log
#   SCRIPT...      default: the worktree and in-place destroyer scripts
# Guarded runs install the guard as `git guard install` does, in every repository a script
# makes: install runs once in a scratch repository; its hooks (the reference-transaction
# copy and its sidecar) go into a copy of git's test templates, so each `git init` and
# `git clone` gets them, and every config key it set (guard.enabled, gc.worktreePruneExpire,
# uploadpack.hideRefs, a configured hook on git >= 2.54…) reaches every git through
# GIT_CONFIG_COUNT. Both are added for the run to test-lib.sh and
# taken out again on exit (a --global setting would write .gitconfig into the trash
# directory, the test repository's work tree).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src="" real="" bin=$root/build/bin modes=(unguarded guarded) log=""
while (($#)); do
    case $1 in
    --src) src=${2:?}; shift 2 ;;
    --git) real=${2:?}; shift 2 ;;
    --bin) bin=${2:?}; shift 2 ;;
    --log) log=$(mkdir -p "${2:?}" && cd "$2" && pwd); shift 2 ;;
    --mode) [[ ${2:-} == both ]] && modes=(unguarded guarded) || modes=("${2:?}"); shift 2 ;;
    -h | --help) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) echo "git_suite: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) break ;;
    esac
done
[[ -n $src && -f $src/t/test-lib.sh ]] || { echo "git_suite: --src must name a built git source tree" >&2; exit 2; }
[[ -n $real && -x $real/git ]] || { echo "git_suite: --git must name the directory of a real git" >&2; exit 2; }
[[ -x $bin/git-guard-shim ]] || { echo "git_suite: no git-guard-shim in $bin: build it, or pass --bin" >&2; exit 2; }
scripts=("$@")
((${#scripts[@]})) || scripts=(t2400-worktree-add.sh t2401-worktree-prune.sh t2402-worktree-list.sh
    t2403-worktree-move.sh t7104-reset-hard.sh t7102-reset.sh t7201-co.sh t2060-switch.sh
    t2070-restore.sh t7300-clean.sh t3903-stash.sh)

shim=$(mktemp -d "${TMPDIR:-/tmp}/git-guard-suite.XXXXXX")
lib=$src/t/test-lib.sh
if grep -q 'GIT_CONFIG_KEY_[0-9]*=guard.enabled' "$lib"; then
    echo "git_suite: $lib already turns the guard on (an interrupted run?): restore it first" >&2
    exit 2
fi
funcs=$src/t/test-lib-functions.sh
cp "$lib" "$shim/test-lib.sh.orig"
cp "$funcs" "$shim/test-lib-functions.sh.orig"
trap 'cp "$shim/test-lib.sh.orig" "$lib"; cp "$shim/test-lib-functions.sh.orig" "$funcs"; rm -rf "$shim"' EXIT
ln -s "$(cd "$bin" && pwd)/git-guard-shim" "$shim/git"
[[ -x $bin/git-guard && -d $src/templates/blt ]] || { echo "git_suite: need $bin/git-guard and $src/templates/blt" >&2; exit 2; }

# install_like_guard: the hooks and config keys `git guard install` gives a repository.
install_like_guard() {
    local scratch=$shim/scratch keys=() q
    PATH=$real:$PATH "$real/git" init -q "$scratch"
    "$real/git" -C "$scratch" config --local --get-regexp . >"$shim/config.before"
    PATH=$real:$PATH "$bin/git-guard" -C "$scratch" install --shim-dir "$shim/installed" >/dev/null
    "$real/git" -C "$scratch" config --local --get-regexp . >"$shim/config.after"
    cp -R "$src/templates/blt" "$shim/templates"
    find "$scratch/.git/hooks" -maxdepth 1 -type f ! -name '*.sample' -exec cp -p {} "$shim/templates/hooks/" \;
    [[ -f $shim/templates/hooks/reference-transaction ]] || { echo "git_suite: install left no hook" >&2; exit 1; }
    # What install added, each line as often as it added it (hideRefs has several values).
    while read -r key value; do keys+=("$key=$value"); done < <(awk 'NR == FNR { seen[$0]++; next }
        seen[$0]-- > 0 { next } { print }' "$shim/config.before" "$shim/config.after")
    line="	export GIT_TEMPLATE_DIR='$shim/templates' GIT_CONFIG_COUNT=${#keys[@]}"
    for i in "${!keys[@]}"; do
        printf -v q '%q' "${keys[$i]#*=}"
        line+=" GIT_CONFIG_KEY_$i=${keys[$i]%%=*} GIT_CONFIG_VALUE_$i=$q"
    done
    line=${line//\\/\\\\}
    line=${line//&/\\&}
    line=${line//|/\\|}
}
install_like_guard
echo "git_suite: install's config, given to every git in guarded runs: ${line#*GIT_CONFIG_COUNT=}"

run() { # MODE SCRIPT: git's summary lines, on one line
    local out=/dev/null verbose=()
    [[ -z $log ]] || { out=$log/${2%.sh}.$1.log; verbose=(-v -x); }
    (cd "$src/t" && PATH=$real:$PATH GIT_TEST_DEFAULT_HASH=sha1 GIT_TEST_INSTALLED=$shim \
        ./"$2" "${verbose[@]}" 2>&1 | tee "$out" | grep -aE '^# (passed|failed|still)|^not ok' |
        grep -v 'TODO known breakage' | tr '\n' ' ')
}
echo "git: $("$real/git" --version); git-guard: $bin"
for mode in "${modes[@]}"; do
    if [[ $mode == guarded ]]; then
        # Before test-lib's own `git init`, so the trash repository gets the hook too (the
        # line is GIT_TEMPLATE_DIR="$GIT_TEST_TEMPLATE_DIR" on newer git, the built
        # templates/blt on 2.39).
        sed "s|^GIT_TEMPLATE_DIR=.*\$|&\n$line|" "$shim/test-lib.sh.orig" >"$lib"
        grep -q 'GIT_CONFIG_KEY_[0-9]*=guard.enabled' "$lib" || { echo "git_suite: cannot find test-lib.sh's GIT_TEMPLATE_DIR" >&2; exit 1; }
        # A script's own reference-transaction hook goes where install puts a user's hook:
        # chained behind git-guard's (test_hook writes, disables and removes that file).
        sed 's|^\(\t*\)hook_file="\$hook_dir/\$1" &&$|&\n\1if test "$1" = reference-transaction \&\& grep -q git-guard "$hook_file" 2>/dev/null; then hook_file="$hook_file.guard-chained"; fi \&\&|' \
            "$shim/test-lib-functions.sh.orig" >"$funcs"
        grep -q 'guard-chained' "$funcs" || { echo "git_suite: cannot find test_hook's hook_file in $funcs" >&2; exit 1; }
    fi
    for t in "${scripts[@]}"; do
        printf '%-26s %-9s %s\n' "$t" "$mode" "$(run "$mode" "$t")"
    done
done
