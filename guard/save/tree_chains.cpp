// Tree chains: the chains of trees that are gone, folded into the archive (DESIGN §13).
#include "guard/save/tree_chains.hpp"

#include "guard/base/lock.hpp"
#include "guard/git/git.hpp"
#include "guard/git/repo.hpp"
#include "guard/save/chain.hpp"
#include "guard/save/chain_index.hpp"
#include "guard/save/fold.hpp"
#include "guard/save/saveref.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr std::size_t k_chunk = 2000; // links per fast-import, as a fold of save refs writes them

std::string tree_chain_prefix()
{
    return std::string(k_chain_prefix) + "tree/";
}

// The tree chains among the refs `patterns` name, with their tips and tip times.
std::vector<TreeChain> read_tree_chains(const Git& git, const std::vector<std::string>& patterns)
{
    std::vector<std::string> args = {
        "for-each-ref", "--format=%(refname)%00%(objectname)%00%(committerdate:unix)%00"};
    args.insert(args.end(), patterns.begin(), patterns.end());
    RunResult r = git.run(args);
    if (r.status != 0)
        throw Error("cannot list the tree chains: " + r.err);
    std::vector<TreeChain> out;
    for (const auto& f : nul_records(r.out, 3))
        if (f[0].starts_with(tree_chain_prefix()) && is_chain_ref(f[0]))
            out.push_back({f[0], f[1], std::atoll(f[2].c_str())});
    return out;
}

// The chains of the trees git lists, its main tree's too: a tree's saves go onto the chain
// of its directory's name, so that chain still takes them.
std::set<std::string> chains_of_listed_trees(const Git& git)
{
    RunResult r = git.run({"worktree", "list", "--porcelain", "-z"});
    if (r.status != 0)
        throw Error("cannot list the worktrees: " + r.err);
    std::set<std::string> kept;
    for (const auto& field : split(r.out))
        if (field.starts_with("worktree "))
            kept.insert(tree_chain(fs::path(field.substr(9)).filename().string()));
    return kept;
}

// The links of each of `chains`, oldest first: a save as (handle, commit), a drop as
// (handle, ""). One walk for all of them; a chain whose line does not reach its root is an
// error (nothing of it may be folded then).
std::map<std::string, std::vector<Link>> links_of(const Git& git,
                                                  const std::vector<TreeChain>& chains)
{
    std::vector<std::string> args = {"log", "--first-parent",
                                     "--format=%H%x00%P%x00"
                                     "%(trailers:key=Stranded-Save,valueonly,separator=)%x00"
                                     "%(trailers:key=Stranded-Drop,valueonly,separator=)%x00"};
    for (const auto& c : chains)
        args.push_back(c.tip);
    RunResult r = git.run(args);
    if (r.status != 0)
        throw Error("cannot read the tree chains to fold: " + r.err);
    auto records = nul_records(r.out, 4);
    std::map<std::string, const std::vector<std::string>*> by_id;
    for (const auto& f : records)
        by_id[f[0]] = &f;
    std::map<std::string, std::vector<Link>> out;
    for (const auto& c : chains) {
        std::vector<Link>& links = out[c.ref];
        for (std::string id = c.tip; !id.empty();) {
            auto it = by_id.find(id);
            if (it == by_id.end())
                throw Error("cannot read the chain " + c.ref + " whole: its link " + id +
                            " is missing");
            const auto& f = *it->second;
            auto parents = split(f[1], ' ');
            if (parents.size() == 2 && !f[2].empty())
                links.push_back({f[2], parents[1]});
            else if (parents.size() == 1 && !f[3].empty())
                links.push_back({f[3], ""});
            id = parents.empty() ? "" : parents[0];
        }
        std::reverse(links.begin(), links.end());
    }
    return out;
}

std::string archive_tip(const Git& git)
{
    RunResult r = git.run({"for-each-ref", "--format=%(objectname)", k_archive_chain});
    if (r.status != 0)
        throw Error("cannot read the chain " + std::string(k_archive_chain) + ": " + r.err);
    return first_line_of(r.out);
}

// Appends `links` to the archive in chunks, each read back by append_links; returns the
// archive's tip.
std::string append_to_archive(const Git& git, const std::vector<Link>& links, std::string tip)
{
    for (size_t at = 0; at < links.size(); at += k_chunk)
        tip = append_links(git, k_archive_chain,
                           std::vector<Link>(links.begin() + static_cast<long>(at),
                                             links.begin() + static_cast<long>(std::min(
                                                                 links.size(), at + k_chunk))));
    return tip;
}

// Deletes the folded chains' refs, each only if it still holds the tip its links were read
// from (delete_folded): when git holds the packed-refs lock the chains stay, and the next
// fold links nothing twice.
bool delete_chains(const Git& git, const std::vector<TreeChain>& chains)
{
    std::vector<std::pair<std::string, std::string>> refs;
    for (const auto& c : chains)
        refs.emplace_back(c.ref, c.tip);
    std::string err = delete_folded(git, refs);
    if (!err.empty())
        spdlog::warn("folded {} tree chain(s) into {} but could not delete them (their saves are "
                     "listed once): {}",
                     chains.size(), k_archive_chain, err);
    return err.empty();
}

// Folds `picked` (oldest first) under the locks the caller holds; returns how many went.
std::size_t fold_picked(const fs::path& common, const Git& git,
                        const std::vector<TreeChain>& picked)
{
    auto links = links_of(git, picked);
    std::string tip = archive_tip(git);
    // A save the archive was given before (a fold whose deletion failed) is not linked
    // again: a drop of it on the archive since then stays in effect.
    std::set<std::string> linked = linked_saves(common, k_archive_chain, tip);
    std::vector<Link> to_append;
    for (const auto& c : picked)
        for (const auto& l : links[c.ref])
            if (l.commit.empty() || !linked.count(l.handle + " " + l.commit))
                to_append.push_back(l);
    if (!to_append.empty())
        tip = append_to_archive(git, to_append, tip);
    // The proof before any chain goes: every save a folded chain holds, dropped or not, is
    // a save link of the archive now.
    linked = linked_saves(common, k_archive_chain, tip);
    for (const auto& c : picked)
        for (const auto& l : links[c.ref])
            if (!l.commit.empty() && !linked.count(l.handle + " " + l.commit))
                throw Error("verification failed: " + std::string(k_archive_chain) +
                            " does not hold the save " + l.handle + " of " + c.ref);
    // Point of no return: the tree chains' names go.
    if (!delete_chains(git, picked))
        return 0;
    spdlog::info("folded {} chain(s) of trees that are gone ({} link(s)) into {}", picked.size(),
                 to_append.size(), k_archive_chain);
    return picked.size();
}

} // namespace

std::vector<TreeChain> tree_chains_to_fold(std::vector<TreeChain> chains,
                                           const std::set<std::string>& kept, std::size_t down_to)
{
    std::sort(chains.begin(), chains.end(), [](const TreeChain& a, const TreeChain& b) {
        return std::tie(a.time, a.ref) < std::tie(b.time, b.ref);
    });
    std::vector<TreeChain> out;
    std::size_t staying = chains.size();
    for (auto& c : chains) {
        if (staying <= down_to)
            break;
        if (kept.count(c.ref))
            continue;
        out.push_back(std::move(c));
        --staying;
    }
    return out;
}

std::size_t fold_tree_chains(const fs::path& common, std::size_t keep, std::size_t down_to)
{
    Git git(common);
    auto chains = read_tree_chains(git, {tree_chain_prefix()});
    if (chains.size() <= keep)
        return 0;
    auto picked = tree_chains_to_fold(std::move(chains), chains_of_listed_trees(git), down_to);
    if (picked.empty())
        return 0;
    // The chains' locks in name order, then the archive's: no save is appended to a chain
    // while its links move, and two folds take the locks in the same order.
    std::vector<std::string> names;
    for (const auto& c : picked)
        names.push_back(c.ref);
    std::sort(names.begin(), names.end());
    auto timeout = read_settings(common).lock_timeout;
    std::vector<PathLock> locks;
    for (const auto& name : names)
        locks.emplace_back(common, chain_lock_key(name), timeout);
    locks.emplace_back(common, chain_lock_key(k_archive_chain), timeout);
    // Read again under the locks: a chain may have moved (a save) or gone (another fold).
    std::map<std::string, TreeChain> now;
    for (auto& c : read_tree_chains(git, names))
        now[c.ref] = std::move(c);
    std::vector<TreeChain> held;
    for (const auto& c : picked)
        if (auto it = now.find(c.ref); it != now.end())
            held.push_back(it->second);
    return held.empty() ? 0 : fold_picked(common, git, held);
}

void bound_tree_chains(const fs::path& common)
{
    try {
        std::size_t keep = keep_branches(common);
        fold_tree_chains(common, keep, fold_floor(keep));
    } catch (const std::exception& e) {
        spdlog::warn("cannot fold the chains of trees that are gone yet (they stay): {}", e.what());
    }
}

} // namespace guard
