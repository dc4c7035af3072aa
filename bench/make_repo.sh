#!/usr/bin/env bash
# Generates the benchmark repository of bench/status_save.sh, deterministically:
#   - 100,000 small files in 2,000 directories (d0000/f00.txt ... d1999/f49.txt),
#     committed once with a fixed author, committer and date, into one pack;
#   - then, on disk only: 1,000 tracked files modified (each gets a line appended),
#     100 tracked files deleted, 1,000 untracked files (500 in existing directories,
#     500 in 10 new ones) and an ignored directory build-out/ of 10,000 files.
# Every file has the same content and the same commit id on every run. Committed files
# get a fixed old mtime, so no index entry is "racily clean" (git and libgit2 would
# otherwise re-read such files on every status).
#
# Usage: bench/make_repo.sh DIR
# Reuses DIR as it is when DIR/.git/bench-ready exists (delete DIR to regenerate).
set -euo pipefail

dir=${1:?usage: make_repo.sh DIR}
if [[ -e $dir/.git/bench-ready ]]; then
    echo "make_repo: reusing $dir"
    exit 0
fi
command -v python3 >/dev/null || { echo "make_repo: python3 is required" >&2; exit 2; }

# Hermetic git: no system or user config, a fixed identity and date.
home=$(mktemp -d "${TMPDIR:-/tmp}/git-guard-bench-home.XXXXXX")
trap 'rm -rf "$home"' EXIT
export HOME=$home GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
export GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'

rm -rf "$dir"
git init -q -b main "$dir"

# One process writes every file; the content is a function of the path alone.
write_files() {
    python3 - "$dir" "$1" <<'EOF'
import os, sys
root, phase = sys.argv[1], sys.argv[2]
OLD = 1704067200  # 2024-01-01T00:00:00Z

def body(name, lines=3):
    return "".join(f"{name} line {i}: the quick brown fox {hash_of(name, i)}\n" for i in range(lines))

def hash_of(name, i):
    # Deterministic across runs (Python's hash() is salted): FNV-1a of the name.
    h = 0xcbf29ce484222325
    for b in f"{name}#{i}".encode():
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return f"{h:016x}"

def write(rel, text, mtime=None):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))

tracked = [f"d{d:04d}/f{f:02d}.txt" for d in range(2000) for f in range(50)]
if phase == "commit":
    # The same bytes go to disk and, as one commit, to git fast-import: it writes a
    # single pack, where `git add` would write 100,000 loose objects and a repack
    # would then have to delete them (minutes on a slow file system).
    out = sys.stdout.buffer
    msg = b"bench: 100,000 files in 2,000 directories\n"
    out.write(b"commit refs/heads/main\n")
    for who in (b"author", b"committer"):
        out.write(who + b" bench <bench@example.com> %d +0000\n" % OLD)
    out.write(b"data %d\n%s" % (len(msg), msg))
    for rel, text in [(".gitignore", "/build-out/\n")] + [(rel, body(rel)) for rel in tracked]:
        write(rel, text, OLD)
        data = text.encode()
        out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (rel.encode(), len(data), data))
    out.write(b"done\n")
else:
    for n, rel in enumerate(tracked):
        if n % 100 == 0:            # 1,000 modified
            with open(os.path.join(root, rel), "a") as f:
                f.write("modified for the benchmark\n")
        elif n % 1000 == 50:        # 100 deleted
            os.remove(os.path.join(root, rel))
    for d in range(500):            # 500 untracked in existing directories
        rel = f"d{d * 4:04d}/new.txt"
        write(rel, body(rel))
    for d in range(10):             # 500 untracked in 10 new directories
        for f in range(50):
            rel = f"new{d:02d}/u{f:02d}.txt"
            write(rel, body(rel))
    for d in range(100):            # 10,000 ignored
        for f in range(100):
            rel = f"build-out/o{d:02d}/{f:02d}.o"
            write(rel, body(rel, 1))
EOF
}

start=$SECONDS
write_files commit | git -C "$dir" fast-import --quiet --done
# The index as `git add` and `git commit` would leave it: stat data and a full cache tree.
git -C "$dir" read-tree HEAD
git -C "$dir" update-index -q --refresh
git -C "$dir" write-tree >/dev/null
write_files change
# Let the index record the final stat data once, so each timed command starts alike.
git -C "$dir" update-index -q --refresh >/dev/null || true
touch "$dir/.git/bench-ready"
echo "make_repo: $dir ready in $((SECONDS - start)) s, HEAD $(git -C "$dir" rev-parse HEAD)"
