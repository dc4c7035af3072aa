#include "guard/git/repo.hpp"

#include "guard/git/git.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <map>

#include <thread>


namespace fs = std::filesystem;

namespace guard {

namespace {

std::string config_string(git_config* config, const char* key)
{
    git_config_entry* entry = nullptr;
    if (git_config_get_entry(&entry, config, key) < 0)
        return "";
    std::string value = entry->value ? entry->value : "";
    git_config_entry_free(entry);
    return value;
}

fs::path strip_slash(const char* path)
{
    std::string s = path ? path : "";
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    return s;
}


} // namespace

std::string read_first_line(const fs::path& file)
{
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

std::string read_path_file(const fs::path& file)
{
    // A directory where a `.git` file was (a tree moved over another's path) reads as "".
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        return "";
    std::ifstream in(file);
    std::ostringstream text;
    text << in.rdbuf();
    return output_path(text.str());
}

std::string output_path(const std::string& out)
{
    return out.ends_with('\n') ? out.substr(0, out.size() - 1) : out;
}

fs::path absolute_path(const fs::path& path)
{
    std::error_code ec;
    fs::path abs = fs::absolute(path, ec);
    fs::path resolved = fs::weakly_canonical(abs, ec);
    fs::path out = ec ? abs.lexically_normal() : resolved;
    std::string s = out.string();
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    return s;
}

void check_supported(const fs::path& common)
{
    use_libgit2();
    git_config* raw = nullptr;
    if (git_config_open_ondisk(&raw, (common / "config").c_str()) < 0) {
        git_error_clear();
        return;
    }
    Config config(raw);
    std::string format = config_string(config.get(), "extensions.objectformat");
    if (!format.empty() && format != "sha1")
        throw Error("repository " + common.string() + " uses " + format +
                    " object ids (extensions.objectFormat); git-guard can only serve sha1 "
                    "repositories, so it cannot guard this one");
    std::string refs = config_string(config.get(), "extensions.refstorage");
    if (!refs.empty() && refs != "files")
        throw Error("repository " + common.string() + " stores refs as " + refs +
                    " (extensions.refStorage); git-guard can only serve the files backend, "
                    "so it cannot guard this one");
    git_error_clear();
}

Repository open_repository(const fs::path& start)
{
    std::error_code ec;
    if (!fs::exists(start, ec))
        throw Error("'" + start.string() + "' does not exist");
    use_libgit2();
    Buf found;
    if (git_repository_discover(found.get(), start.c_str(), 0, nullptr) < 0)
        throw Error("'" + start.string() + "' is not in a git repository");
    fs::path git_dir = strip_slash(found.str().c_str());
    fs::path common = git_dir;
    if (fs::exists(git_dir / "commondir")) {
        fs::path rel = read_first_line(git_dir / "commondir");
        common = rel.is_absolute() ? rel : (git_dir / rel).lexically_normal();
    }
    check_supported(common);
    git_repository* raw = nullptr;
    check(git_repository_open_ext(&raw, git_dir.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr),
          "open repository " + git_dir.string());
    return Repository(raw);
}

fs::path common_dir(git_repository* repo) { return strip_slash(git_repository_commondir(repo)); }

Settings read_settings(git_repository* repo) { return read_settings(common_dir(repo)); }

namespace {

// One `git worktree list --porcelain -z` record turned into a Worktree. The
// admin entry name is the basename of the tree's own git dir, which git
// reports for the tree through `<path>/.git`; for trees whose directory is
// gone it is found by matching the admin entries' gitdir files.
void apply_field(Worktree& tree, const std::string& field)
{
    if (field.starts_with("worktree "))
        tree.path = strip_slash(field.substr(9).c_str());
    else if (field == "locked" || field.starts_with("locked ")) {
        tree.locked = true;
        tree.lock_reason = field.size() > 7 ? field.substr(7) : "";
    } else if (field == "prunable" || field.starts_with("prunable ")) {
        tree.prunable = true;
        tree.git_prunable = true;
    } else if (field.starts_with("HEAD ")) {
        bool zero = field.find_first_not_of('0', 5) == std::string::npos;
        tree.head = zero ? "" : field.substr(5);
    } else if (field.starts_with("branch ")) {
        tree.branch_ref = field.substr(7);
    }
}

// admin entry name for each linked tree path, from <common>/worktrees/*/gitdir.
std::string admin_name(const fs::path& common, const fs::path& path)
{
    std::error_code ec;
    fs::path want = absolute_path(path);
    if (fs::exists(path / ".git", ec)) {
        std::string line = read_path_file(path / ".git");
        if (line.starts_with("gitdir: ")) {
            fs::path admin = line.substr(8);
            admin = absolute_path(admin.is_absolute() ? admin : path / admin);
            if (admin.parent_path() == absolute_path(common / "worktrees"))
                return admin.filename().string();
        }
    }
    for (const auto& entry : fs::directory_iterator(common / "worktrees", ec)) {
        fs::path gitdir = read_path_file(entry.path() / "gitdir");
        if (gitdir.empty())
            continue;
        gitdir = gitdir.is_absolute() ? gitdir : entry.path() / gitdir;
        if (absolute_path(gitdir.parent_path()) == want)
            return entry.path().filename().string();
    }
    return "";
}

} // namespace

Location locate(const fs::path& start)
{
    std::error_code ec;
    if (!fs::exists(start, ec))
        throw Error("'" + start.string() + "' does not exist");
    fs::path dir = fs::is_directory(start, ec) ? start : start.parent_path();
    // Asked once per directory and process: the log's place and the command's own
    // repository are usually the same question (`git guard status` run in the tree).
    static std::map<fs::path, Location> found;
    fs::path key = absolute_path(dir);
    if (auto it = found.find(key); it != found.end())
        return it->second;
    Git git(dir);
    // `git -C start`, not --git-dir: git finds the repository the way it would for the user.
    std::vector<std::string> argv = {git.binary(), "-C", dir.string(), "rev-parse",
                                     "--absolute-git-dir", "--git-common-dir"};
    RunResult r = run(argv);
    auto lines = split(r.out, '\n');
    if (r.status != 0 || lines.size() < 2) {
        // git's own words say why (e.g. an extension this git does not know).
        std::string why = r.err.find("extension") != std::string::npos ? r.err : "";
        while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
            why.pop_back();
        throw Error("'" + start.string() + "' is not in a git repository" +
                    (why.empty() ? "" : " that " + git.binary() + " can read: " + why));
    }
    Location where;
    where.git_dir = strip_slash(lines[0].c_str());
    fs::path common = lines[1];
    where.common = strip_slash(absolute_path(common.is_absolute() ? common : dir / common).c_str());
    return found[key] = where;
}

Site locate_site(const fs::path& start)
{
    Site site{locate(start), {}, false};
    std::error_code ec;
    fs::path dir = fs::is_directory(start, ec) ? start : start.parent_path();
    // --show-toplevel dies in a bare repository or a git dir, after the first line.
    RunResult r = run({find_real_git(), "-C", dir.string(), "rev-parse", "--is-bare-repository",
                       "--show-toplevel"});
    auto lines = split(r.out, '\n');
    site.bare = !lines.empty() && lines[0] == "true";
    if (r.status == 0 && lines.size() >= 2)
        site.top = strip_slash(lines[1].c_str());
    return site;
}

std::vector<Worktree> list_worktrees(const fs::path& common)
{
    Git git(common);
    // git reads every admin entry; one that a concurrent `worktree remove` is deleting makes
    // it fail ("failed to read …/commondir"). That race is over in milliseconds: ask again.
    RunResult listed;
    for (int attempt = 0; attempt < 5; ++attempt) {
        listed = git.run({"worktree", "list", "--porcelain", "-z"});
        if (listed.status == 0)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (listed.status != 0)
        throw Error("list the worktrees of " + common.string() + ": git worktree failed: " + listed.err);
    return parse_worktrees(listed.out, common);
}

std::vector<Worktree> parse_worktrees(const std::string& out, const fs::path& common)
{
    std::vector<Worktree> trees;
    Worktree tree;
    bool bare = false;
    auto flush = [&] {
        if (!tree.path.empty() && !bare)
            trees.push_back(tree);
        tree = Worktree{};
        bare = false;
    };
    bool first = true;
    for (const auto& field : split(out)) {
        if (field.empty()) {
            if (!tree.path.empty() || bare)
                first = false;
            flush();
            continue;
        }
        if (field == "bare")
            bare = true;
        if (field.starts_with("worktree "))
            tree.is_main = first;
        apply_field(tree, field);
    }
    flush();
    for (auto& t : trees) {
        if (t.is_main) {
            t.git_dir = common;
            // git names the git dir itself when the tree is elsewhere (core.worktree: a
            // submodule's absorbed git dir under .git/modules/); rev-parse says where, asked
            // without the runner's GIT_COMMON_DIR, with which git ignores core.worktree.
            if (absolute_path(t.path) == absolute_path(common)) {
                RunResult top = run({find_real_git(), "--git-dir=" + common.string(), "rev-parse", "--show-toplevel"});
                if (top.status == 0 && !first_line_of(top.out).empty())
                    t.path = first_line_of(top.out);
            }
            continue;
        }
        t.name = admin_name(common, t.path);
        t.git_dir = common / "worktrees" / t.name;
        std::error_code ec;
        if (t.name.empty() || !fs::exists(t.path / ".git", ec))
            t.prunable = true;
    }
    return trees;
}

std::optional<Worktree> find_worktree(const std::vector<Worktree>& trees, const fs::path& path)
{
    fs::path want = absolute_path(path);
    for (const auto& tree : trees)
        if (absolute_path(tree.path) == want)
            return tree;
    return std::nullopt;
}

std::optional<Worktree> find_worktree(const fs::path& common, const fs::path& path)
{
    return find_worktree(list_worktrees(common), path);
}

Worktree resolve_worktree(const fs::path& common, const fs::path& path)
{
    return resolve_worktree(list_worktrees(common), common, path);
}

Worktree resolve_worktree(const std::vector<Worktree>& trees, const fs::path& common, const fs::path& path)
{
    if (auto tree = find_worktree(trees, path))
        return *tree;
    fs::path want = absolute_path(path);
    std::optional<Worktree> enclosing;
    for (const auto& tree : trees) {
        auto rel = want.lexically_relative(absolute_path(tree.path));
        if (!rel.empty() && *rel.begin() != ".." && (!enclosing || tree.path.string().size() >
                                                                       enclosing->path.string().size()))
            enclosing = tree;
    }
    if (enclosing)
        throw Error("'" + path.string() + "' is inside the worktree " + enclosing->path.string() +
                    " but is not its root; name the root to act on that tree");
    throw Error("'" + path.string() + "' is not a worktree of " + common.string() +
                " (see 'git worktree list')");
}

void check_readable(const Worktree& tree, const std::optional<std::string>& top_seen)
{
    std::error_code ec;
    if (tree.prunable || !fs::exists(tree.path / ".git", ec))
        throw Error("worktree " + tree.path.string() +
                    " cannot be read by git: its .git or its admin entry is missing");
    std::string top = top_seen && !top_seen->empty()
                          ? *top_seen
                          : output_path(Git(tree.git_dir, tree.path)
                                            .out({"rev-parse", "--show-toplevel"}, "read worktree " + tree.path.string()));
    if (absolute_path(top) != absolute_path(tree.path))
        throw Error("worktree " + tree.path.string() + " opens as " + top +
                    "; refusing to act on the wrong tree");
}

} // namespace guard
