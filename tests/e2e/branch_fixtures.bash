# Fixtures of the branch-deletion suites (hook_bypassed.sh, hooks_off.sh).
# shellcheck shell=bash

# unpushed REPO BRANCH: BRANCH off main with one commit that exists nowhere else. Prints its id.
unpushed() {
    git_real -C "$1" checkout -q -b "$2" main &&
        printf '%s\n' "$2" >"$1/$2.txt" && git_real -C "$1" add "$2.txt" &&
        git_real -C "$1" commit -q -m "work on $2" && git_real -C "$1" checkout -q main &&
        git_real -C "$1" rev-parse "$2"
}
