#include "guard/git/libgit2.hpp"

namespace guard {

void check(int rc, std::string_view what)
{
    if (rc >= 0)
        return;
    const git_error* e = git_error_last();
    std::string message(what);
    if (e && e->message)
        message += std::string(": ") + e->message;
    throw GitError(message, rc);
}

namespace {

bool g_started = false;

void start_libgit2()
{
    git_libgit2_init();
    g_started = true;
    // Saves never touch the network: skip work libgit2 would otherwise do lazily.
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 0);
}

} // namespace

void use_libgit2()
{
    if (!g_started)
        start_libgit2(); // never shut down: the process's exit does that
}

bool libgit2_started() { return g_started; }

LibGit2::LibGit2() { start_libgit2(); }

LibGit2::~LibGit2()
{
    git_libgit2_shutdown();
    g_started = false;
}

std::string to_hex(const git_oid& oid)
{
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &oid);
    return hex;
}

git_oid parse_oid(std::string_view hex)
{
    git_oid oid;
    if (hex.size() != GIT_OID_HEXSZ || git_oid_fromstrn(&oid, hex.data(), hex.size()) < 0)
        throw Error("not an object id: '" + std::string(hex) + "'");
    return oid;
}

} // namespace guard
