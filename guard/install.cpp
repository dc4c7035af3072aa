// git guard install / uninstall. Config and worktree locks go through the real git's
// own commands (`git config`, `git worktree lock`) so the files they write are exactly
// what git would write; hooks are files we place and move ourselves. Every change is
// recorded in `<common>/guard/manifest` before it is made, so uninstall can put back
// each byte even after an install that stopped half way.
#include "guard/install.hpp"

#include "guard/error.hpp"
#include "guard/process.hpp"
#include "guard/repo.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr const char* k_chained_suffix = ".guard-chained";
constexpr const char* k_lock_reason = "git-guard";

using Record = std::vector<std::string>;

std::optional<std::string> read_bytes(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

// Replaces `path` whole (temp file, then rename), keeping its mode unless `mode` is given.
void write_bytes(const fs::path& path, const std::string& bytes, std::optional<fs::perms> mode = {})
{
    std::error_code ec;
    auto old_mode = fs::status(path, ec).permissions();
    fs::path temp = path.string() + ".guard-tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << bytes;
        if (!out.flush())
            throw Error("cannot write " + temp.string());
    }
    fs::permissions(temp, mode ? *mode : ec ? fs::perms(0644) : old_mode);
    fs::rename(temp, path);
}

bool exists_at_all(const fs::path& path)
{
    std::error_code ec;
    return fs::symlink_status(path, ec).type() != fs::file_type::not_found;
}

std::string escape(const std::string& field)
{
    std::string out;
    for (char c : field)
        out += c == '\\' ? "\\\\" : c == '\t' ? "\\t" : c == '\n' ? "\\n" : std::string(1, c);
    return out;
}

Record unescape_line(const std::string& line)
{
    Record fields(1);
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\t')
            fields.emplace_back();
        else if (line[i] == '\\' && i + 1 < line.size())
            fields.back() += line[++i] == 't' ? '\t' : line[i] == 'n' ? '\n' : line[i];
        else
            fields.back() += line[i];
    }
    return fields;
}

// Everything install changed, one action per line: `hook P` (we wrote P, nothing was
// there), `chain P` (the previous P is P.guard-chained), `dir D` (created), `exclude
// present|absent`, `config KEY set|absent OLD`, `lock TREE`, `shim LINK`, `registry FILE`.
// The bytes it replaced are kept beside it in `backup/`.
class Manifest {
  public:
    static fs::path file(const fs::path& common) { return common / "guard" / "manifest"; }

    bool load(const fs::path& common)
    {
        auto text = read_bytes(file(common));
        if (!text)
            return false;
        std::istringstream in(*text);
        for (std::string line; std::getline(in, line);)
            if (!line.empty() && line[0] != '#')
                m_records.push_back(unescape_line(line));
        return true;
    }

    void save(const fs::path& common) const
    {
        std::string text = "# git-guard install manifest 1: what 'git guard uninstall' restores\n";
        for (const auto& record : m_records) {
            for (size_t i = 0; i < record.size(); ++i)
                text += (i ? "\t" : "") + escape(record[i]);
            text += '\n';
        }
        fs::create_directories(common / "guard");
        write_bytes(file(common), text, fs::perms(0644));
    }

    void add(Record record) { m_records.push_back(std::move(record)); }

    std::optional<Record> find(const std::string& kind, const std::string& first = "") const
    {
        for (const auto& r : m_records)
            if (r[0] == kind && (first.empty() || (r.size() > 1 && r[1] == first)))
                return r;
        return std::nullopt;
    }

    const std::vector<Record>& records() const { return m_records; }

  private:
    std::vector<Record> m_records;
};

struct Context {
    std::string git;
    Repository repo;
    fs::path common;
    Manifest manifest;
    InstallReport report;

    void say(std::string line, bool changed = true)
    {
        report.lines.push_back(std::move(line));
        report.changed = report.changed || changed;
    }

    // Records `record` on disk before the change it describes is made.
    void record(Record r)
    {
        manifest.add(std::move(r));
        manifest.save(common);
    }
};

RunResult git_in(const Context& ctx, std::vector<std::string> args)
{
    args.insert(args.begin(), {ctx.git, "--git-dir=" + ctx.common.string()});
    return run(args);
}

void git_checked(const Context& ctx, const std::vector<std::string>& args)
{
    auto result = git_in(ctx, args);
    if (result.status != 0)
        throw Error("'git " + args[0] + " " + args[1] + "' failed in " + ctx.common.string() +
                    ": " + result.err);
}

std::string display(const Context& ctx, const fs::path& path)
{
    auto rel = path.lexically_relative(ctx.common.parent_path());
    return !rel.empty() && *rel.begin() != ".." ? rel.string() : path.string();
}

fs::path backup(const fs::path& common, const char* name)
{
    return common / "guard" / "backup" / name;
}

} // namespace

std::string hook_stub(const std::string& name)
{
    fs::path exe_dir = fs::path(self_path()).parent_path();
    fs::path path = exe_dir.parent_path() / "share/git-guard/hooks" / name;
    auto stub = read_bytes(path);
    if (!stub)
        throw Error("the hook template " + path.string() +
                    " is missing; reinstall git-guard "
                    "('cmake --install' puts it under share/git-guard/hooks)");
    fs::path front = front_end("git-guard-hook");
    if (::access(front.c_str(), X_OK) != 0)
        throw Error("the hook front end " + front.string() + " is missing; reinstall git-guard");
    const std::string placeholder = "@GUARD_HOOK_FRONT@";
    for (auto at = stub->find(placeholder); at != std::string::npos;
         at = stub->find(placeholder, at))
        stub->replace(at, placeholder.size(), front.string());
    return *stub;
}

namespace {

bool is_ours(const fs::path& hook)
{
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(hook, ec)))
        return false;
    return read_bytes(hook).value_or("").find(hook_marker(hook.filename().string())) !=
           std::string::npos;
}

// Creates `dir` and records the topmost directory that did not exist before.
void ensure_dir(Context& ctx, const fs::path& dir)
{
    fs::path top;
    for (fs::path p = dir; p.has_relative_path() && !exists_at_all(p); p = p.parent_path())
        top = p;
    if (top.empty())
        return;
    ctx.record({"dir", top.string()});
    fs::create_directories(dir);
    ctx.say("created the hooks directory " + display(ctx, dir));
}

// A relative core.hooksPath lies inside the worktree: keep what we add out of
// `git status`, or every tree would look dirty to git and to the guard itself.
void keep_out_of_status(Context& ctx, const fs::path& root, const fs::path& file)
{
    auto rel = file.lexically_relative(root).string();
    if (rel.starts_with("..") ||
        run({ctx.git, "-C", root.string(), "check-ignore", "-q", "--", rel}).status == 0)
        return; // outside the tree, or ignored already
    fs::path exclude = ctx.common / "info" / "exclude";
    auto text = read_bytes(exclude);
    if (!ctx.manifest.find("exclude")) {
        if (text) {
            fs::create_directories(ctx.common / "guard" / "backup");
            write_bytes(backup(ctx.common, "exclude.before"), *text, fs::perms(0644));
        }
        ctx.record({"exclude", text ? "present" : "absent"});
    }
    std::string lines = text.value_or("");
    if (!lines.empty() && lines.back() != '\n')
        lines += '\n';
    fs::create_directories(exclude.parent_path());
    write_bytes(exclude, lines + "/" + rel + "\n");
    ctx.say("excluded /" + rel + " from git status (in info/exclude)");
}

void refuse_tracked(const Context& ctx, const fs::path& root, const fs::path& hook)
{
    auto rel = hook.lexically_relative(root).string();
    if (run({ctx.git, "-C", root.string(), "ls-files", "--error-unmatch", "--", rel}).status != 0)
        return;
    throw Error("the hook " + hook.string() +
                " is tracked in the repository; chaining it would "
                "change a tracked file in every worktree. Point core.hooksPath at an untracked "
                "directory (or unset it) and run install again");
}

// A hook manager that reinstalls (husky on every `npm install`, lefthook) writes its hook
// over ours again: the same file we chained already. Only then may it be replaced.
bool rewritten(const fs::path& hook, const fs::path& chained)
{
    std::error_code ec;
    auto a = fs::symlink_status(hook, ec), b = fs::symlink_status(chained, ec);
    return fs::is_regular_file(a) && fs::is_regular_file(b) && a.permissions() == b.permissions() &&
           read_bytes(hook) == read_bytes(chained);
}

// Refuses, before anything is written, a hook that cannot be chained.
void check_hook(const Context& ctx, const fs::path& dir, const std::string& name,
                const fs::path& root)
{
    fs::path hook = dir / name;
    fs::path chained = dir / (name + k_chained_suffix);
    hook_stub(name); // the template and the front end are there
    if (is_ours(hook) || !exists_at_all(hook) || rewritten(hook, chained))
        return;
    if (exists_at_all(chained))
        throw Error(chained.string() + " already exists, so the hook " + hook.string() +
                    " cannot be chained; move one of them away and run install again");
    if (!root.empty())
        refuse_tracked(ctx, root, hook);
}

// Writes our stub for `name` into `dir`; a hook that was there runs as `<name>.guard-chained`.
void place_hook(Context& ctx, const fs::path& dir, const std::string& name, const fs::path& root)
{
    fs::path hook = dir / name;
    fs::path chained = dir / (name + k_chained_suffix);
    std::string stub = hook_stub(name);
    if (is_ours(hook)) {
        if (read_bytes(hook) == stub)
            return ctx.say("the " + name + " hook is already installed in " + display(ctx, dir),
                           false);
        write_bytes(hook, stub, fs::perms(0755));
        return ctx.say("updated the " + name + " hook in " + display(ctx, dir));
    }
    bool had_hook = exists_at_all(hook);
    bool again = had_hook && rewritten(hook, chained);
    ensure_dir(ctx, dir);
    if (!ctx.manifest.find(had_hook ? "chain" : "hook", hook.string()))
        ctx.record({had_hook ? "chain" : "hook", hook.string()});
    // A rename keeps the user's hook as it was: bytes, mode, owner, even a symlink.
    if (again)
        fs::remove(hook);
    else if (had_hook)
        fs::rename(hook, chained);
    write_bytes(hook, stub, fs::perms(0755));
    if (!root.empty()) {
        keep_out_of_status(ctx, root, hook);
        if (had_hook)
            keep_out_of_status(ctx, root, chained);
    }
    if (again)
        return ctx.say("put back the " + name + " hook in " + display(ctx, dir) + ": " +
                       "the hook that was written over it is the one already kept as " + name +
                       k_chained_suffix);
    ctx.say("installed the " + name + " hook in " + display(ctx, dir) +
            (had_hook
                 ? " (the previous one is kept as " + name + k_chained_suffix + " and still runs)"
                 : ""));
}

void set_config(Context& ctx, const std::string& key, const std::string& value)
{
    auto current = git_in(ctx, {"config", "--local", "--get", key});
    std::string old = current.out.substr(0, current.out.find('\n'));
    if (current.status == 0 && old == value)
        return ctx.say(key + " is already " + value, false);
    if (!ctx.manifest.find("config", key))
        ctx.record({"config", key, current.status == 0 ? "set" : "absent", old});
    git_checked(ctx, {"config", "--local", key, value});
    ctx.say("set " + key + "=" + value);
}

void lock_worktrees(Context& ctx)
{
    for (const auto& tree : list_worktrees(ctx.repo.get())) {
        if (tree.is_main || tree.prunable)
            continue;
        if (tree.locked) {
            ctx.say("worktree " + tree.path.string() + " is already locked", false);
            continue;
        }
        ctx.record({"lock", tree.path.string()});
        git_checked(ctx, {"worktree", "lock", "--reason", k_lock_reason, tree.path.string()});
        ctx.say("locked worktree " + tree.path.string() + " (reason: git-guard)");
    }
}

fs::path registry_file()
{
    const char* home = std::getenv("HOME");
    return fs::path(home ? home : "/") / ".local/share/git-guard/repos";
}

std::vector<std::string> read_lines(const fs::path& file)
{
    std::vector<std::string> lines;
    std::istringstream in(read_bytes(file).value_or(""));
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            lines.push_back(line);
    return lines;
}

void write_lines(const fs::path& file, const std::vector<std::string>& lines)
{
    std::string text;
    for (const auto& line : lines)
        text += line + "\n";
    fs::create_directories(file.parent_path());
    write_bytes(file, text, fs::perms(0644));
}

bool same_file(const fs::path& a, const fs::path& b)
{
    std::error_code ec;
    return fs::equivalent(a, b, ec);
}

// The line to print about PATH: whether `git` there already runs the shim.
std::string path_advice(const fs::path& dir, const fs::path& shim)
{
    const char* env = std::getenv("PATH");
    std::istringstream in(env ? env : "");
    for (std::string entry; std::getline(in, entry, ':');) {
        fs::path git = fs::path(entry.empty() ? "." : entry) / "git";
        if (::access(git.c_str(), X_OK) != 0 || fs::is_directory(git))
            continue;
        if (same_file(git, shim))
            return dir.string() + " is already first on PATH: git runs the shim";
        break;
    }
    return "put the shim first on PATH (add this line to ~/.profile or ~/.bashrc):\n  export "
           "PATH=\"" +
           dir.string() + ":$PATH\"";
}

// The installed shim. A `git` at `link` that is not a git-guard shim is never
// replaced: it may be the user's real git.
fs::path check_shim(const fs::path& link)
{
    fs::path shim = front_end("git-guard-shim");
    if (::access(shim.c_str(), X_OK) != 0)
        throw Error("the shim " + shim.string() + " is missing; reinstall git-guard");
    std::error_code ec;
    bool shim_link =
        fs::is_symlink(link, ec) && fs::read_symlink(link, ec).filename() == "git-guard-shim";
    if (exists_at_all(link) && !shim_link && !same_file(link, shim))
        throw Error(link.string() +
                    " exists and is not the git-guard shim; git-guard never "
                    "replaces a real git. Choose another directory with --shim-dir");
    return shim;
}

void link_shim(Context& ctx, const fs::path& link)
{
    fs::path shim = check_shim(link);
    if (!ctx.manifest.find("shim", link.string()))
        ctx.record({"shim", link.string()});
    if (same_file(link, shim)) {
        ctx.say("the shim is already linked at " + link.string(), false);
    } else {
        std::error_code ec;
        fs::create_directories(link.parent_path());
        fs::remove(link, ec); // a link to an older installation's shim
        fs::create_symlink(shim, link);
        ctx.say("linked the shim: " + link.string() + " -> " + shim.string());
    }
    fs::path registry = registry_file();
    if (!ctx.manifest.find("registry", registry.string()))
        ctx.record({"registry", registry.string()});
    auto repos = read_lines(registry);
    if (std::find(repos.begin(), repos.end(), ctx.common.string()) == repos.end()) {
        repos.push_back(ctx.common.string());
        write_lines(registry, repos);
        ctx.say("registered " + ctx.common.string() + " in " + registry.string());
    }
    ctx.say(path_advice(link.parent_path(), shim), false);
}

void check_git(Context& ctx, const InstallOptions& options)
{
    auto [major, minor] = git_version(ctx.git);
    if (major > 2 || (major == 2 && minor >= 38))
        return;
    std::string lost =
        "git " + std::to_string(major) + "." + std::to_string(minor) + " at " + ctx.git +
        " is older than 2.38 and has no 'merge-tree --write-tree', so git-guard cannot "
        "tell published (rebased or squash-merged) history from unpublished: it would "
        "save every deleted branch whose commits no other ref holds";
    if (!options.force)
        throw Error(lost + ". Upgrade git, or run 'git guard install --force' to accept that");
    ctx.say("warning: " + lost);
}

void check_hooks_scope(const HooksLocation& hooks, const InstallOptions& options)
{
    if (options.force || (hooks.scope != "global" && hooks.scope != "system"))
        return;
    throw Error(
        "core.hooksPath=" + hooks.value + " comes from " + hooks.scope + " config (" +
        hooks.origin +
        "): a hook written there would guard every repository of the user. "
        "Set a local core.hooksPath, or run 'git guard install --force' to write there anyway");
}

// Keeps the config bytes from before the first install while nothing else touched the
// file; once someone else did, uninstall falls back to restoring key by key.
void snapshot_config(const fs::path& common, bool first)
{
    fs::create_directories(common / "guard" / "backup");
    auto now = read_bytes(common / "config").value_or("");
    if (first)
        write_bytes(backup(common, "config.before"), now, fs::perms(0600));
    else if (read_bytes(backup(common, "config.after")) != now)
        fs::remove(backup(common, "config.before"));
}

} // namespace

namespace {

void unlock_worktrees(Context& ctx)
{
    for (const auto& tree : list_worktrees(ctx.repo.get())) {
        std::string reason = tree.lock_reason.substr(0, tree.lock_reason.find('\n'));
        if (tree.is_main || !tree.locked || reason != k_lock_reason)
            continue;
        git_checked(ctx, {"worktree", "unlock", tree.path.string()});
        ctx.say("unlocked worktree " + tree.path.string());
    }
}

// Removes `dir` when it holds nothing but empty directories.
bool remove_if_empty(const fs::path& dir)
{
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (!entry.is_directory(ec) || entry.is_symlink(ec) || !remove_if_empty(entry.path()))
            return false;
    return !ec && fs::remove(dir, ec);
}

void undo_file(Context& ctx, const Record& record)
{
    fs::path path = record[1];
    if (record[0] == "dir") {
        if (remove_if_empty(path))
            ctx.say("removed the directory " + display(ctx, path));
        return;
    }
    fs::path chained = path.string() + k_chained_suffix;
    if (is_ours(path))
        fs::remove(path);
    else if (exists_at_all(path))
        return ctx.say("left " + path.string() + " alone: it is no longer git-guard's hook" +
                           (record[0] == "chain"
                                ? "; the hook it replaced is kept as " + chained.string()
                                : ""),
                       false);
    if (record[0] == "chain" && exists_at_all(chained)) {
        fs::rename(chained, path);
        return ctx.say("restored the previous hook " + display(ctx, path));
    }
    ctx.say("removed the hook " + display(ctx, path));
}

void restore_exclude(Context& ctx, const Record& record)
{
    fs::path exclude = ctx.common / "info" / "exclude";
    if (record[1] == "present")
        write_bytes(exclude, read_bytes(backup(ctx.common, "exclude.before")).value_or(""));
    else
        fs::remove(exclude);
    ctx.say("restored info/exclude");
}

void restore_config(Context& ctx)
{
    auto before = read_bytes(backup(ctx.common, "config.before"));
    auto now = read_bytes(ctx.common / "config");
    if (before && now == read_bytes(backup(ctx.common, "config.after"))) {
        write_bytes(ctx.common / "config", *before);
        return ctx.say("restored the repository config byte for byte");
    }
    auto records = ctx.manifest.records();
    for (auto r = records.rbegin(); r != records.rend(); ++r) {
        if ((*r)[0] != "config")
            continue;
        if ((*r)[2] == "set")
            git_checked(ctx, {"config", "--local", "--replace-all", (*r)[1], (*r)[3]});
        else
            git_in(ctx, {"config", "--local", "--unset-all", (*r)[1]});
    }
    // `git config --unset` leaves an empty [guard] header behind.
    if (git_in(ctx, {"config", "--local", "--get-regexp", "^guard\\."}).out.empty())
        git_in(ctx, {"config", "--local", "--remove-section", "guard"});
    ctx.say("restored the guard.* config keys (the config changed after install, so key by key)");
}

// Drops this repository from the registry; removes the shared link when no other
// registered repository's manifest still names it.
void unlink_shim(Context& ctx)
{
    auto registry = ctx.manifest.find("registry");
    if (!registry)
        return;
    auto repos = read_lines((*registry)[1]);
    std::erase(repos, ctx.common.string());
    repos.empty() ? void(fs::remove((*registry)[1])) : write_lines((*registry)[1], repos);
    for (const auto& record : ctx.manifest.records()) {
        if (record[0] != "shim")
            continue;
        fs::path link = record[1];
        size_t users = std::count_if(repos.begin(), repos.end(), [&](const std::string& other) {
            Manifest theirs;
            return theirs.load(other) && theirs.find("shim", link.string());
        });
        std::error_code ec;
        if (users > 0) {
            ctx.say("kept the shim " + link.string() + ": " + std::to_string(users) +
                        " other guarded repositories use it",
                    false);
        } else if (fs::is_symlink(link, ec) &&
                   fs::read_symlink(link, ec).filename() == "git-guard-shim") {
            fs::remove(link);
            fs::remove(link.parent_path(), ec); // only when empty
            ctx.say("removed the shim " + link.string());
        }
    }
}

} // namespace

std::string hook_marker(const std::string& hook_name)
{
    return "# git-guard " + hook_name + " hook";
}

fs::path front_end(const char* name)
{
    return fs::path(self_path()).parent_path() / name;
}

std::pair<int, int> git_version(const std::string& git)
{
    auto result = run({git, "--version"});
    int major = 0, minor = 0;
    if (result.status != 0 ||
        std::sscanf(result.out.c_str(), "git version %d.%d", &major, &minor) != 2)
        return {0, 0};
    return {major, minor};
}

fs::path default_shim_dir()
{
    if (::geteuid() == 0)
        return "/usr/local/lib/git-guard/bin";
    const char* home = std::getenv("HOME");
    return fs::path(home ? home : "/") / ".local/share/git-guard/bin";
}

fs::path installed_shim_link(const fs::path& common)
{
    Manifest manifest;
    manifest.load(common);
    auto shim = manifest.find("shim");
    return shim ? fs::path((*shim)[1]) : fs::path();
}

HooksLocation locate_hooks(const std::string& git, git_repository* repo)
{
    HooksLocation hooks;
    fs::path common = common_dir(repo);
    auto found = run({git, "--git-dir=" + common.string(), "config", "--show-scope",
                      "--show-origin", "--get", "core.hooksPath"});
    std::istringstream fields(found.out.substr(0, found.out.find('\n')));
    std::getline(fields, hooks.scope, '\t');
    std::getline(fields, hooks.origin, '\t');
    std::getline(fields, hooks.value);
    if (found.status != 0 || hooks.value.empty()) {
        hooks = {{common / "hooks"}, {""}, "", "", ""};
        return hooks;
    }
    // git reads core.hooksPath as a pathname: "~/" is the home directory.
    const char* home = std::getenv("HOME");
    fs::path value = hooks.value.rfind("~/", 0) == 0 && home
                         ? fs::path(home) / hooks.value.substr(2)
                         : fs::path(hooks.value);
    if (value.is_absolute() || git_repository_is_bare(repo)) {
        hooks.dirs = {value.is_absolute() ? value : common / value};
        hooks.roots = {""};
        return hooks;
    }
    // Git runs hooks from the worktree's root, so a relative path means one
    // directory per worktree (git 2.39: `rev-parse --git-path hooks` agrees).
    for (const auto& tree : list_worktrees(repo)) {
        if (tree.prunable)
            continue;
        hooks.dirs.push_back(tree.path / value);
        hooks.roots.push_back(tree.path);
    }
    return hooks;
}

InstallReport install(const fs::path& start, const InstallOptions& options)
{
    Context ctx{find_real_git(), open_repository(start), {}, {}, {}};
    ctx.common = common_dir(ctx.repo.get());
    check_git(ctx, options);
    auto hooks = locate_hooks(ctx.git, ctx.repo.get());
    check_hooks_scope(hooks, options);
    fs::path link = (options.shim_dir.empty() ? default_shim_dir() : options.shim_dir) / "git";
    check_shim(link);
    std::vector<std::string> names{"reference-transaction"};
    if (options.lock_worktrees)
        names.push_back("post-checkout");
    for (size_t i = 0; i < hooks.dirs.size(); ++i)
        for (const auto& name : names)
            check_hook(ctx, hooks.dirs[i], name, hooks.roots[i]);
    // Everything is validated: from here on, each change is recorded before it is made.
    snapshot_config(ctx.common, !ctx.manifest.load(ctx.common));
    for (size_t i = 0; i < hooks.dirs.size(); ++i)
        for (const auto& name : names)
            place_hook(ctx, hooks.dirs[i], name, hooks.roots[i]);
    set_config(ctx, "guard.enabled", "true");
    if (options.lock_worktrees) {
        set_config(ctx, "guard.lockWorktrees", "true");
        lock_worktrees(ctx);
    }
    link_shim(ctx, link);
    write_bytes(backup(ctx.common, "config.after"), read_bytes(ctx.common / "config").value_or(""),
                fs::perms(0600));
    if (!ctx.report.changed)
        ctx.say("git-guard is already installed in " + ctx.common.string() + ": nothing changed",
                false);
    return ctx.report;
}

InstallReport uninstall(const fs::path& start)
{
    Context ctx{find_real_git(), open_repository(start), {}, {}, {}};
    ctx.common = common_dir(ctx.repo.get());
    if (!ctx.manifest.load(ctx.common))
        throw Error("git-guard is not installed in " + ctx.common.string() + " (there is no " +
                    Manifest::file(ctx.common).string() + ")");
    unlock_worktrees(ctx);
    auto records = ctx.manifest.records();
    for (auto r = records.rbegin(); r != records.rend(); ++r) {
        if ((*r)[0] == "hook" || (*r)[0] == "chain" || (*r)[0] == "dir")
            undo_file(ctx, *r);
        else if ((*r)[0] == "exclude")
            restore_exclude(ctx, *r);
    }
    restore_config(ctx);
    unlink_shim(ctx);
    fs::remove_all(ctx.common / "guard" / "backup");
    fs::remove(Manifest::file(ctx.common));
    ctx.say("git-guard is uninstalled from " + ctx.common.string() +
            "; stranded/ branches are kept (git guard list shows them)");
    return ctx.report;
}

} // namespace guard
