#!/usr/bin/env bash
# The folders of guard/ are layers (docs/architecture.md): a file may include its own
# folder's headers and those of lower folders, never a higher folder's. Fails, naming the
# include, on the first upward one; front/ (static C) is below everything, and main.cpp,
# the entry point, above everything.
set -euo pipefail
root=${GUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
layers=(front base git judge save install modes cli)
rank() {
    local i
    for i in "${!layers[@]}"; do
        [[ ${layers[$i]} == "$1" ]] && { echo "$i"; return; }
    done
    echo -1
}
bad=0 checked=0
for folder in "${layers[@]}"; do
    [[ -d $root/guard/$folder ]] || { echo "FAIL guard/$folder is missing"; bad=$((bad + 1)); continue; }
done
shopt -s nullglob
for file in "$root"/guard/*.cpp "$root"/guard/*.hpp; do
    [[ $(basename "$file") == main.cpp ]] && continue
    echo "FAIL ${file#"$root"/} is outside every layer folder"
    bad=$((bad + 1))
done
for folder in "${layers[@]}"; do
    own=$(rank "$folder")
    for file in "$root/guard/$folder"/*.{cpp,hpp,c,h}; do
        while IFS= read -r target; do
            checked=$((checked + 1))
            to=$(rank "$target")
            if ((to < 0)); then
                echo "FAIL ${file#"$root"/} includes guard/$target/, which is no layer"
                bad=$((bad + 1))
            elif ((to > own)); then
                echo "FAIL ${file#"$root"/} ($folder) includes a higher layer's header: guard/$target/"
                bad=$((bad + 1))
            fi
        done < <(sed -n 's|^#include "guard/\([a-z_]*\)/[^"]*".*|\1|p' "$file")
    done
done
echo "$checked includes checked"
if ((bad)); then
    echo "0 passed, $bad failed"
    exit 1
fi
echo "1 passed, 0 failed"
