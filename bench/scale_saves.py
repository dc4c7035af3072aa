#!/usr/bin/env python3
# Synthetic saves of exactly the product's shape, for bench/scale.sh: N in-place saves
# (save commits of layout 2 with git-guard's message and trailers, one changed file each,
# under refs/stranded/t<k>/<stamp>) and N branch-deletion saves (a unique commit on the
# branch, the ref pointing at its tip, under refs/heads/stranded/b<k>/<stamp>), 50 trees and
# 50 branches in turn, with the journal lines git-guard writes for them. Writes the
# fast-import stream on stdout and appends the journal to JOURNAL.
#
#   scale_saves.py REPO_PATH N HEAD_OID JOURNAL | git fast-import --quiet
import json
import sys
import time

repo, n, head, journal = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
out = sys.stdout.buffer
t0 = 1700000000


def stamp(i):
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(t0 + i)) + ".%03dZ" % (i % 1000)


def iso(i):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t0 + i)) + ".%03dZ" % (i % 1000)


def commit(ref, when, message, files, parent):
    data = message.encode()
    out.write(b"commit %s\ncommitter git-guard <git-guard@localhost> %d +0000\ndata %d\n%s\nfrom %s\n"
              % (ref.encode(), when, len(data), data, parent.encode()))
    for path, text in files:
        body = text.encode()
        out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(body), body))
    out.write(b"\n")


with open(journal, "a") as j:
    for i in range(n):
        tree = "t%d" % (i % 50)
        ref = "refs/stranded/%s/%s" % (tree, stamp(i))
        path = "%s/%s" % (repo, tree)
        message = ("stranded: what reset --hard destroyed in %s (main)\n\nHeld 1 path(s): README.\n\n"
                   "Stranded-Layout: 2\nStranded-Index: head\nStranded-Scope: destroyed\n"
                   "Stranded-From: %s\nStranded-Branch: main\nStranded-Head: %s\n"
                   "Stranded-Reason: reset --hard\n" % (path, path, head))
        commit(ref, t0 + i, message, [("README", "in-place work %d\n" % i)], head)
        j.write(json.dumps({"time": iso(i), "kind": "save", "ref": ref, "commit": None, "path": path,
                            "branch": "main", "reason": "reset --hard", "detail": "1 path(s)",
                            "remote": None, "ok": True, "pid": 1}, separators=(",", ":")) + "\n")
        branch = "b%d" % (i % 50)
        ref = "refs/heads/stranded/%s/%s" % (branch, stamp(i))
        commit(ref, t0 + i, "work on %s, %d\n" % (branch, i), [("b.txt", "branch work %d\n" % i)], head)
        j.write(json.dumps({"time": iso(i), "kind": "save", "ref": ref, "commit": None, "path": None,
                            "branch": branch, "reason": "branch delete", "detail": "commits only",
                            "remote": None, "ok": True, "pid": 1}, separators=(",", ":")) + "\n")
