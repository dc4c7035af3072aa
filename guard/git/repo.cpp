#include "guard/git/repo.hpp"

#include "guard/base/file.hpp"
#include "guard/git/git.hpp"

#include <cstdlib>


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

std::string read_path_file(const fs::path& file)
{
    // A directory where a `.git` file was (a tree moved over another's path) reads as "".
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        return "";
    return output_path(read_bytes(file).value_or(""));
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
