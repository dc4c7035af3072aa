// The watcher's revival from any git call (DESIGN §15, issue 38 item 9): one probe of the
// watcher's lock on the shim's fast path, and a detached start of the full binary's
// watcher when none holds it.
#pragma once

// Whether a watcher should run but none does: its lock file exists (a watcher ran here),
// nobody holds the lock, the user did not stop it (`git guard watch --stop`), and the
// registry names repositories. One open and one flock when a watcher runs.
int watcher_is_dead(void);

// Starts `full` (the git-guard binary) as `git-guard watch --foreground`, detached: its own
// session, std fds on /dev/null, no GIT_* variable of the caller. Returns at once.
void start_watcher(const char* full);
