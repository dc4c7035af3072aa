#include "guard/base/error.hpp"
#include "guard/base/lock.hpp"
#include "guard/git/process.hpp"
#include "tests/unit/temp_repo.hpp"

#include <boost/test/unit_test.hpp>

#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <poll.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using guard::PathLock;
using guard::test::TempRepo;

namespace {

// A file_lock does not exclude threads of one process, so every contender here is a
// forked child. The child runs `body` and exits with its result, 99 when it threw: it must
// never return into the test framework.
pid_t spawn(const std::function<int()>& body)
{
    pid_t pid = ::fork();
    BOOST_REQUIRE_MESSAGE(pid >= 0, "fork failed");
    if (pid == 0) {
        int code = 99;
        try {
            code = body();
        } catch (...) {
        }
        ::_exit(code);
    }
    return pid;
}

int wait_exit(pid_t pid)
{
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A one-way signal between processes. Both ends are close-on-exec, so the reader also
// sees end-of-file once the writer has exec'd.
struct Pipe {
    int fds[2] = {-1, -1};
    Pipe() { BOOST_REQUIRE_MESSAGE(::pipe2(fds, O_CLOEXEC) == 0, "pipe2 failed"); }
    ~Pipe()
    {
        for (int fd : fds)
            if (fd >= 0)
                ::close(fd);
    }
    void close_end(int i)
    {
        ::close(fds[i]);
        fds[i] = -1;
    }
    void send() { (void)!::write(fds[1], "x", 1); }
    // True when a byte arrived within `timeout`; false on timeout or end-of-file.
    bool receive(std::chrono::milliseconds timeout = 10s)
    {
        pollfd p{fds[0], POLLIN, 0};
        char c = 0;
        return ::poll(&p, 1, static_cast<int>(timeout.count())) == 1 && ::read(fds[0], &c, 1) == 1;
    }
};

fs::path common_dir(const TempRepo& repo)
{
    return repo.path() / ".git";
}

// Holds `key` in a child until `release` is signalled, telling `held` once it has the lock.
pid_t hold_in_child(const TempRepo& repo, const std::string& key, Pipe& held, Pipe& release)
{
    return spawn([&] {
        PathLock lock(common_dir(repo), key, 5s);
        held.send();
        return release.receive(30s) ? 0 : 3;
    });
}

bool can_lock_now(const TempRepo& repo, const std::string& key)
{
    try {
        PathLock lock(common_dir(repo), key, 0s);
        return true;
    } catch (const guard::Error&) {
        return false;
    }
}


size_t lock_files(const TempRepo& repo)
{
    size_t n = 0;
    std::error_code ec;
    for (fs::directory_iterator it(common_dir(repo) / "guard" / "locks", ec), end; !ec && it != end; it.increment(ec))
        n += it->path().extension() == ".lock";
    return n;
}

// `count` processes, each holding key `<prefix><i>` and then exec'ing /bin/true: holders
// that never run their release, as the shim is once it exec's git.
void exec_holders(const TempRepo& repo, const std::string& prefix, int count)
{
    for (int i = 0; i < count; ++i) {
        pid_t child = spawn([&]() -> int {
            PathLock lock(common_dir(repo), prefix + std::to_string(i), 5s);
            guard::exec({"/bin/true"});
        });
        BOOST_REQUIRE_MESSAGE(wait_exit(child) == 0, "an exec'ing holder failed");
    }
}

// 8 processes each add 1 to a counter file 25 times under the lock "counter", calling
// `between(process, n)` (when given) after each increment; the count must be exact.
void count_in_processes(const TempRepo& repo, const std::function<void(int, int)>& between)
{
    auto counter = repo.root() / "counter";
    guard::test::write_file(counter, "0");
    constexpr int k_processes = 8, k_increments = 25;
    std::vector<pid_t> children;
    children.reserve(k_processes);
    for (int i = 0; i < k_processes; ++i)
        children.push_back(spawn([&, i] {
            for (int n = 0; n < k_increments; ++n) {
                {
                    PathLock lock(common_dir(repo), "counter", 60s);
                    int value = std::stoi(guard::test::read_file(counter));
                    std::this_thread::yield(); // widen the window a missing lock would lose
                    guard::test::write_file(counter, std::to_string(value + 1));
                }
                if (between)
                    between(i, n);
            }
            return 0;
        }));
    int failed = 0;
    for (pid_t pid : children)
        failed += wait_exit(pid) != 0;
    BOOST_TEST(failed == 0, failed << " counting processes failed");
    BOOST_TEST(guard::test::read_file(counter) == std::to_string(k_processes * k_increments),
               "increments were lost: the lock let two processes in at once");
}
} // namespace

BOOST_AUTO_TEST_SUITE(path_lock)

BOOST_AUTO_TEST_CASE(lock_file_is_stable_per_key_and_under_common_dir)
{
    TempRepo repo;
    fs::path first, second, other;
    {
        PathLock lock(common_dir(repo), "tree:/a", 0s);
        first = lock.file();
        BOOST_TEST(!fs::exists(fs::path(first).replace_extension(".owner")), "a second file was made for the owner");
    }
    // Read by another process: this one would drop its own lock by closing a descriptor of it.
    Pipe held, release;
    pid_t holder = hold_in_child(repo, "tree:/a", held, release);
    BOOST_REQUIRE(held.receive());
    BOOST_TEST(guard::test::read_file(first).starts_with(std::to_string(holder) + " "),
               "the lock file does not start with its holder's pid: " << guard::test::read_file(first));
    release.send();
    BOOST_TEST(wait_exit(holder) == 0);
    second = PathLock(common_dir(repo), "tree:/a", 0s).file();
    other = PathLock(common_dir(repo), "tree:/b", 0s).file();
    BOOST_TEST(first.parent_path() == common_dir(repo) / "guard" / "locks",
               "lock file outside <common_dir>/guard/locks: " << first);
    BOOST_TEST(first.filename().string().size() == 16 + 5, "not <16 hex>.lock: " << first);
    BOOST_TEST(first == second, "one key mapped to two lock files");
    BOOST_TEST(first != other, "two keys share one lock file");
    BOOST_TEST(!fs::exists(first), "the lock file (and the owner record in it) outlived the lock");
}

BOOST_AUTO_TEST_CASE(a_git_dir_that_is_gone_is_never_made_again)
{
    TempRepo repo;
    fs::path gone = repo.root() / "deleted.git";
    BOOST_CHECK_THROW(PathLock(gone, "tree:/a", 0s), guard::Error);
    BOOST_TEST(!fs::exists(gone), "taking a lock made a deleted repository's git dir again");
}

BOOST_AUTO_TEST_CASE(second_process_waits_until_first_releases)
{
    TempRepo repo;
    Pipe held;
    auto done = repo.root() / "first-done";
    pid_t first = spawn([&] {
        PathLock lock(common_dir(repo), "tree:/w", 5s);
        held.send();
        std::this_thread::sleep_for(500ms);
        guard::test::write_file(done, "yes");
        return 0;
    });
    BOOST_REQUIRE_MESSAGE(held.receive(), "the first process never took the lock");
    auto start = std::chrono::steady_clock::now();
    {
        PathLock lock(common_dir(repo), "tree:/w", 10s);
        BOOST_TEST(fs::exists(done),
                   "the second process got the lock while the first was still inside");
    }
    auto waited = std::chrono::steady_clock::now() - start;
    BOOST_TEST((waited >= 300ms), "the second process did not wait for the first one");
    BOOST_TEST(wait_exit(first) == 0, "the first process failed");
}

BOOST_AUTO_TEST_CASE(timeout_names_key_and_holder)
{
    TempRepo repo;
    Pipe held, release;
    pid_t holder = hold_in_child(repo, "tree:/busy", held, release);
    BOOST_REQUIRE_MESSAGE(held.receive(), "the holder never took the lock");
    std::string message;
    try {
        PathLock lock(common_dir(repo), "tree:/busy", 1s);
    } catch (const guard::Error& e) {
        message = e.what();
    }
    release.send();
    BOOST_TEST(wait_exit(holder) == 0, "the holder failed");
    BOOST_TEST_MESSAGE("timeout message: " << message);
    BOOST_REQUIRE_MESSAGE(!message.empty(), "the lock was taken although another process held it");
    BOOST_TEST(message.find("'tree:/busy'") != std::string::npos,
               "the key is missing: " << message);
    BOOST_TEST(message.find("pid " + std::to_string(holder) + " (") != std::string::npos,
               "the holder's pid is missing: " << message);
    BOOST_TEST(message.find("guard_unit_tests") != std::string::npos,
               "the holder's command is missing: " << message);
    BOOST_TEST(message.find("1 s") != std::string::npos, "the wait is missing: " << message);
    BOOST_TEST(message.find("guard.lockTimeout") != std::string::npos,
               "the knob is not named: " << message);
}

BOOST_AUTO_TEST_CASE(different_keys_do_not_block_each_other)
{
    TempRepo repo;
    Pipe held, release;
    pid_t holder = hold_in_child(repo, "tree:/one", held, release);
    BOOST_REQUIRE_MESSAGE(held.receive(), "the holder never took the lock");
    BOOST_TEST(can_lock_now(repo, "branch:refs/heads/one"), "a lock on another key blocked");
    BOOST_TEST(!can_lock_now(repo, "tree:/one"), "the held key was not locked");
    release.send();
    BOOST_TEST(wait_exit(holder) == 0, "the holder failed");
}

BOOST_AUTO_TEST_CASE(lock_survives_exec)
{
    TempRepo repo;
    Pipe held;
    pid_t child = spawn([&]() -> int {
        PathLock lock(common_dir(repo), "tree:/exec", 5s);
        held.send();
        guard::exec({"/bin/sleep", "1"});
    });
    held.close_end(1);
    BOOST_REQUIRE_MESSAGE(held.receive(), "the child never took the lock");
    // End-of-file: the close-on-exec pipe closed, so the child is now /bin/sleep.
    BOOST_REQUIRE_MESSAGE(!held.receive(), "the pipe did not close at exec");
    BOOST_REQUIRE_MESSAGE(::waitpid(child, nullptr, WNOHANG) == 0,
                          "the child died instead of exec");
    BOOST_TEST(!can_lock_now(repo, "tree:/exec"), "the lock was released when the holder exec'd");
    BOOST_TEST(wait_exit(child) == 0, "the exec'd sleep failed");
    BOOST_TEST(can_lock_now(repo, "tree:/exec"), "the lock outlived the exec'd process");
}

BOOST_AUTO_TEST_CASE(eight_processes_count_exactly)
{
    TempRepo repo;
    count_in_processes(repo, nullptr);
}

BOOST_AUTO_TEST_CASE(release_removes_the_lock_file)
{
    TempRepo repo;
    fs::path file;
    {
        PathLock lock(common_dir(repo), "tree:/gone", 0s);
        file = lock.file();
        BOOST_TEST(fs::exists(file), "the held lock has no file");
    }
    BOOST_TEST(!fs::exists(file), "the released lock left its file: locks/ grows by one per key");
    for (int i = 0; i < 200; ++i) {
        pid_t child = spawn([&] {
            PathLock lock(common_dir(repo), "tree:/t" + std::to_string(i), 5s);
            return 0;
        });
        BOOST_REQUIRE(wait_exit(child) == 0);
    }
    BOOST_TEST(lock_files(repo) == 0u, "200 locks on distinct keys left " << lock_files(repo) << " files");
}

BOOST_AUTO_TEST_CASE(files_of_holders_that_exec_are_swept)
{
    TempRepo repo;
    exec_holders(repo, "tree:/exec", 200);
    BOOST_TEST(lock_files(repo) <= 2u * 33, "200 exec'd holders left " << lock_files(repo) << " files: none swept");
    Pipe held, release;
    pid_t holder = hold_in_child(repo, "tree:/held", held, release);
    BOOST_REQUIRE(held.receive());
    exec_holders(repo, "tree:/more", 40);
    BOOST_TEST(!can_lock_now(repo, "tree:/held"), "a sweep removed a held lock's file: a newcomer got it too");
    release.send();
    BOOST_TEST(wait_exit(holder) == 0, "the holder failed");
}

// A hook holds a batch of locks while it takes more: its own files do not count towards the
// sweep's threshold, yet files nobody holds are still swept, and its own are never.
BOOST_AUTO_TEST_CASE(a_holder_of_many_locks_still_sweeps_stale_files)
{
    TempRepo repo;
    std::vector<PathLock> held;
    for (int i = 0; i < 40; ++i)
        held.emplace_back(common_dir(repo), "held:" + std::to_string(i), 0s);
    fs::path dir = held.front().file().parent_path();
    for (int i = 0; i < 100; ++i) // left by holders that exec'd: nobody holds them
        std::ofstream(dir / ("stale" + std::to_string(i) + ".lock")).put('\n');
    held.emplace_back(common_dir(repo), "one more", 0s);
    size_t left = 0;
    for (const auto& entry : fs::directory_iterator(dir))
        left += entry.path().extension() == ".lock";
    BOOST_TEST(left == 41u, "100 stale lock files beside 40 held ones were not swept: " << left << " left");
    for (const auto& lock : held)
        BOOST_TEST(fs::exists(lock.file()), "a held lock's file was swept: " << lock.file());
}

// Versions before round 21 wrote the owner to a sidecar `<hash>.owner`: one whose lock file
// is gone is removed by the next lock taken; one beside a lock file still there is kept.
BOOST_AUTO_TEST_CASE(sidecars_of_earlier_versions_go_with_their_lock_file)
{
    TempRepo repo;
    fs::path dir = PathLock(common_dir(repo), "make the dir", 0s).file().parent_path();
    std::ofstream(dir / "0000000000000001.owner") << "123 an earlier git-guard\n";
    std::ofstream(dir / "0000000000000002.owner") << "124 an earlier git-guard\n";
    std::ofstream(dir / "0000000000000002.lock").put('\n');
    PathLock lock(common_dir(repo), "tree:/x", 0s);
    BOOST_TEST(!fs::exists(dir / "0000000000000001.owner"), "a sidecar whose lock file is gone was left");
    BOOST_TEST(fs::exists(dir / "0000000000000002.owner"), "the sidecar of a lock file still there was removed");
}

// Holders remove their file on release and sweepers remove stale ones while 8 processes
// count under one key: a waiter that opened a removed file must not count beside the
// holder of the new one.
BOOST_AUTO_TEST_CASE(removing_files_never_lets_two_in)
{
    TempRepo repo;
    exec_holders(repo, "stale:", 40); // enough for every lock taken below to sweep
    count_in_processes(repo, [&](int i, int n) {
        if (i % 2) // more locks taken and released between the counts: more removals
            PathLock(common_dir(repo), "churn:" + std::to_string(i * 100 + n), 5s);
    });
}

BOOST_AUTO_TEST_SUITE_END()
