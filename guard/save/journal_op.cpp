// The operation id written with each journal record: which records one destroyer made.
#include "guard/save/journal.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace guard {

namespace {

std::string g_op;
std::chrono::steady_clock::time_point g_op_used;

long long now_ms()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// The parent of process `pid`, from /proc (0 when it cannot be read).
long long parent_of(long long pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto close = text.rfind(')'); // the command name may hold spaces and parentheses
    if (close == std::string::npos)
        return 0;
    std::istringstream rest(text.substr(close + 1));
    std::string state;
    long long ppid = 0;
    rest >> state >> ppid;
    return ppid;
}

// GIT_GUARD_OP when the process that set it is this one, its parent or its grandparent (a
// hook of the git it ran): an id left in the environment of anything longer-lived, or
// started later, is not inherited.
std::string inherited_op()
{
    const char* env = std::getenv("GIT_GUARD_OP");
    if (!env || !*env)
        return "";
    std::string op = env;
    long long pid = std::atoll(op.c_str());
    long long parent = ::getppid();
    if (pid <= 0 || (pid != ::getpid() && pid != parent && pid != parent_of(parent)))
        return "";
    return op;
}

} // namespace

std::string journal_operation()
{
    auto now = std::chrono::steady_clock::now();
    bool idle = !g_op.empty() && now - g_op_used > std::chrono::seconds(k_op_idle_seconds);
    if (g_op.empty() || idle) {
        std::string inherited = g_op.empty() ? inherited_op() : "";
        g_op = !inherited.empty() ? inherited : std::to_string(::getpid()) + "-" + std::to_string(now_ms());
        ::setenv("GIT_GUARD_OP", g_op.c_str(), 1);
    }
    g_op_used = now;
    return g_op;
}

} // namespace guard
