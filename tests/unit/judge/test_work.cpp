// DESIGN §4: what counts as work in a tree and on a branch, checked against the real git.
#include "guard/base/error.hpp"
#include "guard/judge/deletions.hpp"
#include "guard/git/process.hpp"
#include "guard/judge/work.hpp"
#include "tests/unit/temp_repo.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <ostream>

namespace fs = std::filesystem;
using guard::ChangeKind;
using guard::Verdict;
using guard::Work;
using guard::test::TempRepo;
using guard::test::write_file;

namespace {

Work inspect(const TempRepo& repo, const fs::path& tree)
{
    auto works = guard::inspect_paths(guard::site_at(repo.path()), {tree}, {});
    BOOST_REQUIRE_EQUAL(works.size(), 1u);
    return works.front();
}

Work inspect_branch(const TempRepo& repo, const std::string& branch)
{
    auto works = guard::inspect_paths(guard::site_at(repo.path()), {}, {branch});
    BOOST_REQUIRE_EQUAL(works.size(), 1u);
    return works.front();
}

std::string rev(const fs::path& cwd, const std::string& what)
{
    auto r = guard::run({"git", "-C", cwd.string(), "rev-parse", "-q", "--verify", what});
    return r.status == 0 ? r.out.substr(0, r.out.find('\n')) : "";
}

const guard::Change* find_change(const Work& w, const std::string& path)
{
    auto it = std::find_if(w.changes.begin(), w.changes.end(),
                           [&](const auto& c) { return c.path == path; });
    return it == w.changes.end() ? nullptr : &*it;
}

bool has_excluded(const Work& w, const std::string& path)
{
    return std::any_of(w.excluded.begin(), w.excluded.end(),
                       [&](const auto& e) { return e.path == path; });
}

std::string describe(const Work& w)
{
    std::string text = std::string(guard::to_string(w.verdict)) + " " + w.reason + "\n";
    for (const auto& c : w.changes)
        text += "  " + std::string(guard::to_string(c.kind)) + ": " + c.path + "\n";
    for (const auto& c : w.commits)
        text += "  commit " + c + "\n";
    for (const auto& e : w.excluded)
        text += "  excluded " + e.path + " (" + e.why + ")\n";
    return text;
}

void chmod_x(const fs::path& file)
{
    fs::permissions(file, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
}

void commit_file(const TempRepo& repo, const fs::path& tree, const std::string& file,
                 const std::string& content)
{
    write_file(tree / file, content);
    repo.git_in(tree, {"add", "--", file});
    repo.git_in(tree, {"commit", "-q", "-m", "edit " + file});
}

struct Kind {
    const char* name;
    std::function<void(const TempRepo&, const fs::path&)> make;
    std::string path;
    ChangeKind kind;
};

std::ostream& operator<<(std::ostream& os, const Kind& k)
{
    return os << k.name;
}

const Kind k_kinds[] = {
    {"tracked_edit", [](auto&, auto& t) { write_file(t / "a.txt", "edited\n"); }, "a.txt",
     ChangeKind::modified},
    {"staged_new_file",
     [](auto& r, auto& t) {
         write_file(t / "new.txt", "new\n");
         r.git_in(t, {"add", "new.txt"});
     },
     "new.txt", ChangeKind::staged},
    {"deleted_file", [](auto&, auto& t) { fs::remove(t / "b.txt"); }, "b.txt", ChangeKind::deleted},
    {"staged_deletion",
     [](auto& r, auto& t) {
         r.git_in(t, {"rm", "-q", "b.txt"});
     },
     "b.txt", ChangeKind::deleted},
    {"rename",
     [](auto& r, auto& t) {
         r.git_in(t, {"mv", "a.txt", "renamed.txt"});
     },
     "renamed.txt", ChangeKind::renamed},
    {"untracked_file_in_new_directory",
     [](auto&, auto& t) { write_file(t / "newdir/deeper/u.txt", "u\n"); }, "newdir/deeper/u.txt",
     ChangeKind::untracked},
    {"executable_bit", [](auto&, auto& t) { chmod_x(t / "a.txt"); }, "a.txt", ChangeKind::modified},
    {"symlink", [](auto&, auto& t) { fs::create_symlink("a.txt", t / "link"); }, "link",
     ChangeKind::untracked},
    {"file_replaced_by_symlink",
     [](auto&, auto& t) {
         fs::remove(t / "dir/c.txt");
         fs::create_symlink("../a.txt", t / "dir/c.txt");
     },
     "dir/c.txt", ChangeKind::type_changed},
};

} // namespace

BOOST_AUTO_TEST_SUITE(work)

BOOST_AUTO_TEST_CASE(clean_tree_is_clean)
{
    TempRepo repo;
    fs::path wt = repo.add_base_and_worktree();
    Work w = inspect(repo, wt);
    BOOST_TEST((w.verdict == Verdict::clean), describe(w));
    BOOST_TEST(w.branch == "wt");
    BOOST_TEST(w.path == wt.string());
    BOOST_TEST((w.head && *w.head == rev(wt, "HEAD")), "HEAD was misread");
}

BOOST_DATA_TEST_CASE(each_kind_of_change_is_work, boost::unit_test::data::make(k_kinds), kind)
{
    TempRepo repo;
    fs::path wt = repo.add_base_and_worktree();
    kind.make(repo, wt);
    Work w = inspect(repo, wt);
    BOOST_TEST_MESSAGE(describe(w));
    BOOST_TEST((w.verdict == Verdict::has_work),
               "the change was not seen as work, so it would be destroyed");
    const auto* c = find_change(w, kind.path);
    BOOST_REQUIRE_MESSAGE(c,
                          "'" << kind.path << "' is missing from the work: it would be destroyed");
    BOOST_TEST(guard::to_string(c->kind) == guard::to_string(kind.kind), "misreported kind");
    BOOST_TEST(w.git_sees_changes, "git itself sees this change");
}

BOOST_AUTO_TEST_CASE(unmerged_paths_are_work)
{
    TempRepo repo;
    fs::path wt = repo.add_base_and_worktree();
    commit_file(repo, wt, "a.txt", "branch\n");
    commit_file(repo, repo.path(), "a.txt", "main\n");
    BOOST_REQUIRE(repo.git_status(wt, {"merge", "-q", "main"}) != 0);
    Work w = inspect(repo, wt);
    const auto* c = find_change(w, "a.txt");
    BOOST_REQUIRE_MESSAGE(c, "the conflicted file is missing from the work: " << describe(w));
    BOOST_TEST(guard::to_string(c->kind) == std::string("unmerged"));
    BOOST_TEST((w.verdict == Verdict::has_work));
}

BOOST_AUTO_TEST_CASE(every_worktree_when_no_path_is_given)
{
    TempRepo repo;
    fs::path wt = repo.add_base_and_worktree();
    fs::path det = repo.add_worktree("det", true);
    auto works = guard::inspect_paths(guard::site_at(repo.path()), {}, {});
    BOOST_REQUIRE_EQUAL(works.size(), 3u);
    BOOST_TEST(works[0].path == repo.path().string(), "the main tree is not first");
    // Linked trees come in git's own order (`git worktree list`).
    auto detached = std::find_if(works.begin(), works.end(), [&](const Work& w) { return w.path == det.string(); });
    BOOST_REQUIRE(detached != works.end());
    BOOST_TEST(std::any_of(works.begin(), works.end(), [&](const Work& w) { return w.path == wt.string(); }));
    BOOST_TEST(detached->branch.empty(), "a detached tree reported a branch");
}

// --- commits ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(detached_head_commits_are_work_branch_commits_are_not)
{
    TempRepo repo;
    fs::path wt = repo.add_base_and_worktree();
    commit_file(repo, wt, "on-branch.txt", "held by the branch\n");
    Work on_branch = inspect(repo, wt);
    BOOST_TEST((on_branch.verdict == Verdict::clean),
               "commits held by the tree's branch counted as work: " << describe(on_branch));
    fs::path det = repo.add_worktree("det", true);
    commit_file(repo, det, "one.txt", "1\n");
    commit_file(repo, det, "two.txt", "2\n");
    Work w = inspect(repo, det);
    BOOST_TEST((w.verdict == Verdict::has_work), "detached commits were not work: " << describe(w));
    BOOST_REQUIRE_EQUAL(w.commits.size(), 2u);
    BOOST_TEST(w.commits[0] == rev(det, "HEAD"), "commits are not newest first");
    BOOST_TEST(w.commits[1] == rev(det, "HEAD~1"));
    BOOST_TEST(!w.git_sees_changes, "plain git would remove this tree without complaint");
}

BOOST_AUTO_TEST_CASE(commit_held_by_another_trees_head_is_not_work)
{
    TempRepo repo;
    repo.add_base_and_worktree();
    fs::path one = repo.add_worktree("one", true);
    commit_file(repo, one, "x.txt", "x\n");
    fs::path two = repo.root() / "two";
    repo.git({"worktree", "add", "-q", "--detach", two.string(), rev(one, "HEAD")});
    Work w = inspect(repo, one);
    BOOST_TEST((w.verdict == Verdict::clean),
               "a commit another tree still holds counted as work: " << describe(w));
}

// Another tree's per-worktree refs hold nothing the guard guards (DESIGN §0.7): `bisect
// reset` or `update-ref -d` deletes them unjudged, so a commit only they hold is work.
BOOST_AUTO_TEST_CASE(commit_held_only_by_another_trees_own_ref_is_work)
{
    TempRepo repo;
    repo.add_base_and_worktree();
    fs::path one = repo.add_worktree("one", true);
    commit_file(repo, one, "x.txt", "x\n");
    repo.add_worktree("empty", true);
    fs::path two = repo.add_worktree("two", true);
    repo.git_in(two, {"update-ref", "refs/bisect/keep", rev(one, "HEAD")});
    Work w = inspect(repo, one);
    BOOST_TEST((w.verdict == Verdict::has_work),
               "a commit only another tree's refs/bisect/keep holds was not work: " << describe(w));
    repo.git_in(two, {"update-ref", "-d", "refs/bisect/keep"});
    Work alone = inspect(repo, one);
    BOOST_TEST((alone.verdict == Verdict::has_work), "the detached commit no ref holds was not work: " << describe(alone));
}

// --- ignore and exclude rules ---------------------------------------------------------

BOOST_AUTO_TEST_CASE(ignored_files_are_not_work_unless_kept)
{
    TempRepo repo;
    repo.write(".gitignore", "*.log\nbuild/\n.env\n");
    repo.git({"add", ".gitignore"});
    repo.git({"commit", "-q", "-m", "ignore"});
    fs::path wt = repo.add_worktree("wt");
    write_file(wt / "debug.log", "noise\n");
    write_file(wt / "build/out.o", "object\n");
    write_file(wt / ".env", "SECRET=1\n");
    Work w = inspect(repo, wt);
    BOOST_TEST((w.verdict == Verdict::clean), "ignored files counted as work: " << describe(w));
    repo.git({"config", "--add", "guard.keepIgnored", ".env"});
    w = inspect(repo, wt);
    BOOST_TEST((w.verdict == Verdict::has_work),
               "a file kept by guard.keepIgnored was not work: " << describe(w));
    BOOST_TEST(find_change(w, ".env"), "the kept .env is missing from the work: " << describe(w));
    BOOST_TEST(!find_change(w, "debug.log"), "an ignored file counted as work");
    BOOST_TEST(!find_change(w, "build/out.o"), "an ignored file counted as work");
}

BOOST_AUTO_TEST_CASE(excluded_paths_are_not_work_even_ignored_with_tracked_files_under_them)
{
    TempRepo repo;
    repo.write(".gitignore", "scratch/\n");
    repo.write("scratch/tracked.txt", "committed\n");
    repo.git({"add", ".gitignore"});
    repo.git({"add", "-f", "scratch/tracked.txt"});
    repo.git({"commit", "-q", "-m", "scratch"});
    fs::path wt = repo.add_worktree("wt");
    repo.git({"config", "--add", "guard.exclude", "scratch/"});
    repo.git({"config", "--add", "guard.exclude", "/tmp-*"});
    write_file(wt / "scratch/tracked.txt", "edited\n");
    write_file(wt / "scratch/new.txt", "untracked, ignored, excluded\n");
    write_file(wt / "tmp-notes", "excluded\n");
    Work w = inspect(repo, wt);
    BOOST_TEST((w.verdict == Verdict::clean), "excluded paths counted as work: " << describe(w));
    BOOST_TEST(has_excluded(w, "scratch/tracked.txt"),
               "the excluded edit is not reported as excluded");
    BOOST_TEST(has_excluded(w, "tmp-notes"), "the excluded file is not reported as excluded");
    for (const auto& e : w.excluded)
        BOOST_TEST(e.why.find("guard.exclude") != std::string::npos,
                   "no reason given for " << e.path);
}

BOOST_AUTO_TEST_CASE(untracked_symlink_outside_the_tree_is_not_work)
{
    TempRepo repo;
    fs::path wt = repo.add_base_and_worktree();
    repo.link_node_modules_out(wt);
    fs::create_symlink("../repo/a.txt", wt / "relative-out");
    fs::create_symlink("/etc/hostname", wt / "absolute-out");
    Work w = inspect(repo, wt);
    BOOST_TEST((w.verdict == Verdict::clean),
               "a symlink out of the tree counted as work: " << describe(w));
    BOOST_TEST(has_excluded(w, "node_modules"),
               "the link is not reported as excluded: " << describe(w));
    fs::create_symlink("dir/c.txt", wt / "inside");
    fs::create_symlink("dir/../../wt/a.txt", wt / "inside-roundabout");
    w = inspect(repo, wt);
    BOOST_TEST(find_change(w, "inside"), "a symlink inside the tree was not work: " << describe(w));
    BOOST_TEST(find_change(w, "inside-roundabout"),
               "a symlink inside the tree was not work: " << describe(w));
}

// --- nested repositories and submodules are saved whole (DESIGN §4.1) -------------------

BOOST_AUTO_TEST_CASE(nested_repository_is_work_saved_whole)
{
    TempRepo repo;
    fs::path wt = repo.add_base_and_worktree();
    repo.git_in(wt, {"init", "-q", "vendor/inner"});
    write_file(wt / "vendor/inner/f.txt", "nested\n");
    Work w = inspect(repo, wt);
    BOOST_TEST((w.verdict == Verdict::has_work),
               "a nested repository was not work, so removing the tree would destroy it: " << describe(w));
    BOOST_TEST((w.nested == std::vector<std::string>{"vendor/inner"}),
               "the nested repository is not named for a whole save: " << describe(w));
}

BOOST_AUTO_TEST_CASE(submodule_with_work_of_its_own_is_work_saved_whole)
{
    TempRepo repo;
    TempRepo sub;
    repo.add_submodule(sub, "mod");
    Work clean = inspect(repo, repo.path());
    BOOST_TEST((clean.verdict == Verdict::clean),
               "a clean submodule counted as work: " << describe(clean));

    struct Change {
        const char* what;
        std::function<void()> make;
    };
    fs::path mod = repo.path() / "mod";
    const Change changes[] = {
        {"edited file", [&] { write_file(mod / "README", "edited\n"); }},
        {"untracked file", [&] { write_file(mod / "new.txt", "new\n"); }},
        {"new commit", [&] { commit_file(repo, mod, "c.txt", "c\n"); }},
    };
    for (const auto& change : changes) {
        BOOST_TEST_CONTEXT(change.what)
        {
            change.make();
            Work w = inspect(repo, repo.path());
            BOOST_TEST((w.verdict == Verdict::has_work),
                       "a submodule with work of its own was not work: " << describe(w));
            BOOST_TEST((w.nested == std::vector<std::string>{"mod"}),
                       "the submodule is not named for a whole save: " << describe(w));
            repo.git_in(mod, {"reset", "-q", "--hard", "origin/HEAD"});
            repo.git_in(mod, {"clean", "-q", "-fdx"});
        }
    }
}

// --- published is not work -------------------------------------------------------------

// A clone of origin with a branch `feat` (two commits, pushed, tracking
// origin/feat) in worktree `feat`, and a second clone `other` acting for the
// remote side.
struct Published {
    TempRepo repo{true};
    fs::path feat, other;
    Published()
    {
        repo.git(
            {"remote", "set-head", "origin", "main"}); // as a clone of a non-empty origin has it
        feat = repo.add_worktree("feat");
        commit_file(repo, feat, "f1.txt", "one\n");
        commit_file(repo, feat, "README", "hello\nfrom feat\n");
        repo.git_in(feat, {"push", "-q", "-u", "origin", "feat"});
        other = repo.root() / "other";
        repo.git_in(repo.root(), {"clone", "-q", repo.origin().string(), "other"});
    }
    void advance_main(const std::string& file)
    {
        repo.git_in(other, {"pull", "-q", "--ff-only", "origin", "main"});
        commit_file(repo, other, file, file + "\n");
        repo.git_in(other, {"push", "-q", "origin", "main"});
    }
    // A new local commit on feat that exists nowhere else: the positive control.
    std::string add_unpublished()
    {
        commit_file(repo, feat, "unpublished.txt", "only here\n");
        return rev(feat, "HEAD");
    }
};

void expect_control_is_work(Published& p)
{
    std::string extra = p.add_unpublished();
    Work w = inspect_branch(p.repo, "feat");
    BOOST_TEST((w.verdict == Verdict::has_work),
               "an unpublished commit was taken as published, so it would be deleted unsaved: "
                   << describe(w));
    BOOST_TEST((std::find(w.commits.begin(), w.commits.end(), extra) != w.commits.end()),
               "the unpublished commit is missing from the work");
}

BOOST_AUTO_TEST_CASE(pushed_branch_is_not_work)
{
    Published p;
    Work w = inspect_branch(p.repo, "feat");
    BOOST_TEST((w.verdict == Verdict::clean), "a pushed branch counted as work: " << describe(w));
    BOOST_TEST(w.branch == "feat");
    BOOST_TEST((inspect(p.repo, p.feat).verdict == Verdict::clean));
    expect_control_is_work(p);
}

BOOST_AUTO_TEST_CASE(branch_rebased_and_force_pushed_elsewhere_is_not_work)
{
    Published p;
    std::string old_tip = rev(p.feat, "HEAD");
    p.advance_main("m1.txt");
    p.repo.git_in(p.other, {"fetch", "-q", "origin"});
    p.repo.git_in(p.other, {"switch", "-q", "-c", "feat", "origin/feat"});
    p.repo.git_in(p.other, {"rebase", "-q", "origin/main"});
    p.repo.git_in(p.other, {"push", "-q", "-f", "origin", "feat"});
    p.repo.git({"fetch", "-q", "origin"});
    BOOST_REQUIRE(rev(p.repo.path(), "origin/feat") != old_tip);
    BOOST_REQUIRE(p.repo.git_status(p.repo.path(),
                                    {"merge-base", "--is-ancestor", old_tip, "origin/feat"}) != 0);
    Work w = inspect_branch(p.repo, "feat");
    BOOST_TEST((w.verdict == Verdict::clean),
               "a branch whose rebased version is on origin counted as work: " << describe(w));
    expect_control_is_work(p);
}

BOOST_AUTO_TEST_CASE(branch_rebased_and_force_pushed_here_is_not_work)
{
    Published p;
    std::string old_tip = rev(p.feat, "HEAD");
    p.advance_main("m1.txt");
    p.repo.git_in(p.feat, {"fetch", "-q", "origin"});
    p.repo.git_in(p.feat, {"rebase", "-q", "origin/main"});
    p.repo.git_in(p.feat, {"push", "-q", "-f", "origin", "feat"});
    BOOST_REQUIRE(
        p.repo.git_status(p.repo.path(), {"merge-base", "--is-ancestor", old_tip, "feat"}) != 0);
    Work w = inspect_branch(p.repo, "feat");
    BOOST_TEST((w.verdict == Verdict::clean),
               "a rebased, force-pushed branch counted as work: " << describe(w));
    Work tree = inspect(p.repo, p.feat);
    BOOST_TEST((tree.verdict == Verdict::clean),
               "its pre-rebase commits (on no ref) counted as work: " << describe(tree));
    expect_control_is_work(p);
}

BOOST_AUTO_TEST_CASE(branch_squash_merged_then_deleted_from_origin_is_not_work)
{
    Published p;
    p.advance_main("before.txt");
    p.repo.git_in(p.other, {"fetch", "-q", "origin"});
    p.repo.git_in(p.other, {"merge", "-q", "--squash", "origin/feat"});
    p.repo.git_in(p.other, {"commit", "-q", "-m", "squash feat"});
    p.repo.git_in(p.other, {"push", "-q", "origin", "main"});
    p.advance_main("after.txt");
    p.repo.git_in(p.other, {"push", "-q", "origin", "--delete", "feat"});
    p.repo.git({"fetch", "-q", "--prune", "origin"});
    BOOST_REQUIRE_MESSAGE(rev(p.repo.path(), "refs/remotes/origin/feat").empty(),
                          "origin/feat was not pruned");
    Work w = inspect_branch(p.repo, "feat");
    BOOST_TEST((w.verdict == Verdict::clean),
               "a branch squash-merged into origin's main counted as work: " << describe(w));
    expect_control_is_work(p);
}

BOOST_AUTO_TEST_CASE(squash_merged_into_a_base_ref_is_not_work)
{
    Published p;
    p.repo.git({"remote", "set-head", "origin", "-d"}); // only guard.baseRef can tell now
    p.repo.git_in(p.other, {"fetch", "-q", "origin"});
    p.repo.git_in(p.other, {"switch", "-q", "-c", "release", "origin/main"});
    p.repo.git_in(p.other, {"merge", "-q", "--squash", "origin/feat"});
    p.repo.git_in(p.other, {"commit", "-q", "-m", "squash feat"});
    p.repo.git_in(p.other, {"push", "-q", "origin", "release", ":feat"});
    p.repo.git({"fetch", "-q", "--prune", "origin"});
    Work before = inspect_branch(p.repo, "feat");
    BOOST_TEST(
        (before.verdict == Verdict::has_work),
        "with no guard.baseRef the branch read as published, so unpublished commits would be lost");
    p.repo.git({"config", "--add", "guard.baseRef", "refs/remotes/origin/release"});
    Work w = inspect_branch(p.repo, "feat");
    BOOST_TEST((w.verdict == Verdict::clean),
               "a branch squash-merged into guard.baseRef counted as work: " << describe(w));
}

// --- bad input, shapes -----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(subdirectory_is_not_taken_for_the_tree)
{
    TempRepo repo;
    fs::path wt = repo.add_base_and_worktree();
    std::string message;
    try {
        guard::inspect_paths(guard::site_at(repo.path()), {wt / "dir"}, {});
    } catch (const guard::Error& e) {
        message = e.what();
    }
    BOOST_TEST(message.find("inside the worktree " + wt.string()) != std::string::npos,
               "a subdirectory was taken for a tree, or the enclosing tree is not named: '"
                   << message << "'");
}

BOOST_AUTO_TEST_CASE(sparse_checkout_is_not_taken_for_deletions)
{
    TempRepo repo;
    repo.add_base_and_worktree();
    repo.git({"sparse-checkout", "set", "--cone"});
    BOOST_REQUIRE(!fs::exists(repo.path() / "dir/c.txt"));
    BOOST_REQUIRE(repo.git({"status", "--porcelain"}).empty());
    Work w = inspect(repo, repo.path());
    BOOST_TEST((w.verdict == Verdict::clean),
               "files sparse-checkout keeps off disk counted as deleted work: " << describe(w));
}

BOOST_AUTO_TEST_CASE(unborn_head_with_untracked_files_is_work)
{
    TempRepo repo;
    fs::path fresh = repo.root() / "fresh";
    repo.git_in(repo.root(), {"init", "-q", "fresh"});
    write_file(fresh / "u.txt", "u\n");
    auto works = guard::inspect_paths(guard::site_at(fresh), {fresh}, {});
    BOOST_REQUIRE_EQUAL(works.size(), 1u);
    BOOST_TEST(!works[0].head, "an unborn HEAD was read as a commit");
    BOOST_TEST(works[0].branch == "main");
    BOOST_TEST((works[0].verdict == Verdict::has_work), describe(works[0]));
}

BOOST_AUTO_TEST_CASE(odd_file_names_are_reported_byte_for_byte)
{
    TempRepo repo;
    fs::path wt = repo.add_base_and_worktree();
    for (std::string name : {"a file.txt", "new\nline", "caf\xe9", "-rf", "--force"})
        write_file(wt / name, "x\n");
    Work w = inspect(repo, wt);
    for (std::string name : {"a file.txt", "new\nline", "caf\xe9", "-rf", "--force"})
        BOOST_TEST(find_change(w, name),
                   "the file named '" << name << "' is missing from the work");
}

// --- judge_deletions (C2): one walk for a whole transaction -------------------------------

// 300 branches in one transaction: 150 on origin/main's line (held, nothing to save),
// 150 each with a commit of its own (work), and one whose tip object is missing.
BOOST_AUTO_TEST_CASE(judge_deletions_three_hundred_branches_in_one_pass)
{
    TempRepo repo;
    std::string script;
    int mark = 1;
    for (int i = 0; i < 150; ++i, ++mark)
        script += "commit refs/remotes/origin/main\nmark :" + std::to_string(mark) +
                  "\ncommitter T <t@e> 0 +0000\ndata 2\nc\n" + (i == 0 ? "from refs/heads/main\n" : "") + "\n";
    for (int i = 0; i < 150; ++i, ++mark)
        script += "commit refs/heads/own" + std::to_string(i) + "\nmark :" + std::to_string(mark) +
                  "\ncommitter T <t@e> 0 +0000\ndata 2\no\nfrom refs/heads/main\n\n";
    for (int i = 0; i < 150; ++i)
        script += "reset refs/heads/held" + std::to_string(i) + "\nfrom :" + std::to_string(i + 1) + "\n\n";
    auto r = guard::run({"git", "-C", repo.path().string(), "fast-import", "--quiet"}, {.input = script});
    BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
    guard::RefTransaction tx;
    for (const auto& prefix : {"held", "own"})
        for (int i = 0; i < 150; ++i) {
            std::string ref = std::string("refs/heads/") + prefix + std::to_string(i);
            tx.deletions.push_back({ref, repo.git({"rev-parse", ref}).substr(0, 40)});
        }
    tx.deletions.push_back({"refs/heads/ghost", std::string(40, '7')});
    auto start = std::chrono::steady_clock::now();
    auto verdicts = guard::judge_deletions(repo.path() / ".git", tx, guard::Settings{},
                                           start + std::chrono::seconds(60));
    auto took = std::chrono::steady_clock::now() - start;
    BOOST_TEST_MESSAGE("judge_deletions of 301 branches took "
                       << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");
    BOOST_REQUIRE_EQUAL(verdicts.size(), 301u);
    int held_with_work = 0, own_without = 0;
    for (size_t i = 0; i < 150; ++i)
        held_with_work += !verdicts[i].commits.empty();
    for (size_t i = 150; i < 300; ++i)
        own_without += verdicts[i].commits.size() != 1;
    BOOST_TEST(held_with_work == 0, held_with_work << " branches held by origin/main were judged as work");
    BOOST_TEST(own_without == 0, own_without << " branches with a commit of their own were judged clean: their commits would be lost");
    BOOST_TEST(verdicts[300].commits.empty(), "a branch whose tip object is missing was judged as work (git would refuse)");
    BOOST_TEST(!verdicts[300].note.empty(), "a missing tip object gives no note");
    BOOST_TEST(!verdicts[150].unchecked, "a tip was left unchecked although the deadline had not passed");
}

BOOST_AUTO_TEST_CASE(judge_deletions_past_the_deadline_saves_unproven_tips)
{
    TempRepo repo;
    repo.git({"branch", "feat"});
    repo.write("f.txt", "f\n");
    repo.git({"add", "f.txt"});
    repo.git({"commit", "-q", "-m", "f"});
    std::string tip = repo.git({"rev-parse", "HEAD"}).substr(0, 40);
    repo.git({"checkout", "-q", "feat"});
    guard::RefTransaction tx{{{"refs/heads/main", tip}}, {}, {}};
    auto verdicts = guard::judge_deletions(repo.path() / ".git", tx, guard::Settings{},
                                           std::chrono::steady_clock::now() - std::chrono::seconds(1));
    BOOST_REQUIRE_EQUAL(verdicts.size(), 1u);
    BOOST_TEST((verdicts[0].commits == std::vector<std::string>{tip}), "an unproven tip past the deadline is not saved");
    BOOST_TEST(verdicts[0].unchecked);
}

BOOST_AUTO_TEST_SUITE_END()
