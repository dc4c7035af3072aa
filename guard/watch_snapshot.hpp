#pragma once
// The time layer (DESIGN §15): each live worktree of a watched repository is saved when it
// changed, at most every guard.snapshotInterval seconds, into the in-place namespace.

#include "guard/watch_repo.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <string>

namespace guard {

class Snapshots {
public:
    // Snapshots every tree whose interval has passed and that changed since its last
    // snapshot; an unchanged tree costs a status-like comparison and writes nothing.
    void take(const std::map<std::string, std::unique_ptr<RepoWatch>>& repos);
    std::chrono::steady_clock::time_point due() const { return m_due; }
    std::string last() const { return m_last; }                 // UTC of the last snapshot
    long long interval() const { return m_interval; }           // the default repositories use

private:
    std::chrono::steady_clock::time_point m_due = std::chrono::steady_clock::now() + std::chrono::hours(24);
    std::string m_last;
    long long m_interval = 60;
};

} // namespace guard
