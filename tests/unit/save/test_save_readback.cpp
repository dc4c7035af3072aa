// Unit tests of the save's read-back (DESIGN §5.6): only a ref that holds what was built
// licenses a destroyer, whichever reader proves it (libgit2's own handle where the run has
// libgit2 up, git otherwise), and the hook's batch read-back counts the saves for the fold.
#include "guard/save/chain.hpp"
#include "guard/save/saveref.hpp"
#include "tests/unit/save/save_fixtures.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>

using namespace guard::test::saves;

namespace {

// A save ref at HEAD, as create_ref writes it, and what it was built to hold.
guard::Saved planted(const fs::path& repo_path, const std::string& ref)
{
    guard::Saved s;
    s.ref = ref;
    s.commit = rev(repo_path, "HEAD");
    s.tree = rev(repo_path, "HEAD^{tree}");
    guard::run({"git", "-C", repo_path.string(), "update-ref", ref, s.commit});
    return s;
}

bool refused(const guard::Git& git, const guard::Saved& s)
{
    try {
        guard::verify(git, s);
        return false;
    } catch (const guard::Error& e) {
        return std::string(e.what()).find("verification failed") != std::string::npos;
    }
}

} // namespace

BOOST_AUTO_TEST_SUITE(save_readback)

BOOST_AUTO_TEST_CASE(libgit2_reads_a_save_back_and_refuses_one_that_differs)
{
    TempRepo repo; // libgit2 is up: the in-place saves' reader
    BOOST_REQUIRE(guard::libgit2_started());
    guard::Git git(repo.path() / ".git");
    guard::Saved s = planted(repo.path(), "refs/stranded/repo/20260101T000000.000Z");
    BOOST_CHECK_NO_THROW(guard::verify(git, s));
    guard::Saved other_tree = s;
    other_tree.tree = std::string(40, 'a');
    BOOST_TEST(refused(git, other_tree), "a save whose tree is not what was built licensed the destroyer");
    guard::Saved moved = s;
    repo.write("next.txt", "x\n");
    repo.git({"add", "next.txt"});
    repo.git({"commit", "-qm", "next"});
    repo.git({"update-ref", s.ref, rev(repo.path(), "HEAD")});
    BOOST_TEST(refused(git, moved), "a save ref that moved to another commit licensed the destroyer");
    guard::Saved missing = s;
    missing.ref = "refs/stranded/repo/never-written";
    BOOST_TEST(refused(git, missing), "a save ref that was never written licensed the destroyer");
}

BOOST_AUTO_TEST_CASE(a_repository_libgit2_cannot_open_is_read_back_by_git)
{
    TempRepo repo;
    fs::path sha256 = repo.root() / "sha256";
    guard::run({"git", "init", "-q", "--object-format=sha256", sha256.string()});
    write_file(sha256 / "a.txt", "a\n");
    guard::run({"git", "-C", sha256.string(), "add", "a.txt"});
    guard::run({"git", "-C", sha256.string(), "commit", "-qm", "one"});
    guard::Git git(sha256 / ".git");
    guard::Saved s = planted(sha256, "refs/stranded/sha256/20260101T000000.000Z");
    BOOST_REQUIRE_EQUAL(s.commit.size(), 64u);
    BOOST_CHECK_NO_THROW(guard::verify(git, s));
    guard::Saved other = s;
    other.tree = std::string(64, 'b');
    BOOST_TEST(refused(git, other), "git's read-back accepted a tree that was not built");
}

BOOST_AUTO_TEST_CASE(the_batch_read_back_counts_the_saves_and_folds_when_due)
{
    TempRepo repo;
    repo.git({"config", "guard.keepBranches", "2"});
    std::vector<guard::NamedTip> tips;
    for (const char* name : {"a", "b", "c", "d"}) {
        repo.git({"commit", "-q", "--allow-empty", "-m", name});
        // Half with the tree known (the hook read it with the old value), half read by the save.
        tips.push_back({name, rev(repo.path(), "HEAD"), tips.size() % 2 ? rev(repo.path(), "HEAD^{tree}") : ""});
    }
    auto saves = guard::save_existing_batch(repo.path() / ".git", tips, {.reason = "branch -D"});
    BOOST_REQUIRE(saves);
    BOOST_REQUIRE_EQUAL(saves->size(), 4u);
    for (size_t i = 0; i < tips.size(); ++i) // the trees nobody read are the read-back's
        BOOST_TEST((*saves)[i].tree == rev(repo.path(), tips[i].commit + "^{tree}"),
                   "the save of " << tips[i].name << " was not read back with its commit's tree");
    std::string branches = repo.git({"for-each-ref", "--format=%(refname)", "refs/heads/stranded/"});
    size_t left = static_cast<size_t>(std::count(branches.begin(), branches.end(), '\n'));
    BOOST_TEST(left <= 2u, "4 saves with guard.keepBranches=2 left " << left << " save branches: no fold ran");
    for (const auto& [name, commit, tree, branch] : tips)
        BOOST_TEST((branches.find("/" + name + "/") != std::string::npos ||
                    repo.git_status(repo.path(), {"merge-base", "--is-ancestor", commit, guard::k_archive_chain}) == 0),
                   "the save of " << name << " (" << commit << ") is neither a branch nor folded: lost");
}

BOOST_AUTO_TEST_SUITE_END()
