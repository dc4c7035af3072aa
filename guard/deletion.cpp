// What a ref transaction's branch deletions would lose, asked of git in one pass
// (DESIGN §0, §4.2), and the save of an existing commit. The hook's engine.
#include "guard/deletion.hpp"

#include "guard/error.hpp"
#include "guard/process.hpp"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <csignal>
#include <map>
#include <poll.h>
#include <set>
#include <sstream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace guard {

namespace {

[[noreturn]] void start_git(const std::string& git, const fs::path& git_dir,
                            const std::vector<std::string>& args, int in, int out, pid_t parent)
{
    // Why: a killed hook must leave no worker (LESSONS 18): we die, so does this git.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent)
        _exit(137);
    ::dup2(in, 0);
    ::dup2(out, 1);
    // Why: attributes and merge drivers must not change the published test (§4.2).
    ::setenv("GIT_ATTR_NOSYSTEM", "1", 1);
    std::vector<std::string> argv{git};
    if (!git_dir.empty())
        argv.push_back("--git-dir=" + git_dir.string());
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c;
    for (auto& a : argv)
        c.push_back(a.data());
    c.push_back(nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::execv(c[0], c.data());
    _exit(127);
}

int remaining_ms(Clock::time_point deadline)
{
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return left.count() <= 0 ? 0 : static_cast<int>(std::min<long long>(left.count(), 1 << 30));
}

} // namespace

std::optional<Bounded> run_git_bounded(const fs::path& git_dir, const std::vector<std::string>& args,
                                       const std::string& input, Clock::time_point deadline)
{
    static const std::string git = find_real_git();
    // A git that exits before reading all its input must not kill us with SIGPIPE.
    ::signal(SIGPIPE, SIG_IGN);
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
        throw Error("cannot run git " + (args.empty() ? "" : args[0]) + ": " + std::strerror(errno));
    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid == 0)
        start_git(git, git_dir, args, in[0], out[1], parent);
    ::close(in[0]);
    ::close(out[1]);
    if (pid < 0) {
        ::close(in[1]);
        ::close(out[0]);
        throw Error(std::string("cannot start git: ") + std::strerror(errno));
    }
    Bounded result;
    size_t written = 0;
    int to_child = in[1];
    if (input.empty()) {
        ::close(to_child);
        to_child = -1;
    }
    bool timed_out = false;
    for (;;) {
        pollfd fds[2] = {{out[0], POLLIN, 0}, {to_child, POLLOUT, 0}};
        int ready = ::poll(fds, to_child >= 0 ? 2 : 1, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            timed_out = true;
            break;
        }
        if (to_child >= 0 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n = ::write(to_child, input.data() + written, std::min<size_t>(input.size() - written, 65536));
            written += n > 0 ? static_cast<size_t>(n) : 0;
            if (n < 0 || written == input.size()) {
                ::close(to_child);
                to_child = -1;
            }
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            char buf[65536];
            ssize_t n = ::read(out[0], buf, sizeof buf);
            if (n <= 0)
                break;
            result.out.append(buf, static_cast<size_t>(n));
        }
    }
    if (to_child >= 0)
        ::close(to_child);
    ::close(out[0]);
    if (timed_out)
        ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out)
        return std::nullopt;
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

namespace {

struct RefInfo {
    std::string oid, type, tree, upstream;
};

// Every ref as git lists it (the current worktree's view), in one call.
std::map<std::string, RefInfo> list_refs(const fs::path& git_dir, Clock::time_point deadline)
{
    auto r = run_git_bounded(git_dir,
                             {"for-each-ref", "--format=%(objectname) %(objecttype) %(tree) "
                                              "%(upstream) %(refname)"},
                             "", deadline);
    if (!r || r->status != 0)
        throw Error(r ? "git for-each-ref failed" : "git for-each-ref ran past guard.hookTimeout");
    std::map<std::string, RefInfo> refs;
    std::istringstream lines(r->out);
    std::string line;
    while (std::getline(lines, line)) {
        // The upstream and tree fields may be empty: split on single spaces.
        std::vector<std::string> f;
        size_t at = 0;
        for (int i = 0; i < 4; ++i) {
            size_t space = line.find(' ', at);
            if (space == std::string::npos)
                break;
            f.push_back(line.substr(at, space - at));
            at = space + 1;
        }
        if (f.size() == 4)
            refs[line.substr(at)] = {f[0], f[1], f[2], f[3]};
    }
    return refs;
}

// Detached HEADs of every worktree hold commits; a HEAD on a branch holds nothing of
// its own once the branch goes.
std::vector<std::string> detached_heads(const fs::path& git_dir, Clock::time_point deadline)
{
    auto r = run_git_bounded(git_dir, {"worktree", "list", "--porcelain"}, "", deadline);
    std::vector<std::string> heads;
    if (!r || r->status != 0)
        return heads;
    std::istringstream lines(r->out);
    std::string line, head;
    while (std::getline(lines, line)) {
        if (line.starts_with("HEAD "))
            head = line.substr(5);
        else if (line == "detached" && !head.empty())
            heads.push_back(head);
    }
    return heads;
}

// Commit -> parents, for every commit the tips reach and no holder does.
using Graph = std::map<std::string, std::vector<std::string>>;

std::vector<std::string> reach(const Graph& graph, const std::string& tip)
{
    std::vector<std::string> found, stack{tip};
    std::set<std::string> seen;
    while (!stack.empty()) {
        std::string c = stack.back();
        stack.pop_back();
        auto it = graph.find(c);
        if (it == graph.end() || !seen.insert(c).second)
            continue;
        found.push_back(c);
        stack.insert(stack.end(), it->second.begin(), it->second.end());
    }
    return found;
}

// Refs whose content counts as published for `branch` (DESIGN §4.2).
std::vector<std::string> candidates(const std::map<std::string, RefInfo>& refs, const std::string& ref,
                                    const Settings& settings)
{
    std::vector<std::string> picked;
    std::string branch = ref.starts_with("refs/heads/") ? ref.substr(11) : "";
    if (auto it = refs.find(ref); it != refs.end() && !it->second.upstream.empty())
        picked.push_back(it->second.upstream);
    for (const auto& [name, info] : refs) {
        if (!name.starts_with("refs/remotes/"))
            continue;
        auto slash = name.find('/', 13);
        auto tail = slash == std::string::npos ? "" : name.substr(slash + 1);
        if (tail == "HEAD" || (!branch.empty() && tail == branch))
            picked.push_back(name);
    }
    picked.insert(picked.end(), settings.base_refs.begin(), settings.base_refs.end());
    return picked;
}

// Merging `tip` into `base` leaves base's tree unchanged: git's own merge says so.
bool merges_clean(const fs::path& git_dir, const std::string& base, const std::string& base_tree,
                  const std::string& tip, Clock::time_point deadline, bool& late)
{
    auto r = run_git_bounded(git_dir,
                             {"-c", "core.attributesFile=/dev/null", "-c", "merge.renormalize=false",
                              "merge-tree", "--write-tree", base, tip},
                             "", deadline);
    late = late || !r;
    return r && r->status == 0 && r->out.substr(0, r->out.find('\n')) == base_tree;
}

} // namespace

std::vector<BranchVerdict> judge_deletions(const fs::path& git_dir, const RefTransaction& tx,
                                           const Settings& settings, Clock::time_point deadline)
{
    std::vector<BranchVerdict> verdicts;
    for (const auto& d : tx.deletions)
        verdicts.push_back({d, {d.old_oid}, true});
    try {
        auto refs = list_refs(git_dir, deadline);
        std::set<std::string> gone(tx.other_deleted.begin(), tx.other_deleted.end());
        std::string input;
        for (const auto& d : tx.deletions) {
            gone.insert(d.ref);
            input += d.old_oid + "\n";
        }
        for (const auto& [name, info] : refs)
            if (!gone.count(name) && (info.type == "commit" || info.type == "tag"))
                input += "^" + info.oid + "\n";
        for (const auto& oid : tx.written)
            input += "^" + oid + "\n";
        for (const auto& oid : detached_heads(git_dir, deadline))
            input += "^" + oid + "\n";
        // The one walk: every tip against every ref that stays (§4.2).
        auto walk = run_git_bounded(git_dir, {"rev-list", "--parents", "--stdin"}, input, deadline);
        if (!walk)
            return verdicts;
        if (walk->status != 0)
            throw Error("git rev-list failed on the transaction's values");
        Graph graph;
        std::istringstream lines(walk->out);
        std::string line;
        while (std::getline(lines, line)) {
            std::istringstream words(line);
            std::string c, p;
            words >> c;
            auto& parents = graph[c];
            while (words >> p)
                parents.push_back(p);
        }
        bool late = false;
        std::map<std::string, std::string> base_trees;  // candidate -> commit tree (or "")
        for (auto& v : verdicts) {
            v.commits = reach(graph, v.deletion.old_oid);
            bool published = v.commits.empty();
            for (const auto& base : published ? std::vector<std::string>{}
                                              : candidates(refs, v.deletion.ref, settings)) {
                if (late || published)
                    break;
                auto it = refs.find(base);
                std::string tree = it != refs.end() ? it->second.tree : "";
                if (tree.empty() && it == refs.end()) {
                    auto r = run_git_bounded(git_dir, {"rev-parse", "--verify", "-q", base + "^{tree}"},
                                             "", deadline);
                    tree = r && r->status == 0 ? r->out.substr(0, r->out.find('\n')) : "";
                }
                published = !tree.empty() && merges_clean(git_dir, base, tree, v.deletion.old_oid,
                                                          deadline, late);
            }
            v.unchecked = late && !published;
            if (published)
                v.commits.clear();
        }
    } catch (const std::exception& e) {
        // Fail closed (§0.3): an error while deciding keeps every tip.
        // Verdicts not reached yet still hold their tip, unchecked.
        spdlog::warn("judging deletions failed, saving every tip not yet judged: {}", e.what());
        std::fprintf(stderr, "git-guard: cannot tell which deleted tips are published (%s): keeping them\n",
                     e.what());
    }
    return verdicts;
}

Saved save_existing(const fs::path& git_dir, const std::string& name, const std::string& commit,
                    const SaveOptions& options)
{
    // Why libgit2: its ref writes run no hooks (LESSONS 4), so a policy hook cannot
    // reject the save and our own hook is not re-entered. One open per repository:
    // a transaction may save a thousand tips.
    static std::map<fs::path, Repository> open;
    auto it = open.find(git_dir);
    if (it == open.end())
        it = open.emplace(git_dir, open_repository(git_dir)).first;
    return save_tip(it->second.get(), name, parse_oid(commit), options);
}

} // namespace guard
