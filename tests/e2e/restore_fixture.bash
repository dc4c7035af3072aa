# Layout-2 saves (contract C1) built with plain git plumbing, for the restore suites, until
# the engine makes them. Sourced after lib.sh.

# snapshot_tree TREE OUT: every observable fact of TREE into the file OUT: HEAD, the branch,
# status --porcelain=v2, diff, diff --cached, and each file's mode, type and bytes.
snapshot_tree() {
    local tree=$1 out=$2
    {
        echo "HEAD $(git_real -C "$tree" rev-parse HEAD)"
        echo "branch $(git_real -C "$tree" symbolic-ref -q HEAD || echo detached)"
        echo "-- status"
        git_real -C "$tree" status --porcelain=v2 --untracked-files=all --ignore-submodules=none
        echo "-- diff"
        git_real -C "$tree" diff
        echo "-- diff --cached"
        git_real -C "$tree" diff --cached
        echo "-- files"
        (cd "$tree" && find . -path ./.git -prune -o -path '*/.git' -prune -o -print | LC_ALL=C sort |
            while read -r f; do
                [ "$f" = . ] && continue
                if [ -L "$f" ]; then
                    echo "$f link $(readlink "$f")"
                elif [ -d "$f" ]; then
                    echo "$f dir"
                else
                    echo "$f $(stat -c %a "$f") $(sha1sum <"$f" | cut -c1-40)"
                fi
            done)
    } >"$out" 2>&1
}

# layout2_commit TREE REASON: prints the id of a layout-2 save commit of TREE's work (nested
# repositories listed in $NESTED_PATHS, relative to TREE, saved recursively), writing nothing
# to TREE itself.
layout2_commit() {
    local tree=$1 reason=$2 head itree icommit index_trailer stree git_dir priv branch
    git_dir=$(git_real -C "$tree" rev-parse --absolute-git-dir)
    head=$(git_real -C "$tree" rev-parse HEAD)
    branch=$(git_real -C "$tree" symbolic-ref -q --short HEAD || echo detached)
    itree=$(git_real -C "$tree" write-tree)
    priv=$(mktemp "$TEST_ROOT/index.XXXX")
    cp "$git_dir/index" "$priv"
    local nested_trailers="" nested_parents="" p n nhead nbranch
    for p in ${NESTED_PATHS:-}; do
        [ -d "$tree/$p/.git" ] || continue
        n=$(NESTED_PATHS= layout2_commit "$tree/$p" "$reason")
        nhead=$(git_real -C "$tree/$p" rev-parse HEAD)
        nbranch=$(git_real -C "$tree/$p" symbolic-ref -q --short HEAD || echo detached)
        git_real -C "$tree/$p" update-ref refs/fixture/save "$n"
        git_real -C "$tree" fetch -q "$tree/$p" "+refs/fixture/save:refs/fixture/nested"
        git_real -C "$tree" update-ref -d refs/fixture/nested
        git_real -C "$tree/$p" update-ref -d refs/fixture/save
        nested_trailers="${nested_trailers}Stranded-Nested: $n $p
Stranded-Nested-Head: $nhead $p
Stranded-Nested-Branch: $nbranch $p
"
        nested_parents="$nested_parents -p $n"
    done
    (cd "$tree" && GIT_INDEX_FILE=$priv git_real add -A -- . 2>/dev/null)
    for p in ${NESTED_PATHS:-}; do
        [ -d "$tree/$p/.git" ] || continue
        n=$(printf '%s' "$nested_trailers" | awk -v p="$p" '$1 == "Stranded-Nested:" && $3 == p { print $2 }')
        (cd "$tree" && GIT_INDEX_FILE=$priv git_real update-index --add --cacheinfo "160000,$n,$p")
    done
    stree=$(cd "$tree" && GIT_INDEX_FILE=$priv git_real write-tree)
    rm -f "$priv"
    local parents="-p $head"
    if [ "$itree" = "$(git_real -C "$tree" rev-parse "HEAD^{tree}")" ]; then
        index_trailer=head
    elif [ "$itree" = "$stree" ]; then
        index_trailer=worktree
    else
        icommit=$(git_real -C "$tree" commit-tree "$itree" -p "$head" -m "index of $tree")
        index_trailer=$icommit
        parents="$parents -p $icommit"
    fi
    local own_trailers="" own_parents="" name oid
    while read -r oid name; do
        [ -n "$oid" ] || continue
        own_trailers="${own_trailers}Stranded-Ref: $oid $name
"
        own_parents="$own_parents -p $oid"
    done < <(git_real -C "$tree" for-each-ref --format='%(objectname) %(refname)' refs/worktree refs/bisect)
    git_real -C "$tree" commit-tree "$stree" $parents $nested_parents $own_parents -m "stranded: uncommitted work from $tree ($branch)

Held fixture work.

Stranded-Layout: 2
Stranded-Index: $index_trailer
${nested_trailers}${own_trailers}Stranded-From: $tree
Stranded-Branch: $branch
Stranded-Head: $head
Stranded-Reason: $reason"
}

# layout2_save TREE NAME REASON: the save commit of TREE under refs/heads/stranded/NAME/<stamp>;
# prints the ref.
layout2_save() {
    local commit ref
    commit=$(layout2_commit "$1" "$3")
    ref=refs/heads/stranded/$2/$(date -u +%Y%m%dT%H%M%S).$(printf '%03d' $((RANDOM % 1000)))Z
    git_real -C "$1" update-ref "$ref" "$commit" ""
    journal_save "$1" "$ref"
    printf '%s\n' "$ref"
}

# journal_save REPO REF: the journal line the engine writes with each save it makes, so the
# save reads as made here (a save no journal records came from elsewhere).
journal_save() {
    local common commit
    common=$(git_real -C "$1" rev-parse --path-format=absolute --git-common-dir)
    commit=$(git_real -C "$1" rev-parse "$2")
    mkdir -p "$common/guard"
    printf '{"time":"2024-01-01T00:00:00.000Z","kind":"save","ref":"%s","commit":"%s","path":null,"branch":null,"reason":"fixture","detail":null,"remote":null,"ok":true,"pid":1}\n' \
        "$2" "$commit" >>"$common/guard/journal.jsonl"
}

# work_tree_with_everything TREE: a staged new file, an unstaged edit, a partially staged
# file, a deleted tracked file, an untracked file in a new directory, an executable-bit
# change and a symlink (TREE's HEAD holds a.txt, b.txt, c.txt, d.sh, gone.txt).
work_tree_with_everything() {
    local t=$1
    printf 'staged new\n' >"$t/new.txt" && git_real -C "$t" add new.txt
    printf 'a edited\n' >"$t/a.txt"
    printf 'b staged\n' >"$t/b.txt" && git_real -C "$t" add b.txt && printf 'b staged\nthen edited\n' >"$t/b.txt"
    git_real -C "$t" rm -q gone.txt
    mkdir -p "$t/newdir/deeper" && printf 'untracked\n' >"$t/newdir/deeper/u.txt"
    chmod +x "$t/d.sh"
    ln -s a.txt "$t/link"
}

# base_files REPO: the commit work_tree_with_everything expects.
base_files() {
    local r=$1 f
    for f in a.txt b.txt c.txt gone.txt; do printf '%s\n' "$f" >"$r/$f"; done
    printf '#!/bin/sh\necho d\n' >"$r/d.sh"
    git_real -C "$r" add a.txt b.txt c.txt gone.txt d.sh
    git_real -C "$r" commit -q -m "base files"
}

# base_repo REPO: a guarded repository holding the commit work_tree_with_everything expects.
base_repo() {
    new_repo "$1"
    base_files "$1"
    git_real -C "$1" config guard.enabled true
}
