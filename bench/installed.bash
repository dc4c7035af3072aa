# Sourced by the benches that run the installed layout (git_processes.sh, trees.sh):
#   installed_layout NAME  makes $work (removed on exit), installs build/ into $work/prefix
# unless $prefix names an installed git-guard, and sets up a hermetic git: $HOME in $work,
# no system config, fixed identities, no automatic gc or maintenance, and `git` as the
# real git ($real_git) for the script's own set-up. Needs $root (the checkout).
installed_layout() {
    local name=$1
    real_git=$(type -P git) # the git on PATH, never the function below
    work=$(mktemp -d "${TMPDIR:-/tmp}/git-guard-$name.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    if [[ -z $prefix ]]; then
        prefix=$work/prefix
        cmake --install "$root/build" --prefix "$prefix" >/dev/null
    fi
    [[ -x $prefix/bin/git-guard ]] || { echo "$name: no bin/git-guard under $prefix" >&2; exit 2; }
    export HOME=$work/home GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
    export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
    export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
    mkdir -p "$HOME"
    git config --global init.defaultBranch main
    git config --global gc.auto 0
    git config --global maintenance.auto false
}
git() { "$real_git" "$@"; }
