// DESIGN §4.2's question for one tip (PublishedCheck): an ancestor of a candidate U, or a
// merge into U that leaves U's tree unchanged, run where no attribute or driver reaches it.
#include "guard/git/published_check.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace guard {

PublishedCheck::PublishedCheck(const fs::path& common, const Settings& settings)
    : m_git(common), m_bases(settings.base_refs)
{
}

PublishedCheck::~PublishedCheck()
{
    std::error_code ec;
    if (!m_scratch.empty())
        fs::remove_all(m_scratch, ec);
}

void PublishedCheck::seed(RefListing listing)
{
    m_listed = true;
    m_remotes = std::move(listing.remotes);
    m_upstreams = std::move(listing.upstreams);
}

std::vector<std::string> PublishedCheck::candidates(const std::string& branch)
{
    if (!m_listed) {
        m_listed = true;
        // One git for both: the remote-tracking refs, and each branch's upstream. A ref name
        // holds no space; an upstream may be empty.
        RunResult refs = m_git.run({"for-each-ref", "--format=%(refname) %(upstream)", "refs/heads/", "refs/remotes/"});
        for (const auto& line : split(refs.out, '\n')) {
            auto sp = line.find(' ');
            std::string name = line.substr(0, sp);
            if (name.starts_with("refs/remotes/"))
                m_remotes.push_back(name);
            else if (name.starts_with("refs/heads/") && sp != std::string::npos && sp + 1 < line.size())
                m_upstreams[name.substr(11)] = line.substr(sp + 1);
        }
    }
    std::vector<std::string> picked;
    if (auto up = m_upstreams.find(branch); !branch.empty() && up != m_upstreams.end() && !m_excluded.count(up->second))
        picked.push_back(up->second);
    // refs/remotes/*/HEAD is symbolic: listed here by name, resolved by git.
    for (const auto& name : m_remotes) {
        auto slash = name.find('/', 13);
        auto tail = slash == std::string::npos ? "" : name.substr(slash + 1);
        if ((tail == "HEAD" || (!branch.empty() && tail == branch)) && !m_excluded.count(name))
            picked.push_back(name);
    }
    for (const auto& base : m_bases)
        if (!may_name_excluded(base))
            picked.push_back(base);
    return picked;
}

// Whether git could read `base` as one of the excluded refs. Asked without a process, so
// it errs towards yes (a base left out only means the tip is saved): every place git's
// lookup tries for a name, and HEAD (or `@`) for any branch, since it may point at one.
bool PublishedCheck::may_name_excluded(const std::string& base) const
{
    for (const auto& ref : m_excluded) {
        if ((base == "HEAD" || base == "@") && ref.starts_with("refs/heads/"))
            return true;
        for (const char* prefix : {"", "refs/", "refs/tags/", "refs/heads/", "refs/remotes/"})
            if (ref == prefix + base)
                return true;
        if (ref == "refs/remotes/" + base + "/HEAD")
            return true;
    }
    return false;
}

// An empty bare repository that borrows our objects through alternates: it has
// no info/attributes, no HEAD tree and no worktree, and reads no attribute file,
// so neither a `merge=ours` attribute nor a configured driver can make an
// unpublished change look published.
bool PublishedCheck::make_scratch()
{
    if (m_scratch.empty()) {
        fs::path tmp = m_git.common() / "guard" / "tmp";
        std::error_code ec;
        fs::create_directories(tmp, ec);
        std::string pattern = (tmp / "merge-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            return false;
        m_scratch = pattern;
        auto r = guard::run({m_git.binary(), "init", "-q", "--bare", "--template=",
                             "--object-format=" + m_git.object_format(), m_scratch.string()});
        std::ofstream alt(m_scratch / "objects" / "info" / "alternates");
        alt << absolute_path(m_git.common() / "objects").string() << "\n";
        if (const char* quarantine = std::getenv("GIT_OBJECT_DIRECTORY"))
            alt << absolute_path(quarantine).string() << "\n";
        if (r.status != 0 || !alt)
            return false;
    }
    if (m_empty_tree.empty())
        m_empty_tree = m_git.empty_tree();
    return true;
}

std::vector<std::string> PublishedCheck::merge_args() const
{
    return {"-c", "core.attributesFile=/dev/null", "-c", "attr.tree=" + m_empty_tree, "merge-tree", "--write-tree"};
}

std::optional<RunResult> PublishedCheck::merge_all(const std::string& lines)
{
    if (!make_scratch())
        return std::nullopt;
    auto args = merge_args();
    args.insert(args.end(), {"--stdin", "--name-only", "--no-messages"});
    return Git(m_scratch).isolated().with_env("GIT_ATTR_NOSYSTEM", "1").run(args, lines);
}

bool PublishedCheck::merges_cleanly(const std::string& tip, const std::string& u)
{
    if (!make_scratch())
        return false;
    Git scratch = Git(m_scratch).isolated().with_env("GIT_ATTR_NOSYSTEM", "1");
    RunResult base = m_git.run({"rev-parse", u + "^{commit}", u + "^{tree}"});
    auto ids = split(base.out, '\n');
    if (base.status != 0 || ids.size() != 2)
        return false;
    auto args = merge_args();
    args.insert(args.end(), {ids[0], tip});
    RunResult r = scratch.run(args);
    std::string tree = r.out.substr(0, r.out.find('\n'));
    spdlog::debug("published check: {} into {}: exit {} tree {}", tip, u, r.status, tree);
    return r.status == 0 && tree == ids[1];
}

bool PublishedCheck::operator()(const std::string& tip, const std::string& branch)
{
    for (const auto& u : candidates(branch)) {
        if (m_git.run({"merge-base", "--is-ancestor", tip, u}).status == 0)
            return true;
        if (merges_cleanly(tip, u))
            return true;
    }
    return false;
}

} // namespace guard
