#include "guard/snapshot.hpp"

#include "guard/journal.hpp"
#include "guard/lock.hpp"
#include "guard/report.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr int k_max_suffix = 20;

// A private file under `<common dir>/guard/tmp/`, removed on destruction.
class TempFile {
public:
    explicit TempFile(const fs::path& dir)
    {
        std::error_code ec;
        fs::create_directories(dir, ec);
        std::string pattern = (dir / "index-XXXXXX").string();
        int fd = ec ? -1 : ::mkstemp(pattern.data());
        if (fd < 0)
            throw Error("cannot create a private index in " + dir.string() + ": " +
                        (ec ? ec.message() : std::strerror(errno)));
        ::close(fd);
        m_path = pattern;
    }
    ~TempFile()
    {
        std::error_code ec;
        fs::remove(m_path, ec);
        fs::remove(m_path.string() + ".lock", ec);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const fs::path& path() const { return m_path; }

private:
    fs::path m_path;
};


std::string one_line(std::string text)
{
    for (auto& ch : text)
        if (static_cast<unsigned char>(ch) < 0x20)
            ch = '?';
    return text;
}

Signature identity(const Settings& settings)
{
    std::string id = settings.identity;
    auto open = id.find('<'), close = id.rfind('>');
    std::string name = "git-guard", email = "git-guard@localhost";
    if (open != std::string::npos && close != std::string::npos && close > open) {
        name = id.substr(0, open);
        while (!name.empty() && name.back() == ' ')
            name.pop_back();
        email = id.substr(open + 1, close - open - 1);
    }
    git_signature* raw = nullptr;
    check(git_signature_now(&raw, name.c_str(), email.c_str()), "guard.identity '" + id + "'");
    return Signature(raw);
}

std::string message(const Work& w, const std::string& what, const std::string& reason)
{
    std::string branch = w.branch.empty() ? "detached" : w.branch;
    std::string from = w.path.empty() ? "branch " + w.branch : w.path;
    return "stranded: " + what + " from " + one_line(from) + " (" + one_line(branch) + ")\n\n" +
           "Held " + summary(w) + ".\n\n" + "Stranded-From: " + one_line(from) + "\n" +
           "Stranded-Branch: " + one_line(branch) + "\n" +
           "Stranded-Head: " + (w.head ? to_hex(*w.head) : std::string("unborn")) + "\n" +
           "Stranded-Reason: " + one_line(reason) + "\n";
}

// HEAD's version of `path` goes back into `index`: excluded edits are not saved.
void restore_from_head(git_index* index, git_tree* head, const std::string& path)
{
    git_tree_entry* raw = nullptr;
    if (!head || git_tree_entry_bypath(&raw, head, path.c_str()) < 0) {
        git_error_clear();
        git_index_remove_bypath(index, path.c_str());
        return;
    }
    git_index_entry entry{};
    entry.mode = git_tree_entry_filemode(raw);
    entry.id = *git_tree_entry_id(raw);
    entry.path = path.c_str();
    int rc = git_index_add(index, &entry);
    git_tree_entry_free(raw);
    check(rc, "restore " + path + " from HEAD");
}

// Stages the working state into `index`, a copy of the tree's own index, so
// unchanged files keep their stat data and are not read again.
void stage(git_index* index, git_tree* head, const Work& w)
{
    for (const auto& c : w.changes) {
        if (!c.in_worktree)
            continue;
        int rc = c.gone ? git_index_remove_bypath(index, c.path.c_str())
                        : git_index_add_bypath(index, c.path.c_str());
        check(rc, "stage " + c.path);
    }
    for (const auto& e : w.excluded)
        if (e.tracked)
            restore_from_head(index, head, e.path);
}

Tree head_tree(git_repository* repo, const Work& w)
{
    if (!w.head)
        return nullptr;
    git_commit* raw = nullptr;
    check(git_commit_lookup(&raw, repo, &*w.head), "read HEAD commit of " + w.path);
    Commit commit(raw);
    git_tree* tree = nullptr;
    check(git_commit_tree(&tree, raw), "read HEAD tree of " + w.path);
    return Tree(tree);
}

git_oid write_tree(git_repository* repo, const Worktree& tree, const Work& w, git_tree* head)
{
    TempFile file(common_dir(repo) / "guard" / "tmp");
    fs::path own = fs::path(git_repository_path(repo)) / "index";
    std::error_code ec;
    // A full disk fails here or in libgit2: either way an Error, so the caller refuses.
    if (fs::exists(own, ec) &&
        !fs::copy_file(own, file.path(), fs::copy_options::overwrite_existing, ec))
        throw Error("cannot copy the index of " + tree.path.string() + " to a private index: " +
                    ec.message());
    if (!fs::exists(own, ec))
        fs::remove(file.path(), ec);
    git_index* raw = nullptr;
    check(git_index_open(&raw, file.path().c_str()), "open a private index for " + tree.path.string());
    Index index(raw);
    // The private index serves this handle only; the tree's own index is never written.
    check(git_repository_set_index(repo, raw), "use a private index");
    stage(raw, head, w);
    git_oid oid;
    check(git_index_write_tree_to(&oid, raw, repo), "write the tree of " + tree.path.string());
    return oid;
}

git_oid write_commit(git_repository* repo, const Work& w, const git_oid& tree_oid,
                     const Settings& settings, const std::string& reason)
{
    std::vector<Commit> parents;
    auto add_parent = [&](const git_oid& oid) {
        git_commit* raw = nullptr;
        check(git_commit_lookup(&raw, repo, &oid), "read commit " + to_hex(oid));
        parents.emplace_back(raw);
    };
    if (w.head)
        add_parent(*w.head);
    if (w.head && w.branch_tip && !git_oid_equal(&*w.branch_tip, &*w.head) &&
        git_graph_descendant_of(repo, &*w.head, &*w.branch_tip) != 1)
        add_parent(*w.branch_tip);
    std::vector<const git_commit*> raw_parents;
    for (const auto& p : parents)
        raw_parents.push_back(p.get());
    git_tree* tree = nullptr;
    check(git_tree_lookup(&tree, repo, &tree_oid), "read the saved tree");
    Tree owned(tree);
    Signature sig = identity(settings);
    std::string what = w.commits.empty() ? "uncommitted work" : "uncommitted work and commits";
    git_oid oid;
    // libgit2 creates the commit object only: no hooks run, nothing is signed.
    check(git_commit_create(&oid, repo, nullptr, sig.get(), sig.get(), "UTF-8",
                            message(w, what, reason).c_str(), tree, raw_parents.size(),
                            raw_parents.data()),
          "write the save commit");
    return oid;
}

// Creates the branch with "must not exist" semantics, retrying -2 ... -20.
std::string create_ref(git_repository* repo, const std::string& name, const git_oid& target,
                       const std::string& prefix) // C2 (H6 stand-in): prefix
{
    std::string base = stranded_ref_name(name, prefix);
    // Through the common repository: on a linked worktree's handle, libgit2 1.5
    // looks for an existing loose ref in the tree's own git dir only, so "must not
    // exist" would overwrite a stranded branch.
    Repository common = open_common(repo);
    for (int n = 1; n <= k_max_suffix; ++n) {
        std::string ref = n == 1 ? base : base + "-" + std::to_string(n);
        git_reference* raw = nullptr;
        int rc =
            git_reference_create(&raw, common.get(), ref.c_str(), &target, 0, "git-guard: save");
        Reference owned(raw);
        if (rc == 0)
            return ref;
        if (rc != GIT_EEXISTS)
            check(rc, "create " + ref);
        git_error_clear();
    }
    throw Error("cannot create a stranded branch: " + base + " and its -2 ... -" +
                std::to_string(k_max_suffix) + " variants are all taken; nothing was written");
}

// Only this proof licenses a removal: the branch, read back, holds what was built.
void verify(git_repository* repo, const Saved& s)
{
    git_oid found;
    check(git_reference_name_to_id(&found, repo, s.ref.c_str()), "read back " + s.ref);
    git_commit* raw = nullptr;
    check(git_commit_lookup(&raw, repo, &found), "read back the commit of " + s.ref);
    Commit commit(raw);
    if (!git_oid_equal(&found, &s.commit) || !git_oid_equal(git_commit_tree_id(raw), &s.tree))
        throw Error("verification failed: " + s.ref + " does not hold the saved commit " +
                    to_hex(s.commit));
}

std::string diffstat(git_repository* repo, git_tree* base, const git_oid& tree_oid)
{
    git_tree* raw = nullptr;
    check(git_tree_lookup(&raw, repo, &tree_oid), "read the saved tree");
    Tree saved(raw);
    git_diff* diff = nullptr;
    check(git_diff_tree_to_tree(&diff, repo, base, raw, nullptr), "diff the save");
    Diff owned(diff);
    git_diff_stats* stats = nullptr;
    check(git_diff_get_stats(&stats, diff), "diffstat");
    DiffStats owned_stats(stats);
    Buf buf;
    check(git_diff_stats_to_buf(buf.get(), stats, GIT_DIFF_STATS_SHORT, 0), "diffstat");
    std::string text = buf.str();
    while (!text.empty() && (text.back() == '\n' || text.front() == ' '))
        text = text.back() == '\n' ? text.substr(0, text.size() - 1) : text.substr(1);
    return text;
}

// An earlier save of `name` with this very tree on this very HEAD, so a repeated
// save adds no duplicate branch.
std::optional<Saved> find_equal_save(git_repository* repo, const std::string& name,
                                     const git_oid& tree_oid, const Work& w,
                                     const std::string& prefix) // C2 (H6 stand-in): prefix
{
    std::string ref = stranded_ref_name(name, prefix);
    std::string glob = ref.substr(0, ref.rfind('/')) + "/*";
    std::vector<std::string> refs;
    git_reference_foreach_glob(
        repo, glob.c_str(),
        [](const char* n, void* out) {
            static_cast<std::vector<std::string>*>(out)->emplace_back(n);
            return 0;
        },
        &refs);
    for (const auto& r : refs) {
        git_oid oid;
        git_commit* raw = nullptr;
        if (git_reference_name_to_id(&oid, repo, r.c_str()) < 0 || git_commit_lookup(&raw, repo, &oid) < 0)
            continue;
        Commit c(raw);
        bool same_parent = w.head ? git_commit_parentcount(raw) >= 1 &&
                                        git_oid_equal(git_commit_parent_id(raw, 0), &*w.head)
                                  : git_commit_parentcount(raw) == 0;
        if (same_parent && git_oid_equal(git_commit_tree_id(raw), &tree_oid)) {
            Saved s{r, oid, tree_oid, w.head ? to_hex(*w.head) : "", "already saved", true, true};
            verify(repo, s);
            return s;
        }
    }
    git_error_clear();
    return std::nullopt;
}

std::string tree_name(const Worktree& tree)
{
    return tree.path.filename().string();
}

} // namespace

std::string utc_stamp()
{
    if (const char* pinned = std::getenv("GIT_GUARD_STAMP"); pinned && *pinned)
        return pinned;
    auto now = std::chrono::system_clock::now();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
    std::time_t seconds = static_cast<std::time_t>(ms / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y%m%dT%H%M%S", &utc);
    char full[48];
    std::snprintf(full, sizeof full, "%s.%03dZ", text, static_cast<int>(ms % 1000));
    return full;
}

std::string ref_component(std::string c)
{
    for (size_t i = 0; i < c.size(); ++i) {
        auto b = static_cast<unsigned char>(c[i]);
        bool bad = b < 0x20 || b == 0x7f || std::string_view(" ~^:?*[\\").find(c[i]) != std::string_view::npos;
        bool dots = i > 0 && c[i] == '.' && c[i - 1] == '.';
        bool at_brace = c[i] == '{' && i > 0 && c[i - 1] == '@';
        if (bad || dots || at_brace)
            c[i] = '-';
    }
    if (!c.empty() && c.front() == '.')
        c.front() = '-';
    if (c.ends_with(".lock"))
        c.replace(c.size() - 5, 1, "-");
    if (!c.empty() && c.back() == '.')
        c.back() = '-';
    if (c == "@")
        c = "-";
    return c;
}

std::string stranded_ref_name(const std::string& name, const std::string& prefix)
{
    std::string ref = prefix;
    size_t start = 0;
    bool any = false;
    while (start <= name.size()) {
        size_t end = name.find('/', start);
        if (end == std::string::npos)
            end = name.size();
        std::string part = ref_component(name.substr(start, end - start));
        if (!part.empty()) {
            ref += "/" + part;
            any = true;
        }
        start = end + 1;
    }
    if (!any)
        ref += "/tree";
    return ref + "/" + ref_component(utc_stamp());
}

Saved save_tip(git_repository* repo, const std::string& name, const git_oid& tip,
               const SaveOptions& options)
{
    git_commit* raw = nullptr;
    check(git_commit_lookup(&raw, repo, &tip), "read commit " + to_hex(tip));
    Commit commit(raw);
    Saved s;
    s.commit = tip;
    s.tree = *git_commit_tree_id(raw);
    s.ref = create_ref(repo, name, tip, options.ref_prefix);
    verify(repo, s);
    s.diffstat = "no new commit: the branch holds " + to_hex(tip).substr(0, 12);
    spdlog::info("saved {} at {} ({})", s.ref, to_hex(tip), options.reason);
    journal_record(common_dir(repo), tip_save_event(s.ref, to_hex(tip), name, options.reason));
    return s;
}

Saved save_commit(git_repository* repo, const Work& w, const git_oid& tree_oid,
                  const std::string& name, const Settings& settings, const SaveOptions& options)
{
    Tree head = head_tree(repo, w);
    Saved s;
    s.tree = tree_oid;
    s.commit = write_commit(repo, w, tree_oid, settings, options.reason);
    s.made_commit = true;
    s.base = w.head ? to_hex(*w.head) : "";
    s.ref = create_ref(repo, name, s.commit, options.ref_prefix);
    verify(repo, s);
    s.diffstat = diffstat(repo, head.get(), tree_oid);
    spdlog::info("saved {} from {} to {} ({})", to_hex(s.commit), w.path, s.ref, options.reason);
    journal_record(common_dir(repo), {.kind = "save", .ref = s.ref, .commit = to_hex(s.commit), .path = w.path, .branch = w.branch, .reason = options.reason, .detail = s.diffstat});
    return s;
}

std::optional<Saved> save_tree(git_repository* repo, const Worktree& tree, const Work& w,
                               const Settings& settings, const SaveOptions& options)
{
    if (w.verdict == Verdict::cannot_save)
        throw Error(w.reason);
    if (w.verdict == Verdict::clean)
        return std::nullopt;
    std::optional<git_oid> tree_oid;
    if (w.has_uncommitted()) {
        Tree head = head_tree(repo, w);
        tree_oid = write_tree(repo, tree, w, head.get());
        if (head && git_oid_equal(&*tree_oid, git_tree_id(head.get())))
            tree_oid.reset();
    }
    if (tree_oid) {
        if (auto existing = find_equal_save(repo, tree_name(tree), *tree_oid, w, options.ref_prefix))
            return existing;
        return save_commit(repo, w, *tree_oid, tree_name(tree), settings, options);
    }
    if (w.commits.empty() || !w.head)
        return std::nullopt;
    Saved s = save_tip(repo, tree_name(tree), *w.head, options);
    s.base = to_hex(*w.head);
    return s;
}

SaveResult save_path(const fs::path& start, const fs::path& path, const SaveOptions& options)
{
    // The tree names its own repository, so a save works from any directory.
    std::error_code ec;
    Repository repo = open_repository(fs::is_directory(path, ec) ? path : start);
    Settings settings = read_settings(repo.get());
    Worktree tree = resolve_worktree(repo.get(), path);
    PathLock lock(common_dir(repo.get()), tree.path.string(), settings.lock_timeout);
    // Re-read under the lock: another process may have saved or removed it meanwhile.
    Repository tree_repo = open_worktree(tree);
    SaveResult result{inspect_tree(tree_repo.get(), tree, settings), std::nullopt, ""};
    if (result.work.verdict == Verdict::cannot_save) {
        result.refused = refusal_message(result.work, result.work.reason, "save");
        return result;
    }
    try {
        result.saved = save_tree(tree_repo.get(), tree, result.work, settings, options);
    } catch (const Error& e) {
        result.work.verdict = Verdict::cannot_save;
        result.work.reason = e.what();
        result.refused = refusal_message(result.work, e.what(), "save");
    }
    return result;
}

// C2 (H6 stand-in) ------------------------------------------------------------------
// save_existing, until the engine's own lands; the coordinator keeps the engine's.
Saved save_existing(const fs::path& git_dir, const std::string& name, const std::string& commit,
                    const SaveOptions& options)
{
    Repository repo = open_repository(git_dir);
    git_oid oid = parse_oid(commit);
    git_commit* raw = nullptr;
    check(git_commit_lookup(&raw, repo.get(), &oid), "read commit " + commit);
    Commit owned(raw);
    Saved s;
    s.commit = oid;
    s.tree = *git_commit_tree_id(raw);
    s.ref = create_ref(repo.get(), name, oid, options.ref_prefix);
    verify(repo.get(), s);
    s.diffstat = "no new commit: the ref holds " + commit.substr(0, 12);
    spdlog::info("saved {} at {} ({})", s.ref, commit, options.reason);
    journal_record(common_dir(repo.get()), tip_save_event(s.ref, commit, name, options.reason));
    return s;
}
// end of C2 (H6 stand-in) -----------------------------------------------------------

} // namespace guard
