#include "guard/git/git.hpp"

#include "guard/base/error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <map>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdlib>
#include <fstream>

extern char** environ;

namespace fs = std::filesystem;

namespace guard {

namespace {

// Variables git sets for its hooks and children that would point our calls at
// another repository, index or tree. Our explicit options and values replace
// most; these are dropped when present (through env(1), only then).
constexpr const char* k_dropped[] = {"GIT_DIR", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_NAMESPACE",
                                     "GIT_SHALLOW_FILE", "GIT_GRAFT_FILE", "GIT_REPLACE_REF_BASE",
                                     "GIT_NO_REPLACE_OBJECTS", "GIT_ICASE_PATHSPECS",
                                     "GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS",
                                     "GIT_NOGLOB_PATHSPECS"};
constexpr const char* k_isolated[] = {"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                                      "GIT_QUARANTINE_PATH"};

std::string first_line(const fs::path& file)
{
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

} // namespace

fs::path common_of(const fs::path& git_dir)
{
    std::string rel = first_line(git_dir / "commondir");
    if (rel.empty())
        return git_dir;
    fs::path p = rel;
    std::string common = (p.is_absolute() ? p : git_dir / p).lexically_normal().string();
    while (common.size() > 1 && common.back() == '/')
        common.pop_back();
    return common;
}

std::vector<std::string> split(const std::string& text, char sep)
{
    std::vector<std::string> fields;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find(sep, start);
        if (end == std::string::npos)
            end = text.size();
        fields.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return fields;
}

bool is_oid(const std::string& text)
{
    return (text.size() == 40 || text.size() == 64) &&
           text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

Git::Git(fs::path git_dir, fs::path work_tree)
    : m_git_dir(std::move(git_dir)), m_work_tree(std::move(work_tree)), m_git(find_real_git())
{
    std::string s = m_git_dir.string();
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    m_git_dir = s;
    m_common = common_of(m_git_dir);
}

Git Git::with_index(fs::path index) const
{
    Git copy = *this;
    copy.m_index = std::move(index);
    return copy;
}

Git Git::isolated() const
{
    Git copy = *this;
    copy.m_isolated = true;
    return copy;
}

Git Git::with_env(const std::string& name, const std::string& value) const
{
    Git copy = *this;
    copy.m_env.emplace_back(name, value);
    return copy;
}

fs::path Git::index() const { return m_index.empty() ? m_git_dir / "index" : m_index; }

std::vector<std::string> Git::command(const std::vector<std::string>& args, RunOptions& options) const
{
    std::vector<std::string> argv;
    std::vector<std::string> drop;
    for (const char* name : k_dropped)
        if (std::getenv(name))
            drop.emplace_back(name);
    if (m_isolated)
        for (const char* name : k_isolated)
            if (std::getenv(name) && std::none_of(m_env.begin(), m_env.end(),
                                                  [&](const auto& e) { return e.first == name; }))
                drop.emplace_back(name);
    if (!drop.empty()) {
        argv.emplace_back("/usr/bin/env");
        for (const auto& name : drop)
            argv.insert(argv.end(), {"-u", name});
    }
    // Options that user configuration cannot weaken: paths as bytes, no
    // optional index writes, no hooks from the hooks directory.
    argv.insert(argv.end(), {m_git, "--git-dir=" + m_git_dir.string()});
    if (!m_work_tree.empty())
        argv.push_back("--work-tree=" + m_work_tree.string());
    argv.insert(argv.end(), {"--no-optional-locks", "-c", "core.quotePath=false", "-c",
                             "core.hooksPath=/dev/null", "-c", "core.splitIndex=false"});
    argv.insert(argv.end(), args.begin(), args.end());
    options.cwd = m_work_tree.empty() ? m_git_dir.string() : m_work_tree.string();
    options.env = {{"GIT_INDEX_FILE", index().string()},
                   {"GIT_COMMON_DIR", m_common.string()},
                   {"GIT_TERMINAL_PROMPT", "0"},
                   {"GIT_OPTIONAL_LOCKS", "0"}};
    options.env.insert(options.env.end(), m_env.begin(), m_env.end());
    return argv;
}

RunResult Git::run(const std::vector<std::string>& args, const std::string& input) const
{
    RunOptions options;
    options.input = input;
    std::vector<std::string> argv = command(args, options);
    return guard::run(argv, options);
}

namespace {

std::string drain(int fd)
{
    std::string text;
    if (fd < 0)
        return text;
    // Read in place, sized once: a 100,000-entry index listing is 7 MB, and growing a
    // string chunk by chunk copies it over and over.
    struct stat st {};
    size_t size = ::fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0;
    text.resize(size);
    size_t got = 0;
    for (ssize_t n; got < size && (n = ::pread(fd, text.data() + got, size - got, static_cast<off_t>(got))) > 0;)
        got += static_cast<size_t>(n);
    text.resize(got);
    ::close(fd);
    return text;
}

// An anonymous file for a job's output. Memory first (memfd): git's answer must land
// here or nowhere, whatever /tmp is (read-only, full, missing); then an unnamed file in
// $TMPDIR or /tmp. -1, with `why` said, when there is none: the job does not start.
int output_file(std::string& why)
{
    int fd = ::memfd_create("git-guard-job", MFD_CLOEXEC);
    if (fd >= 0)
        return fd;
    why = std::string("no memory file (") + std::strerror(errno) + ")";
    std::vector<std::string> dirs{"/tmp"};
    if (const char* tmpdir = std::getenv("TMPDIR"); tmpdir && *tmpdir && std::string(tmpdir) != "/tmp")
        dirs.insert(dirs.begin(), tmpdir);
    for (const auto& dir : dirs) {
        fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0)
            return fd;
        why += ", no file in " + dir + " (" + std::strerror(errno) + ")";
    }
    return -1;
}

} // namespace

// posix_spawn, not fork: the environment and the working directory are handed to
// the child whole, so nothing runs between fork and exec.
Git::Job Git::start(const std::vector<std::string>& args) const
{
    RunOptions options;
    std::vector<std::string> argv = command(args, options);
    std::map<std::string, std::string> env;
    for (char** e = environ; *e; ++e) {
        std::string entry = *e;
        auto eq = entry.find('=');
        if (eq != std::string::npos)
            env[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    for (const auto& [key, value] : options.env)
        env[key] = value;
    std::vector<std::string> flat;
    for (const auto& [key, value] : env)
        flat.push_back(key + "=" + value);
    std::vector<char*> envp, cargv;
    for (auto& e : flat)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    for (auto& a : argv)
        cargv.push_back(a.data());
    cargv.push_back(nullptr);
    Job job;
    std::string why;
    job.m_out = output_file(why);
    job.m_err = job.m_out < 0 ? -1 : output_file(why);
    if (job.m_out < 0 || job.m_err < 0) { // git would answer on our own stdout: not at all
        job.m_why = "git " + (args.empty() ? std::string() : args.front()) +
                    " could not be started: nowhere to keep its output: " + why;
        return job;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, job.m_out, 1);
    posix_spawn_file_actions_adddup2(&actions, job.m_err, 2);
    posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());
    pid_t pid = -1;
    int rc = ::posix_spawnp(&pid, cargv[0], &actions, nullptr, cargv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    job.m_pid = rc == 0 ? pid : -1;
    if (rc != 0)
        job.m_why = "git " + (args.empty() ? std::string() : args.front()) + " could not be started: " +
                    std::strerror(rc);
    return job;
}

Git::Job::Job(Job&& other) noexcept
    : m_pid(other.m_pid), m_out(other.m_out), m_err(other.m_err), m_why(std::move(other.m_why))
{
    other.m_pid = other.m_out = other.m_err = -1;
}

Git::Job::~Job()
{
    if (m_pid > 0)
        wait();
    for (int fd : {m_out, m_err})
        if (fd >= 0)
            ::close(fd);
}

RunResult Git::Job::wait()
{
    RunResult result;
    if (m_pid <= 0) {
        result.err = m_why.empty() ? "git could not be started" : m_why;
        return result;
    }
    int status = 0;
    while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
    m_pid = -1;
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = drain(m_out);
    result.err = drain(m_err);
    m_out = m_err = -1;
    return result;
}

std::string Git::out(const std::vector<std::string>& args, const std::string& what,
                     const std::string& input) const
{
    RunResult r = run(args, input);
    if (r.status != 0) {
        std::string err = r.err;
        while (!err.empty() && (err.back() == '\n' || err.back() == ' '))
            err.pop_back();
        throw Error(what + ": git " + (args.empty() ? "" : args.front()) + " failed" +
                    (err.empty() ? " (exit " + std::to_string(r.status) + ")" : ": " + err));
    }
    return r.out;
}

std::string Git::object_format() const
{
    RunResult r = run({"rev-parse", "--show-object-format"});
    std::string f = r.out.substr(0, r.out.find('\n'));
    return r.status == 0 && !f.empty() ? f : "sha1";
}

std::string Git::empty_tree() const
{
    std::string id = out({"hash-object", "-t", "tree", "--stdin"}, "hash the empty tree", "");
    return id.substr(0, id.find('\n'));
}

} // namespace guard
