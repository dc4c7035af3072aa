#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

namespace guard {

// An inter-process lock for one tree path or one ref: a Boost.Interprocess
// `file_lock` on `<common_dir>/guard/locks/<hash of key>.lock`. Held from
// construction to destruction. The descriptor survives `exec`, so a shim that
// execs git after a save keeps the tree locked until git has removed it.
class PathLock {
public:
    // Waits up to `timeout` for `key`; throws Error naming the key and the
    // holder (pid and command, as recorded by the holder) when it times out.
    PathLock(const std::filesystem::path& common_dir, const std::string& key,
             std::chrono::seconds timeout);
    ~PathLock();
    PathLock(PathLock&&) noexcept;
    PathLock& operator=(PathLock&&) noexcept;
    PathLock(const PathLock&) = delete;
    PathLock& operator=(const PathLock&) = delete;

    const std::filesystem::path& file() const;

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace guard
