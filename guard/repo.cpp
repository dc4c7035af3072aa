#include "guard/repo.hpp"

#include <cstdlib>
#include <fstream>

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

std::vector<std::string> config_all(git_config* config, const char* key)
{
    std::vector<std::string> values;
    git_config_get_multivar_foreach(
        config, key, nullptr,
        [](const git_config_entry* entry, void* out) {
            static_cast<std::vector<std::string>*>(out)->emplace_back(entry->value);
            return 0;
        },
        &values);
    return values;
}

fs::path strip_slash(const char* path)
{
    std::string s = path ? path : "";
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    return s;
}


Worktree linked_worktree(git_repository* repo, const char* name)
{
    git_worktree* raw = nullptr;
    check(git_worktree_lookup(&raw, repo, name), std::string("look up worktree ") + name);
    std::unique_ptr<git_worktree, Deleter<git_worktree_free>> wt(raw);
    Worktree tree;
    tree.name = name;
    tree.path = strip_slash(git_worktree_path(raw));
    tree.git_dir = common_dir(repo) / "worktrees" / name;
    Buf reason;
    tree.locked = git_worktree_is_locked(reason.get(), raw) > 0;
    tree.lock_reason = reason.str();
    while (!tree.lock_reason.empty() && tree.lock_reason.back() == '\n')
        tree.lock_reason.pop_back(); // git writes the reason with a newline
    tree.prunable = git_worktree_validate(raw) < 0 || !fs::exists(tree.path / ".git");
    git_error_clear();
    return tree;
}

} // namespace

std::string read_first_line(const fs::path& file)
{
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
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

Repository open_common(git_repository* repo)
{
    git_repository* raw = nullptr;
    check(git_repository_open_ext(&raw, git_repository_commondir(repo),
                                  GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr),
          std::string("open repository ") + git_repository_commondir(repo));
    return Repository(raw);
}

fs::path common_dir(git_repository* repo) { return strip_slash(git_repository_commondir(repo)); }

Settings read_settings(git_repository* repo)
{
    git_config* raw = nullptr;
    check(git_repository_config_snapshot(&raw, repo), "read config");
    Config config(raw);
    Settings settings;
    int enabled = 0;
    settings.enabled = git_config_get_bool(&enabled, config.get(), "guard.enabled") == 0 && enabled;
    settings.exclude = config_all(config.get(), "guard.exclude");
    settings.keep_ignored = config_all(config.get(), "guard.keepignored");
    settings.base_refs = config_all(config.get(), "guard.baseref");
    if (auto identity = config_string(config.get(), "guard.identity"); !identity.empty())
        settings.identity = identity;
    int lock = 0;
    settings.lock_worktrees =
        git_config_get_bool(&lock, config.get(), "guard.lockworktrees") == 0 && lock;
    int32_t timeout = 0;
    if (git_config_get_int32(&timeout, config.get(), "guard.locktimeout") == 0 && timeout >= 0)
        settings.lock_timeout = std::chrono::seconds(timeout);
    git_error_clear();
    return settings;
}

std::vector<Worktree> list_worktrees(git_repository* repo)
{
    std::vector<Worktree> trees;
    Repository common = open_common(repo);
    if (!git_repository_is_bare(common.get()) && git_repository_workdir(common.get())) {
        Worktree main;
        main.is_main = true;
        main.path = strip_slash(git_repository_workdir(common.get()));
        main.git_dir = common_dir(repo);
        trees.push_back(main);
    }
    git_strarray names{};
    check(git_worktree_list(&names, common.get()), "list worktrees");
    for (size_t i = 0; i < names.count; ++i)
        trees.push_back(linked_worktree(common.get(), names.strings[i]));
    git_strarray_dispose(&names);
    return trees;
}

std::optional<Worktree> find_worktree(git_repository* repo, const fs::path& path)
{
    fs::path want = absolute_path(path);
    for (auto& tree : list_worktrees(repo))
        if (absolute_path(tree.path) == want)
            return tree;
    return std::nullopt;
}

Worktree resolve_worktree(git_repository* repo, const fs::path& path)
{
    if (auto tree = find_worktree(repo, path))
        return *tree;
    fs::path want = absolute_path(path);
    std::optional<Worktree> enclosing;
    for (auto& tree : list_worktrees(repo)) {
        auto rel = want.lexically_relative(absolute_path(tree.path));
        if (!rel.empty() && *rel.begin() != ".." && (!enclosing || tree.path.string().size() >
                                                                       enclosing->path.string().size()))
            enclosing = tree;
    }
    if (enclosing)
        throw Error("'" + path.string() + "' is inside the worktree " + enclosing->path.string() +
                    " but is not its root; name the root to act on that tree");
    throw Error("'" + path.string() + "' is not a worktree of " + common_dir(repo).string() +
                " (see 'git worktree list')");
}

Repository open_worktree(const Worktree& tree)
{
    if (tree.prunable || !fs::exists(tree.path / ".git"))
        throw Error("worktree " + tree.path.string() +
                    " cannot be read by git: its .git or its admin entry is missing");
    git_repository* raw = nullptr;
    check(git_repository_open_ext(&raw, tree.path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr),
          "open worktree " + tree.path.string());
    Repository repo(raw);
    const char* workdir = git_repository_workdir(raw);
    if (!workdir || absolute_path(strip_slash(workdir)) != absolute_path(tree.path))
        throw Error("worktree " + tree.path.string() + " opens as " +
                    (workdir ? std::string(workdir) : std::string("a bare repository")) +
                    "; refusing to act on the wrong tree");
    return repo;
}

} // namespace guard
