// The shim's slow path: `git worktree remove|prune|add` in a guarded repository.
// The static front end (front/shim.c) sends only these here; everything else
// never reaches this file.
#include "guard/shim.hpp"
#include "guard/journal.hpp"

#include "guard/lock.hpp"
#include "guard/log.hpp"
#include "guard/process.hpp"
#include "guard/repo.hpp"
#include "guard/report.hpp"
#include "guard/snapshot.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

namespace fs = std::filesystem;

namespace guard {

namespace {

// git's command line split at the subcommand, with what we need from the
// global options. `subcommand` holds the words after git's options, aliases expanded.
struct GitCall {
    std::vector<std::string> globals; // to repeat on our own git calls
    fs::path cwd;                     // after every -C
    std::vector<std::string> words;   // e.g. {"worktree", "remove", "-f", "T"}
};

bool takes_value(const std::string& a)
{
    return a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" ||
           a == "--config-env" || a == "--super-prefix";
}

GitCall parse_globals(const std::vector<std::string>& args)
{
    GitCall call;
    call.cwd = fs::current_path();
    size_t i = 1;
    for (; i < args.size() && args[i].size() > 1 && args[i][0] == '-'; ++i) {
        const std::string& a = args[i];
        if (takes_value(a) && i + 1 < args.size()) {
            if (a == "-C")
                call.cwd = absolute_path(call.cwd / args[i + 1]);
            else
                call.globals.insert(call.globals.end(), {a, args[i + 1]});
            ++i;
        } else if (a != "-p" && a != "--paginate" && a != "-P" && a != "--no-pager") {
            call.globals.push_back(a);
        }
    }
    call.words.assign(args.begin() + static_cast<long>(i), args.end());
    return call;
}

std::vector<std::string> git_argv(const std::string& git, const GitCall& call,
                                  std::initializer_list<std::string> rest)
{
    std::vector<std::string> argv{git};
    argv.insert(argv.end(), call.globals.begin(), call.globals.end());
    argv.insert(argv.end(), rest.begin(), rest.end());
    return argv;
}

std::vector<std::string> split_words(const std::string& text)
{
    std::vector<std::string> words;
    size_t i = 0;
    while (i < text.size()) {
        i = text.find_first_not_of(" \t\n", i);
        if (i == std::string::npos)
            break;
        size_t end = text.find_first_of(" \t\n", i);
        words.push_back(text.substr(i, end - i));
        i = end == std::string::npos ? text.size() : end;
    }
    return words;
}

// Expands aliases (`git rmwt T` with alias.rmwt = "worktree remove") as git would.
void expand_alias(const std::string& git, GitCall& call)
{
    for (int depth = 0; depth < 10 && !call.words.empty() && call.words[0] != "worktree"; ++depth) {
        auto r = run(git_argv(git, call, {"config", "--get", "alias." + call.words[0]}),
                     {.cwd = call.cwd.string()});
        if (r.status != 0 || r.out.empty() || r.out[0] == '!')
            return;
        auto expansion = split_words(r.out);
        call.words.erase(call.words.begin());
        call.words.insert(call.words.begin(), expansion.begin(), expansion.end());
    }
}

[[noreturn]] void exec_git(const std::string& git, const std::vector<std::string>& args)
{
    std::vector<std::string> argv = args;
    argv[0] = git;
    exec(argv);
}

// The tree `git worktree remove <arg>` means: its path, or a unique path suffix.
std::optional<Worktree> find_tree(git_repository* repo, const fs::path& cwd, const std::string& arg)
{
    if (auto exact = find_worktree(repo, cwd / arg))
        return exact;
    std::optional<Worktree> found;
    for (const auto& t : list_worktrees(repo)) {
        std::string p = t.path.string();
        if (!t.is_main && p.size() > arg.size() && p.ends_with("/" + arg)) {
            if (found)
                return std::nullopt;
            found = t;
        }
    }
    return found;
}

void report_saved(const Saved& s, const std::string& what)
{
    std::fprintf(stderr, "git-guard: %s %s to %s (git show --stat %s)\n",
                 s.existing ? "already saved" : "saved", what.c_str(),
                 s.ref.substr(11).c_str(), shell_quote(s.ref.substr(11)).c_str());
}

int refuse(const Work& w, const std::string& why)
{
    std::fprintf(stderr, "fatal: git-guard: %s", refusal_message(w, why).c_str());
    spdlog::warn("refused to let git remove {}: {}", w.path, why);
    journal_refusal({}, w, why, "git worktree");
    return 128;
}

struct RemoveArgs {
    int force = 0;
    std::string path;
};

RemoveArgs parse_remove(const std::vector<std::string>& words)
{
    RemoveArgs r;
    bool options = true;
    for (size_t i = 2; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (options && w == "--")
            options = false;
        else if (options && w == "--force")
            ++r.force;
        else if (options && w.size() > 1 && w[0] == '-' && w.find_first_not_of('f', 1) == std::string::npos)
            r.force += static_cast<int>(w.size() - 1);
        else if (!options || w[0] != '-')
            r.path = w;
    }
    return r;
}

int guard_remove(const std::string& git, const GitCall& call, git_repository* repo,
                 const Settings& settings, const std::vector<std::string>& args)
{
    RemoveArgs ra = parse_remove(call.words);
    auto tree = ra.path.empty() ? std::nullopt : find_tree(repo, call.cwd, ra.path);
    if (!tree || tree->is_main || tree->prunable)
        exec_git(git, args); // git refuses or reports it itself
    bool our_lock = tree->locked && tree->lock_reason == "git-guard" && settings.lock_worktrees;
    if (tree->locked && !our_lock && ra.force < 2)
        exec_git(git, args);
    // Held across the exec below: git removes the tree while we still own its lock.
    PathLock lock(common_dir(repo), tree->path.string(), settings.lock_timeout);
    auto fresh = find_tree(repo, call.cwd, ra.path);
    if (!fresh || fresh->prunable)
        exec_git(git, args); // another process removed it while we waited
    Repository tree_repo = open_worktree(*fresh);
    Work work = inspect_tree(tree_repo.get(), *fresh, settings);
    if (ra.force == 0 && work.git_sees_changes)
        exec_git(git, args); // git refuses a dirty tree without --force
    if (work.verdict == Verdict::cannot_save)
        return refuse(work, work.reason);
    try {
        if (auto saved = save_tree(tree_repo.get(), *fresh, work, settings, {.reason = "worktree remove"}))
            report_saved(*saved, fresh->path.string());
    } catch (const Error& e) {
        return refuse(work, e.what());
    }
    if (our_lock)
        run({git, "worktree", "unlock", fresh->path.string()}, {.cwd = call.cwd.string()});
    // Point of no return: the work is on a verified branch; git removes the tree.
    exec_git(git, args);
}

int guard_prune(const std::string& git, const GitCall& call, git_repository* repo,
                const Settings& settings, const std::vector<std::string>& args)
{
    for (size_t i = 2; i < call.words.size(); ++i)
        if (call.words[i] == "-n" || call.words[i] == "--dry-run")
            exec_git(git, args);
    for (const auto& tree : list_worktrees(repo)) {
        if (!tree.prunable || tree.locked)
            continue;
        PathLock lock(common_dir(repo), tree.path.string(), settings.lock_timeout);
        Work work = inspect_admin(repo, tree, settings);
        if (work.verdict != Verdict::has_work)
            continue;
        try {
            Saved s = save_tip(repo, tree.path.filename().string(), *work.head, {.reason = "worktree prune"});
            report_saved(s, "the commits of " + tree.path.string());
        } catch (const Error& e) {
            return refuse(work, e.what());
        }
    }
    exec_git(git, args);
}

// `git worktree add --no-checkout` runs no post-checkout hook: lock the tree here.
int guard_add(const std::string& git, const GitCall& call, const Settings& settings,
              const std::vector<std::string>& args)
{
    bool no_checkout = false;
    std::string path;
    for (size_t i = 2; i < call.words.size(); ++i) {
        const std::string& w = call.words[i];
        if (w == "--no-checkout")
            no_checkout = true;
        else if (w == "-b" || w == "-B" || w == "--reason")
            ++i;
        else if (path.empty() && w[0] != '-')
            path = w;
    }
    if (!settings.lock_worktrees || !no_checkout || path.empty())
        exec_git(git, args);
    std::vector<std::string> argv = args;
    argv[0] = git;
    auto r = run(argv, {.capture = false});
    if (r.status == 0)
        run({git, "-C", call.cwd.string(), "worktree", "lock", "--reason", "git-guard", path});
    return r.status;
}

} // namespace

size_t subcommand_index(const std::vector<std::string>& argv)
{
    size_t i = 1;
    for (; i < argv.size() && argv[i].size() > 1 && argv[i][0] == '-'; ++i)
        if (takes_value(argv[i]))
            ++i;
    return i;
}

int run_shim(const std::vector<std::string>& args)
{
    std::string git = find_real_git();
    GitCall call = parse_globals(args);
    expand_alias(git, call);
    if (call.words.size() < 2 || call.words[0] != "worktree")
        exec_git(git, args);
    auto dir = run(git_argv(git, call, {"rev-parse", "--absolute-git-dir"}), {.cwd = call.cwd.string()});
    LibGit2 libgit2;
    if (dir.status != 0)
        exec_git(git, args); // not a repository: git says so itself
    Repository repo = open_repository(dir.out.substr(0, dir.out.find('\n')));
    Settings settings = read_settings(repo.get());
    if (!settings.enabled)
        exec_git(git, args);
    init_log(common_dir(repo.get()), false);
    spdlog::info("shim: git worktree {}", call.words[1]);
    if (call.words[1] == "remove")
        return guard_remove(git, call, repo.get(), settings, args);
    if (call.words[1] == "prune")
        return guard_prune(git, call, repo.get(), settings, args);
    if (call.words[1] == "add")
        return guard_add(git, call, settings, args);
    exec_git(git, args);
}

} // namespace guard
