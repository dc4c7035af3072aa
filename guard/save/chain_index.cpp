// The chains' records, read from the index under each tip and from git above it.
#include "guard/save/chain_index.hpp"

#include "guard/base/file.hpp"
#include "guard/save/chain.hpp"
#include "guard/git/git.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr const char* k_header = "git-guard chains index 1\n";
// A link as git log prints it: id, parents, committer time, trailers, body, saved handle,
// dropped handle.
constexpr size_t k_fields = 7;
constexpr const char* k_format = "--format=%H%x00%P%x00%ct%x00%(trailers:only,unfold)%x00%b%x00"
                                 "%(trailers:key=Stranded-Save,valueonly,separator=)%x00"
                                 "%(trailers:key=Stranded-Drop,valueonly,separator=)%x00";

using Links = std::vector<std::vector<std::string>>; // newest first, down to the root

struct Indexed {
    std::string tip;
    Links links;
};

using ChainIndex = std::map<std::string, Indexed>;

fs::path index_path(const fs::path& common) { return common / "guard" / "chains.index"; }

// The index, or nothing of it when it is missing or not whole (then every chain is walked).
ChainIndex read_index(const fs::path& common)
{
    std::string text = read_bytes(index_path(common)).value_or("");
    if (!text.starts_with(k_header))
        return {};
    size_t at = std::string(k_header).size();
    auto field = [&](std::string& out) {
        size_t end = text.find('\0', at);
        if (end == std::string::npos)
            return false;
        out.assign(text, at, end - at);
        at = end + 1;
        return true;
    };
    ChainIndex known;
    for (std::string chain, tip, count; at < text.size();) {
        if (!field(chain) || !field(tip) || !field(count))
            return {};
        Indexed& entry = known[chain];
        entry.tip = tip;
        entry.links.resize(std::stoul(count), std::vector<std::string>(k_fields));
        for (auto& link : entry.links)
            for (auto& f : link)
                if (!field(f))
                    return {};
    }
    return known;
}

// Replaces the index whole (a temporary file of this process, then rename), so a reader
// sees the old one or the new one. Never throws: without an index, the chains are walked.
void write_index(const fs::path& common, const ChainIndex& known)
{
    std::error_code ec;
    if (!fs::exists(common / "objects", ec))
        return;
    fs::create_directories(common / "guard", ec);
    std::string text = k_header;
    for (const auto& [chain, entry] : known) {
        text += chain + '\0' + entry.tip + '\0' + std::to_string(entry.links.size()) + '\0';
        for (const auto& link : entry.links)
            for (const auto& f : link)
                text += f + '\0';
    }
    if (!replace_file(index_path(common), text))
        spdlog::debug("cannot write {}", index_path(common).string());
}

// Of a link's trailers, the lines a listing reads (make_save in stranded.cpp); of its body,
// the "Held …" line. The index keeps only these: it is read whole by every `list`, and a
// link's message repeats its trailers in its body.
constexpr std::string_view k_listed_trailers[] = {"Stranded-From: ", "Stranded-Layout: ", "Stranded-Head: ",
                                                  "Stranded-Branch: ", "Stranded-Reason: "};

void keep_listed(std::vector<std::string>& link)
{
    std::string kept;
    for (size_t at = 0; at < link[3].size();) {
        size_t end = std::min(link[3].find('\n', at), link[3].size());
        std::string_view line(link[3].data() + at, end - at);
        for (auto key : k_listed_trailers)
            if (line.starts_with(key))
                kept.append(line).push_back('\n');
        at = end + 1;
    }
    link[3] = std::move(kept);
    size_t held = link[4].find("Held ");
    link[4] = held == std::string::npos ? "" : link[4].substr(held, link[4].find('\n', held) - held);
}

// The links of git log's `records` from `tip` down along first parents to `below` (the
// indexed tip, or "" for the root). False when the line does not end there: the walk
// missed a link or `below` is not on the chain.
bool follow(const std::map<std::string, const std::vector<std::string>*>& by_id, std::string id,
            const std::string& below, Links& out)
{
    while (id != below) {
        auto it = by_id.find(id);
        if (id.empty() || it == by_id.end())
            return false;
        out.push_back(*it->second);
        const std::string& parents = it->second->at(1);
        id = parents.substr(0, parents.find(' '));
    }
    return true;
}

// Walks, in one git, every chain of `chains` (ref -> tip) above its indexed tip (`whole`:
// down to its root) and puts its links in `known`. Returns the chains whose line of links
// does not end on their indexed tip, untouched in `known`.
std::map<std::string, std::string> walk(const Git& git, const std::map<std::string, std::string>& chains,
                                        ChainIndex& known, bool whole)
{
    std::vector<std::string> args = {"log", "--first-parent", k_format};
    for (const auto& [chain, tip] : chains) {
        args.push_back(tip);
        auto it = known.find(chain);
        if (!whole && it != known.end() && !it->second.tip.empty())
            args.push_back("^" + it->second.tip);
    }
    RunResult r = git.run(args);
    if (r.status != 0 && !whole)
        return chains; // an indexed tip this repository does not have
    if (r.status != 0)
        throw Error("cannot list the chained saves: " + r.err);
    auto records = nul_records(r.out, k_fields);
    std::map<std::string, const std::vector<std::string>*> by_id;
    for (auto& f : records) {
        keep_listed(f);
        by_id[f[0]] = &f;
    }
    std::map<std::string, std::string> missed;
    for (const auto& [chain, tip] : chains) {
        Indexed& entry = known[chain];
        Links links;
        if (!follow(by_id, tip, whole ? "" : entry.tip, links)) {
            missed[chain] = tip;
            continue;
        }
        if (!whole)
            links.insert(links.end(), entry.links.begin(), entry.links.end());
        entry = {tip, std::move(links)};
    }
    return missed;
}

// The saves of `links` (one chain's, newest first) that no newer drop link dropped.
void add_saves(const std::string& chain, Links& links, std::vector<std::vector<std::string>>& out)
{
    std::set<std::string> dropped;
    for (auto& f : links) {
        if (!f[6].empty()) {
            dropped.insert(f[6]);
            continue;
        }
        size_t second = f[1].find(' '); // a save link has two parents: the chain's, the save
        if (f[5].empty() || second == std::string::npos || f[1].find(' ', second + 1) != std::string::npos ||
            dropped.count(f[5]))
            continue;
        out.push_back({std::move(f[5]), f[1].substr(second + 1), std::move(f[2]), std::move(f[3]), std::move(f[4]),
                       std::move(f[0]), chain});
    }
}

} // namespace

std::vector<std::vector<std::string>> chain_records(const fs::path& common,
                                                    const std::map<std::string, std::string>& tips)
{
    if (tips.empty())
        return {};
    ChainIndex known = read_index(common);
    bool changed = known.size() != tips.size();
    std::map<std::string, std::string> moved;
    for (const auto& [chain, tip] : tips)
        if (!known.count(chain) || known[chain].tip != tip)
            moved[chain] = tip;
    std::erase_if(known, [&](const auto& e) { return !tips.count(e.first); });
    if (!moved.empty()) {
        Git git(common);
        auto missed = walk(git, moved, known, false);
        if (!missed.empty()) {
            spdlog::debug("chain index: {} chain(s) not above their indexed tip: walked whole", missed.size());
            if (auto still = walk(git, missed, known, true); !still.empty())
                throw Error("cannot list the chained saves: " + still.begin()->first + " is not a line of links");
        }
        changed = true;
    }
    if (changed)
        write_index(common, known);
    std::vector<std::vector<std::string>> out;
    for (auto& [chain, entry] : known)
        add_saves(chain, entry.links, out);
    return out;
}

std::set<std::string> linked_saves(const fs::path& common, const std::string& chain, const std::string& tip)
{
    std::set<std::string> linked;
    if (tip.empty())
        return linked;
    ChainIndex known = read_index(common);
    if (known[chain].tip != tip) {
        // Only this chain is walked, and the other chains' entries stay as they were: a
        // listing drops those of chains that are gone and walks those that moved.
        Git git(common);
        std::map<std::string, std::string> one = {{chain, tip}};
        if (!walk(git, one, known, false).empty() && !walk(git, one, known, true).empty())
            throw Error("cannot read the chain " + chain + ": it is not a line of links");
        write_index(common, known);
    }
    for (const auto& f : known[chain].links) {
        size_t second = f[1].find(' ');
        if (!f[5].empty() && second != std::string::npos)
            linked.insert(f[5] + " " + f[1].substr(second + 1));
    }
    return linked;
}

std::string trailer_value(const std::string& trailers, std::string_view key)
{
    for (size_t at = trailers.find(key); at != std::string::npos; at = trailers.find(key, at + 1)) {
        size_t value = at + key.size() + 2;
        if ((at == 0 || trailers[at - 1] == '\n') && trailers.compare(at + key.size(), 2, ": ") == 0)
            return trailers.substr(value, trailers.find('\n', value) - value);
    }
    return "";
}

std::vector<std::vector<std::string>> all_chain_records(const fs::path& common)
{
    RunResult r = Git(common).run({"for-each-ref", "--format=%(refname)%00%(objectname)%00", k_chain_prefix});
    std::map<std::string, std::string> tips;
    for (const auto& f : nul_records(r.out, 2))
        if (is_chain_ref(f[0]))
            tips[f[0]] = f[1];
    return chain_records(common, tips);
}

std::optional<ChainedSave> find_equal_link(const fs::path& common, const std::string& handle_prefix,
                                           const std::string& tree, const std::string& index_tree,
                                           const std::string& head)
{
    // The newest links of the chain such a save is folded onto, as verify_link reads them
    // back: a save's equal is its tree's last few saves, and a save pays one short walk.
    Git git(common);
    RunResult r = git.run({"log", "--first-parent", "-n", "64", k_format, chain_of_handle(handle_prefix + "x")});
    std::set<std::string> dropped; // a dropped save holds nothing for the listing: never its equal
    for (const auto& f : nul_records(r.status == 0 ? r.out : "", k_fields)) { // id, parents, time, trailers, ...
        auto parents = split(f[1], ' ');
        if (!f[6].empty())
            dropped.insert(f[6]);
        if (parents.size() != 2 || !f[5].starts_with(handle_prefix) || dropped.count(f[5]) ||
            trailer_value(f[3], "Stranded-Index-Tree") != index_tree || trailer_value(f[3], "Stranded-Head") != head)
            continue;
        RunResult save = git.run({"log", "--no-walk", "--format=%T %P", parents[1]});
        auto fields = split(first_line_of(save.out), ' ');
        if (save.status == 0 && !fields.empty() && fields[0] == tree && (fields.size() > 1 ? fields[1] : "") == head)
            return ChainedSave{f[5], parents[1]};
    }
    return std::nullopt;
}

bool chains_save(const fs::path& common, const std::string& commit)
{
    for (const auto& f : all_chain_records(common))
        if (f[1] == commit)
            return true;
    return false;
}

} // namespace guard
