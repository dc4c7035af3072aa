// Tree chains stay within guard.keepBranches (DESIGN §13): which chains go (oldest tip
// first, never a listed tree's), and a snapshot that makes a new chain folds the chains of
// trees that are gone into the archive, every save still held, every drop still in effect.
#include "guard/save/chain.hpp"
#include "guard/save/chain_index.hpp"
#include "guard/save/tree_chains.hpp"
#include "tests/unit/temp_repo.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>

namespace {

using guard::TreeChain;
using guard::test::TempRepo;

std::vector<std::string> refs_of(const std::vector<TreeChain>& chains)
{
    std::vector<std::string> out;
    for (const auto& c : chains)
        out.push_back(c.ref);
    return out;
}

bool listed(const std::filesystem::path& common, const std::string& handle)
{
    auto records = guard::all_chain_records(common);
    return std::any_of(records.begin(), records.end(),
                       [&](const auto& f) { return f[0] == handle; });
}

} // namespace

BOOST_AUTO_TEST_SUITE(tree_chains)

BOOST_AUTO_TEST_CASE(the_oldest_chains_of_trees_that_are_gone_go_first)
{
    std::vector<TreeChain> chains = {{"c/new", "1", 300},
                                     {"c/old", "2", 100},
                                     {"c/live", "3", 50},
                                     {"c/mid", "4", 200},
                                     {"c/mid2", "5", 200}};
    auto picked = guard::tree_chains_to_fold(chains, {"c/live"}, 2);
    BOOST_TEST(refs_of(picked) == (std::vector<std::string>{"c/old", "c/mid", "c/mid2"}),
               "the chains of gone trees were not folded oldest tip first, down to 2");
    BOOST_TEST(guard::tree_chains_to_fold(chains, {"c/live"}, 5).empty(),
               "a fold within the bound folded a chain");
    auto all_live = guard::tree_chains_to_fold(chains, {"c/live", "c/new", "c/old", "c/mid"}, 1);
    BOOST_TEST(refs_of(all_live) == (std::vector<std::string>{"c/mid2"}),
               "a listed tree's chain was folded, or a gone tree's stayed, when the listed ones "
               "are more than the bound");
}

BOOST_AUTO_TEST_CASE(a_new_chain_past_the_bound_folds_the_chains_of_gone_trees_into_the_archive)
{
    TempRepo repo;
    auto common = repo.path() / ".git";
    repo.git({"config", "guard.keepBranches", "2"});
    repo.add_worktree("live", true);
    auto timeout = std::chrono::seconds(10);
    std::vector<std::pair<std::string, std::string>> saves; // name, handle
    for (const char* name : {"live", "gone-1", "gone-2", "gone-3"}) {
        repo.git({"commit", "-q", "--allow-empty", "-m", name});
        std::string commit = repo.git({"rev-parse", "HEAD"});
        commit.erase(commit.find_last_not_of('\n') + 1);
        saves.emplace_back(name, guard::append_save(common, name, commit, timeout).ref);
        if (std::string(name) == "gone-1") // dropped while its tree's chain holds it
            guard::drop_link(common, guard::tree_chain(name), saves.back().second, timeout);
    }
    std::string chains =
        repo.git({"for-each-ref", "--format=%(refname)", "refs/stranded/chain/tree/"});
    BOOST_TEST(chains.find("tree/live\n") != std::string::npos,
               "the chain of a tree git lists was folded");
    BOOST_TEST(static_cast<size_t>(std::count(chains.begin(), chains.end(), '\n')) <= 2u,
               "4 tree chains with guard.keepBranches=2 stayed: " << chains);
    // A drop is a link dated now: the dropped chain's tip is the newest, and it stays. An
    // exact fold takes it too.
    BOOST_TEST(guard::fold_tree_chains(common, 1, 1) >= 1u,
               "an exact fold to 1 folded no chain of a gone tree");
    chains = repo.git({"for-each-ref", "--format=%(refname)", "refs/stranded/chain/tree/"});
    BOOST_TEST(chains == "refs/stranded/chain/tree/live\n",
               "an exact fold to 1 left more than the listed tree's chain");
    for (const auto& [name, handle] : saves)
        if (name != "gone-1")
            BOOST_TEST(listed(common, handle),
                       "the save of " << name << " (" << handle << ") is no longer listed");
    BOOST_TEST(!listed(common, saves[1].second),
               "the save of gone-1, dropped before the fold, is listed again");
    std::string commit_of_gone_1 = repo.git({"rev-parse", "HEAD~2"});
    commit_of_gone_1.erase(commit_of_gone_1.find_last_not_of('\n') + 1);
    BOOST_TEST(repo.git_status(repo.path(), {"merge-base", "--is-ancestor", commit_of_gone_1,
                                             guard::k_archive_chain}) == 0,
               "the dropped save of gone-1 is no longer reachable from the archive chain (a drop "
               "keeps the content)");
}

BOOST_AUTO_TEST_SUITE_END()
