// The versions of the paths an in-place destroyer loses, written as objects: working
// files as their bytes on disk (`git hash-object --no-filters`: no clean filter runs and
// no eol rule rewrites them, DESIGN §4.1.1), staged versions straight from what status
// reported.
#include "guard/save/versions.hpp"

#include "guard/git/git.hpp"
#include "guard/judge/scope.hpp"

#include <sys/stat.h>

namespace fs = std::filesystem;

namespace guard {

namespace {

// A path as `hash-object --stdin-paths` reads it: C-quoted when a plain line would not do.
std::string stdin_path(const std::string& path)
{
    if (path.find_first_of("\"\\\n") == std::string::npos)
        return path;
    std::string out = "\"";
    for (char c : path)
        out += c == '\n' ? std::string("\\n") : c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    return out + "\"";
}

// git run at the tree's root with the tree named explicitly, so that root-relative paths
// mean the same whatever the caller's cwd, -C, --git-dir or --work-tree were; the caller's
// -c options stay (they may set filters).
RunResult in_tree(const GitCall& call, const Site& site, const std::vector<std::string>& args,
                  const std::string& input)
{
    std::vector<std::string> argv{call.real_git};
    for (size_t i = 0; i < call.globals.size(); ++i) {
        const std::string& g = call.globals[i];
        if ((g == "-c" || g == "--config-env") && i + 1 < call.globals.size()) {
            argv.insert(argv.end(), {g, call.globals[i + 1]});
            ++i;
        } else if (g.starts_with("--config-env=")) {
            argv.push_back(g);
        }
    }
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, {.cwd = site.top.string(), .input = input,
                      .env = {{"GIT_DIR", site.git_dir.string()}, {"GIT_WORK_TREE", site.top.string()}}});
}

git_filemode_t disk_mode(const struct stat& st, const LostPath& p)
{
    if (S_ISLNK(st.st_mode))
        return GIT_FILEMODE_LINK;
    if (p.tracked && p.worktree_mode == "100755")
        return GIT_FILEMODE_BLOB_EXECUTABLE;
    if (p.tracked && p.worktree_mode == "100644")
        return GIT_FILEMODE_BLOB; // git's own view, core.fileMode included
    return (st.st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
}

} // namespace

std::vector<Content> working_versions(const GitCall& call, const Site& site, const Destroyed& d)
{
    std::vector<Content> out;
    std::string files;
    std::vector<size_t> hashed;
    for (const auto& p : d.paths) {
        Content c{p.path};
        struct stat st{};
        if (::lstat((site.top / p.path).c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
            c.present = true;
            c.mode = disk_mode(st, p);
            if (S_ISLNK(st.st_mode)) {
                std::error_code ec;
                auto r = in_tree(call, site, {"hash-object", "-w", "--stdin", "--no-filters"},
                                 fs::read_symlink(site.top / p.path, ec).string());
                if (r.status != 0 || ec)
                    throw Error("cannot write the link " + p.path + ": " + first_line_of(r.err));
                c.blob = parse_oid(first_line_of(r.out));
            } else {
                files += stdin_path(p.path) + "\n";
                hashed.push_back(out.size());
            }
        }
        out.push_back(c);
    }
    if (hashed.empty())
        return out;
    // The bytes on disk: a clean filter would run a program the save adds to the user's
    // command and could drop what it strips (a notebook's outputs).
    auto r = in_tree(call, site, {"hash-object", "-w", "--no-filters", "--stdin-paths"}, files);
    if (r.status != 0)
        throw Error("git hash-object failed: " + first_line_of(r.err));
    size_t at = 0;
    for (size_t i : hashed) {
        size_t end = r.out.find('\n', at);
        if (end == std::string::npos)
            throw Error("git hash-object wrote fewer objects than asked");
        out[i].blob = parse_oid(r.out.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

// The staged versions of the tracked lost paths that differ from HEAD's, as status
// reported them (the others are HEAD's already).
std::vector<Content> staged_versions(const Destroyed& d)
{
    std::vector<Content> out;
    for (const auto& p : d.paths) {
        if (!p.tracked || !p.staged)
            continue;
        Content c{p.path};
        c.present = p.index_mode != "000000";
        if (c.present) {
            c.blob = parse_oid(p.index_oid);
            c.mode = static_cast<git_filemode_t>(std::stoul(p.index_mode, nullptr, 8));
        }
        out.push_back(c);
    }
    return out;
}

} // namespace guard
