#pragma once

namespace guard {

// Runs the watcher in this process until it is told to stop or nothing is left to watch.
// Returns the exit code (0; 1 when another watcher holds the lock).
int run_watcher();

} // namespace guard
