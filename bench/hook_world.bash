# Shared by bench/hook.sh and bench/pack_refs.sh (sourced): the gits to measure, a
# hermetic temporary HOME ($work, removed on exit), the no-op static hook, and how each
# kind of hook is put in place. Before sourcing, set $front (the git-guard-hook to link)
# after it, and pass "$@" (the gits named on the command line, if any).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gits=("$@")
if [ ${#gits[@]} -eq 0 ]; then
    gits=("$(command -v git)")
    [ -x /opt/git-2.55/bin/git ] && gits+=(/opt/git-2.55/bin/git)
fi
for tool in cc awk "${needs[@]}"; do
    command -v "$tool" >/dev/null || { echo "$(basename "$0"): $tool is not installed" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/git-guard-bench-hook.XXXXXX")
trap 'rm -rf "$work" 2>/dev/null || { sleep 3; rm -rf "$work"; }' EXIT # a detached fold may still be writing
export HOME=$work GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
printf '[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n' >"$HOME/.gitconfig"
cc -static -O2 -o "$work/noop-hook" "$root/bench/noop_hook.c"

# place KIND GIT_DIR: no hook, the no-op static hook, or git-guard's ($front), in place
# of the last.
place() {
    rm -f "$2/hooks/reference-transaction"
    case $1 in
    none) ;;
    noop) cp "$work/noop-hook" "$2/hooks/reference-transaction" ;;
    guard) ln -s "$front" "$2/hooks/reference-transaction" ;;
    esac
}

# folds-done GIT_DIR (a script, so that hyperfine's --prepare can run it too): waits (up to
# 60 s) for the detached `git guard fold --after-git` that a guarded deletion of more than
# guard.keepBranches branches leaves behind, so that it neither competes with the next
# timed run for the CPU nor holds a save ref's lock when the next round deletes the saves
# by hand (git 2.55: "cannot lock ref … File exists").
folds_done=$work/folds-done
cat >"$folds_done" <<'SCRIPT'
#!/bin/sh
i=0
while pgrep -f -- "-C $1 [f]old --after-git" >/dev/null; do
    [ $((i += 1)) -le 1200 ] || { echo "bench: a detached fold in $1 still runs after 60 s" >&2; exit 0; }
    sleep 0.05
done
SCRIPT
chmod +x "$folds_done"

median() {
    printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
