#include "guard/git/git.hpp"

#include "guard/base/error.hpp"
#include "guard/base/file.hpp"
#include "guard/git/quiet.hpp"

#include <algorithm>
#include <cstdlib>

namespace fs = std::filesystem;

namespace guard {

namespace {

// Variables git sets for its hooks and children that would point our calls at
// another repository, index or tree. Our explicit options and values replace
// most; these are dropped from the child's environment when present.
constexpr const char* k_dropped[] = {"GIT_DIR", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_NAMESPACE",
                                     "GIT_SHALLOW_FILE", "GIT_GRAFT_FILE", "GIT_REPLACE_REF_BASE",
                                     "GIT_NO_REPLACE_OBJECTS", "GIT_ICASE_PATHSPECS",
                                     "GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS",
                                     "GIT_NOGLOB_PATHSPECS"};
constexpr const char* k_isolated[] = {"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                                      "GIT_QUARANTINE_PATH"};

} // namespace

fs::path common_of(const fs::path& git_dir)
{
    std::string rel = read_first_line(git_dir / "commondir");
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
    : m_git_dir(std::move(git_dir)), m_work_tree(std::move(work_tree)), m_git(real_git())
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

Git Git::quiet() const
{
    Git copy = *this;
    copy.m_quiet = true;
    return copy;
}

fs::path Git::index() const { return m_index.empty() ? m_git_dir / "index" : m_index; }

std::vector<std::string> Git::command(const std::vector<std::string>& args, RunOptions& options) const
{
    std::vector<std::string> argv;
    // Removed in the child itself, between fork and exec: no env(1) started before each git.
    for (const char* name : k_dropped)
        if (std::getenv(name))
            options.unset.emplace_back(name);
    if (m_isolated)
        for (const char* name : k_isolated)
            if (std::getenv(name) && std::none_of(m_env.begin(), m_env.end(),
                                                  [&](const auto& e) { return e.first == name; }))
                options.unset.emplace_back(name);
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
    // `git config` runs nothing of the repository's, and lists what quieting needs.
    if ((m_quiet || unattended()) && !args.empty() && args[0] != "config") {
        std::string params = quiet_parameters(m_common);
        const char* before = std::getenv("GIT_CONFIG_PARAMETERS");
        options.env.emplace_back("GIT_CONFIG_PARAMETERS", before && *before ? std::string(before) + " " + params : params);
    }
    return argv;
}

RunResult Git::run(const std::vector<std::string>& args, const std::string& input) const
{
    RunOptions options;
    options.input = input;
    std::vector<std::string> argv = command(args, options);
    return guard::run(argv, options);
}

RunResult Git::run(const std::vector<std::string>& args, const std::string& input,
                   const decltype(RunOptions::reply)& reply) const
{
    RunOptions options;
    options.input = input;
    options.reply = reply;
    std::vector<std::string> argv = command(args, options);
    return guard::run(argv, options);
}

// In the background, through the one runner: the job's output lands in anonymous files.
Git::Job Git::start(const std::vector<std::string>& args, const std::string& input) const
{
    RunOptions options;
    std::vector<std::string> argv = command(args, options);
    options.input = input;
    return guard::start(argv, options);
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

std::string empty_tree_like(const std::string& id)
{
    return id.size() == 64 ? "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
                           : "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
}

std::string Git::empty_tree() const
{
    std::string id = out({"hash-object", "-t", "tree", "--stdin"}, "hash the empty tree", "");
    return id.substr(0, id.find('\n'));
}

} // namespace guard
