#include "tests/unit/temp_repo.hpp"

#include "guard/git/libgit2.hpp"
#include "guard/base/log.hpp"
#include "guard/git/process.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace guard::test {

namespace {

// Hermetic git for the whole test process, and libgit2 initialised once.
struct HermeticGit {
    fs::path home;
    LibGit2 libgit2;
    HermeticGit()
    {
        home = fs::temp_directory_path() / ("guard-unit-home-" + std::to_string(::getpid()));
        fs::create_directories(home);
        ::setenv("HOME", home.c_str(), 1);
        ::setenv("XDG_CONFIG_HOME", (home / ".config").c_str(), 1);
        ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
        ::setenv("LC_ALL", "C", 1);
        ::setenv("GIT_AUTHOR_NAME", "Test Author", 1);
        ::setenv("GIT_AUTHOR_EMAIL", "author@example.com", 1);
        ::setenv("GIT_COMMITTER_NAME", "Test Committer", 1);
        ::setenv("GIT_COMMITTER_EMAIL", "committer@example.com", 1);
        ::setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z", 1);
        ::setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z", 1);
        ::unsetenv("GIT_DIR");
        ::unsetenv("GIT_WORK_TREE");
        ::unsetenv("GIT_INDEX_FILE");
        write_file(home / ".gitconfig", "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n");
        // libgit2 caches the global config path at init: point it at our HOME.
        git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, home.c_str());
        git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM, "");
        git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_XDG, "");
        init_log({}, false); // spdlog's default logger would print to stdout
    }
    ~HermeticGit()
    {
        std::error_code ec;
        fs::remove_all(home, ec);
    }
};

BOOST_TEST_GLOBAL_FIXTURE(HermeticGit);

} // namespace

std::string read_file(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read " + path.string());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_file(const fs::path& path, const std::string& content)
{
    if (path.has_parent_path())
        fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out)
        throw std::runtime_error("cannot write " + path.string());
}

TempRepo::TempRepo(bool with_origin)
{
    std::string pattern = (fs::temp_directory_path() / "guard-unit-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
        throw std::runtime_error("mkdtemp failed");
    m_root = fs::canonical(pattern);
    m_repo = m_root / "repo";
    if (with_origin) {
        git_in(m_root, {"init", "-q", "--bare", "origin.git"});
        git_in(m_root, {"clone", "-q", "origin.git", "repo"});
    } else {
        git_in(m_root, {"init", "-q", "repo"});
    }
    write("README", "hello\n");
    git({"add", "README"});
    git({"commit", "-q", "-m", "init"});
    if (with_origin)
        git({"push", "-q", "-u", "origin", "main"});
}

TempRepo::~TempRepo()
{
    std::error_code ec;
    // Make read-only directories from tests removable again.
    run({"chmod", "-R", "u+rwx", m_root.string()});
    fs::remove_all(m_root, ec);
}

std::string TempRepo::git(const std::vector<std::string>& args) const { return git_in(m_repo, args); }

std::string TempRepo::git_in(const fs::path& cwd, const std::vector<std::string>& args) const
{
    std::vector<std::string> argv{"git"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto result = run(argv, {.cwd = cwd.string()});
    if (result.status != 0) {
        std::string joined;
        for (const auto& a : args)
            joined += " " + a;
        throw std::runtime_error("git" + joined + " failed (" + std::to_string(result.status) +
                                 "): " + result.err);
    }
    return result.out;
}

int TempRepo::git_status(const fs::path& cwd, const std::vector<std::string>& args) const
{
    std::vector<std::string> argv{"git"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, {.cwd = cwd.string()}).status;
}

void TempRepo::write(const fs::path& relative, const std::string& content) const
{
    write_file(m_repo / relative, content);
}

std::string TempRepo::read(const fs::path& relative) const { return read_file(m_repo / relative); }

fs::path TempRepo::add_worktree(const std::string& name, bool detached) const
{
    fs::path tree = m_root / name;
    if (detached)
        git({"worktree", "add", "-q", "--detach", tree.string()});
    else
        git({"worktree", "add", "-q", "-b", name, tree.string()});
    return tree;
}

fs::path TempRepo::add_base_and_worktree() const
{
    write("a.txt", "alpha\n");
    write("b.txt", "bravo\n");
    write("dir/c.txt", "charlie\n");
    git({"add", "."});
    git({"commit", "-q", "-m", "base"});
    return add_worktree("wt");
}

void TempRepo::add_submodule(const TempRepo& sub, const std::string& path) const
{
    // git refuses a local submodule unless file:// is allowed (CVE-2022-39253).
    git({"-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.path().string(), path});
    git({"commit", "-q", "-m", "add submodule"});
}

void TempRepo::link_node_modules_out(const fs::path& tree) const
{
    fs::create_directories(m_repo / "node_modules/pkg");
    fs::create_directory_symlink(m_repo / "node_modules", tree / "node_modules");
}

} // namespace guard::test
