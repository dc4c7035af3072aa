// One question to git for where a run happens (site.hpp).
#include "guard/git/site.hpp"

#include "guard/base/error.hpp"
#include "guard/git/config.hpp"
#include "guard/git/git.hpp"
#include "guard/git/gitcall.hpp"
#include "guard/git/process.hpp"
#include "guard/git/repo.hpp"
#include "guard/git/worktrees.hpp"

namespace fs = std::filesystem;

namespace guard {

namespace {

// The rev-parse both entries ask. --show-toplevel comes last: in a bare repository or a
// git dir it dies after git has printed the rest.
const std::vector<std::string> k_where = {"rev-parse",   "--path-format=absolute", "--git-common-dir",
                                          "--git-dir",   "--git-path",             "hooks",
                                          "--is-bare-repository", "--show-toplevel"};

fs::path without_slash(std::string s)
{
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    return s;
}

// git's answer to k_where: four lines, then the top, which is all that follows (a tree's
// path may hold a newline). Outside a repository every path stays empty.
Site parse_site(const fs::path& dir, const std::string& git, const RunResult& r)
{
    Site site;
    site.dir = dir;
    size_t at = 0;
    std::vector<std::string> lines;
    while (lines.size() < 4) {
        size_t nl = r.out.find('\n', at);
        if (nl == std::string::npos)
            break;
        lines.push_back(r.out.substr(at, nl - at));
        at = nl + 1;
    }
    if (lines.size() < 4) {
        // git's own words say why when it is an extension this git does not know.
        std::string err = r.err; // all of it: git names the extension on the next line
        while (!err.empty() && (err.back() == '\n' || err.back() == ' '))
            err.pop_back();
        // Appended: g++ 12 warns falsely (-Wrestrict) on `why = "'" + ...` here.
        site.why.append("'").append(dir.string()).append("' is not in a git repository");
        if (err.find("extension") != std::string::npos)
            site.why += " that " + git + " can read: " + err;
        return site;
    }
    site.common = absolute_path(without_slash(lines[0]));
    site.git_dir = without_slash(lines[1]);
    site.hooks = lines[2];
    site.bare = lines[3] == "true";
    if (r.status == 0 && at < r.out.size())
        site.top = without_slash(output_path(r.out.substr(at)));
    else
        site.why = first_line_of(r.err);
    return site;
}

} // namespace

const fs::path& Site::repository() const
{
    if (common.empty())
        throw Error(why.empty() ? "'" + dir.string() + "' is not in a git repository" : why);
    return common;
}

const fs::path& Site::tree() const
{
    if (top.empty())
        throw Error("cannot find the tree's root: " + (why.empty() ? dir.string() : why));
    return top;
}

Site site_at(const fs::path& start)
{
    std::error_code ec;
    if (!fs::exists(start, ec))
        throw Error("'" + start.string() + "' does not exist");
    fs::path dir = absolute_path(fs::is_directory(start, ec) ? start : start.parent_path());
    std::string git = find_real_git();
    // `git -C start`, not --git-dir: git finds the repository the way it would for the user.
    std::vector<std::string> argv = {git, "-C", dir.string()};
    argv.insert(argv.end(), k_where.begin(), k_where.end());
    Site site = parse_site(dir, git, run(argv));
    site.repository(); // outside a repository: the Error says so, with git's reason
    return site;
}

Site site_named(const Site& here, const fs::path& path)
{
    std::error_code ec;
    fs::path abs = absolute_path(path);
    if (!fs::is_directory(path, ec) || abs == here.dir || (!here.top.empty() && abs == here.top))
        return here;
    try {
        return site_at(path);
    } catch (const Error&) {
        return here; // a husk: no git reads it, the caller's repository holds its entry
    }
}

const Site& site_of(const GitCall& call)
{
    if (call.site)
        return *call.site;
    Site site = parse_site(call.cwd, call.real_git, ask_git(call, k_where));
    if (call.config && !site.common.empty()) // the front end's listing: the settings, read once
        remember_config(site.common, *call.config);
    call.site = std::make_shared<const Site>(std::move(site));
    return *call.site;
}

std::string tree_name(const Site& site)
{
    if (!site.top.empty())
        return site.top.filename().string();
    // A bare repository (orchestrators keep one beside their worktrees): its directory.
    fs::path dir = site.common.filename() == ".git" ? site.common.parent_path() : site.common;
    std::string name = dir.filename().string();
    if (name.size() > 4 && name.ends_with(".git"))
        name.resize(name.size() - 4);
    return name.empty() ? "repository" : name;
}

} // namespace guard
