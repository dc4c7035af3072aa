// start_detached (process.hpp): a child that outlives us and holds nothing of ours.
#include "guard/git/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace guard {

namespace {

// Everything git sets for a hook or a child (GIT_DIR, GIT_INDEX_FILE, …) would bind the
// detached process to the one call that started it; identity and our own settings stay.
void clear_git_environment()
{
    std::vector<std::string> names;
    for (char** e = environ; *e; ++e) {
        std::string entry = *e;
        std::string name = entry.substr(0, entry.find('='));
        if (name.starts_with("GIT_") && !name.starts_with("GIT_CONFIG_NOSYSTEM") &&
            !name.starts_with("GIT_AUTHOR_") && !name.starts_with("GIT_COMMITTER_") && !name.starts_with("GIT_GUARD_"))
            names.push_back(name);
    }
    for (const auto& name : names)
        ::unsetenv(name.c_str());
}

} // namespace

bool start_detached(const std::vector<std::string>& argv)
{
    if (argv.empty())
        return false;
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t child = ::fork();
    if (child < 0)
        return false;
    if (child == 0) {
        ::setsid();
        if (::fork() != 0)
            ::_exit(0);
        for (int fd = 3; fd < 1024; ++fd)
            ::close(fd);
        int null = ::open("/dev/null", O_RDWR);
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::dup2(null, 2);
        if (::chdir("/") != 0)
            ::_exit(127);
        clear_git_environment();
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

} // namespace guard
