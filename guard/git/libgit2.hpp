#pragma once

#include "guard/base/error.hpp"

#include <git2.h>
#include <git2/sys/repository.h>

#include <memory>
#include <string>
#include <string_view>

namespace guard {

template <auto Free> struct Deleter {
    void operator()(auto* p) const { Free(p); }
};

using Repository = std::unique_ptr<git_repository, Deleter<git_repository_free>>;
using Index = std::unique_ptr<git_index, Deleter<git_index_free>>;
using Tree = std::unique_ptr<git_tree, Deleter<git_tree_free>>;
using Commit = std::unique_ptr<git_commit, Deleter<git_commit_free>>;
using Reference = std::unique_ptr<git_reference, Deleter<git_reference_free>>;
using Object = std::unique_ptr<git_object, Deleter<git_object_free>>;
using Config = std::unique_ptr<git_config, Deleter<git_config_free>>;
using StatusList = std::unique_ptr<git_status_list, Deleter<git_status_list_free>>;
using Diff = std::unique_ptr<git_diff, Deleter<git_diff_free>>;
using DiffStats = std::unique_ptr<git_diff_stats, Deleter<git_diff_stats_free>>;
using Revwalk = std::unique_ptr<git_revwalk, Deleter<git_revwalk_free>>;
using Signature = std::unique_ptr<git_signature, Deleter<git_signature_free>>;
using ReferenceIterator =
    std::unique_ptr<git_reference_iterator, Deleter<git_reference_iterator_free>>;

// Throws GitError with libgit2's last message when `rc` < 0; `what` names the
// operation and the path or ref it was applied to.
void check(int rc, std::string_view what);

// Initialises libgit2 once, for the rest of the process. Every entry point that opens a
// repository or a config file calls it, so a run that never needs libgit2 never pays for
// its start (Debian's build loads the system's CA certificates: ~3 ms).
void use_libgit2();

// Whether libgit2 is up in this process already (so using it costs no start-up).
bool libgit2_started();

// Initialises libgit2 for the lifetime of the object (tests; use_libgit2 elsewhere).
class LibGit2 {
public:
    LibGit2();
    ~LibGit2();
    LibGit2(const LibGit2&) = delete;
    LibGit2& operator=(const LibGit2&) = delete;
};

std::string to_hex(const git_oid& oid);
git_oid parse_oid(std::string_view hex);

// A git_buf that frees itself.
class Buf {
public:
    Buf() = default;
    ~Buf() { git_buf_dispose(&m_buf); }
    Buf(const Buf&) = delete;
    Buf& operator=(const Buf&) = delete;
    git_buf* get() { return &m_buf; }
    std::string str() const { return m_buf.ptr ? std::string(m_buf.ptr, m_buf.size) : ""; }

private:
    git_buf m_buf = GIT_BUF_INIT;
};

} // namespace guard
