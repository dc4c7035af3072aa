#pragma once

#include <stdexcept>
#include <string>

namespace guard {

// Aborts the current command; `main` prints "git-guard: error: <what>" and exits 1.
struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A malformed command line; exits 2.
struct UsageError : Error {
    using Error::Error;
};

// A libgit2 failure. `code()` is libgit2's return code, so a caller can catch
// GIT_ENOTFOUND or GIT_EEXISTS alone and let everything else propagate.
class GitError : public Error {
public:
    GitError(const std::string& message, int code) : Error(message), m_code(code) {}
    int code() const { return m_code; }

private:
    int m_code;
};

} // namespace guard
