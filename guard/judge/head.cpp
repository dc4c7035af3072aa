// HEAD as git reads it for one checkout: its commit, its tree, the branch it names (or
// the branch a rebase or bisect in progress belongs to), in as few gits as git's answer
// allows (DESIGN §4.1: commits only this tree holds start at its HEAD).
#include "guard/judge/head.hpp"

#include "guard/git/git.hpp"
#include "guard/judge/work.hpp"

#include <utility>

namespace fs = std::filesystem;

namespace guard {

namespace {

// The branch a detached HEAD still belongs to: a rebase or bisect in progress.
std::string branch_in_progress(const fs::path& git_dir)
{
    for (const char* file : {"rebase-merge/head-name", "rebase-apply/head-name", "BISECT_START"}) {
        std::string name = read_first_line(git_dir / file);
        if (name.starts_with("refs/heads/"))
            return name.substr(11);
        if (!name.empty() && std::string(file) == "BISECT_START" && name.find('/') == std::string::npos &&
            !is_oid(name))
            return name;
    }
    return "";
}


// HEAD's branch from git's answer `target` ("" when git gave none: detached or unread).
void read_branch(const Git& git, Work& w, std::string target)
{
    bool attached = target.starts_with("refs/");
    if (!attached) {
        std::string branch = branch_in_progress(git.git_dir());
        target = branch.empty() ? "" : "refs/heads/" + branch;
    }
    if (!target.starts_with("refs/heads/"))
        return;
    w.branch = target.substr(11);
    if (attached) {
        w.branch_tip = w.head; // HEAD names the branch: its tip is what HEAD resolved to
        return;
    }
    RunResult tip = git.run({"rev-parse", "-q", "--verify", target + "^{commit}"});
    if (tip.status == 0)
        w.branch_tip = first_line_of(tip.out);
}

} // namespace

void read_head(const Git& git, Work& w, bool ask_top)
{
    // One git for the root, HEAD, its tree and the ref HEAD names:
    // "[<top>\n]<commit>\n<tree>\n<refs/heads/x, or HEAD when detached>\n--\n". `--`: the
    // words are revisions, never paths. Unborn (or no commit), it fails whole.
    std::vector<std::string> args{"rev-parse"};
    if (ask_top)
        args.emplace_back("--show-toplevel");
    args.insert(args.end(), {"HEAD^{commit}", "HEAD^{tree}", "--symbolic-full-name", "HEAD", "--"});
    RunResult head = git.run(args);
    // Read from the end: the root may hold newlines (LESSONS 23), the ids and names never do.
    std::string out = head.out;
    if (out.ends_with("\n--\n"))
        out.resize(out.size() - 3);
    if (out.ends_with('\n'))
        out.pop_back();
    auto last_line = [&out] {
        size_t nl = out.rfind('\n');
        std::string line = out.substr(nl == std::string::npos ? 0 : nl + 1);
        out.resize(nl == std::string::npos ? 0 : nl);
        return line;
    };
    std::string named = last_line(), tree = last_line(), commit = last_line();
    if (head.status == 0 && is_oid(commit) && is_oid(tree) && !named.empty() && (!ask_top || !out.empty())) {
        w.head = commit;
        w.head_tree = tree;
        if (ask_top)
            w.top = out;
        return read_branch(git, w, named == "HEAD" ? "" : named);
    }
    if (ask_top) {
        RunResult top = git.run({"rev-parse", "--show-toplevel"});
        w.top = top.status == 0 ? output_path(top.out) : "";
    }
    RunResult verify = git.run({"rev-parse", "-q", "--verify", "HEAD^{commit}"});
    if (verify.status == 0)
        w.head = first_line_of(verify.out);
    RunResult sym = git.run({"symbolic-ref", "-q", "HEAD"});
    read_branch(git, w, sym.status == 0 ? first_line_of(sym.out) : "");
}

bool head_from_status(const Git& git, Work& w, const std::string& status_out)
{
    // The headers come first: "# branch.oid <id>\0# branch.head <name>\0…".
    std::string oid, name;
    for (size_t at = 0, end; at < status_out.size() && status_out.compare(at, 2, "# ") == 0; at = end + 1) {
        end = status_out.find('\0', at);
        if (end == std::string::npos)
            return false;
        std::string_view line(status_out.data() + at, end - at);
        if (line.starts_with("# branch.oid "))
            oid = line.substr(13);
        else if (line.starts_with("# branch.head "))
            name = line.substr(14);
    }
    // "(unknown)" and "(null)" (what glibc prints for a HEAD naming a ref outside
    // refs/heads) are also valid branch names: such a HEAD is asked again.
    if (!is_oid(oid) || name.empty() || name == "(unknown)" || name == "(null)")
        return false;
    w.head = oid;
    if (name == "(detached)") { // or a branch of that name: the refs tell (Work::detached_by_status)
        w.detached_by_status = true;
        read_branch(git, w, ""); // a rebase or bisect in progress still names its branch
        return true;
    }
    read_branch(git, w, "refs/heads/" + name);
    return true;
}

void settle_detached(const Git& git, Work& w, bool maybe_branch)
{
    if (!std::exchange(w.detached_by_status, false) || !maybe_branch)
        return;
    w.head.reset();
    w.branch.clear();
    w.branch_tip.reset();
    read_head(git, w);
}

void head_as_listed(const Git& git, Work& w, const std::string& head, const std::string& branch_ref)
{
    if (!is_oid(head) || head.find_first_not_of('0') == std::string::npos)
        return read_head(git, w); // unborn, or not listed: asked of git
    w.head = head;
    read_branch(git, w, branch_ref);
}

} // namespace guard
