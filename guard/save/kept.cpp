// The chains' history in one kept pack, released as soon as it could keep anything gc
// would prune.
#include "guard/save/kept.hpp"

#include "guard/base/file.hpp"
#include "guard/base/lock.hpp"
#include "guard/git/config.hpp"
#include "guard/save/chain.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <set>
#include <vector>

namespace fs = std::filesystem;

namespace guard {

namespace {

// The first line of our `.keep`; the chain tips the pack was made from follow, one a line.
constexpr const char* k_keep_header = "git-guard folded saves: the chains' history (docs/decisions.md, Speed)\n";

struct Kept {
    std::string pack; // pack-<hash>
    std::set<std::string> tips;
};

fs::path pack_dir(const fs::path& common) { return common / "objects" / "pack"; }

std::vector<Kept> ours(const fs::path& common)
{
    std::vector<Kept> out;
    std::error_code ec;
    for (fs::directory_iterator it(pack_dir(common), ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().extension() != ".keep")
            continue;
        std::string text = read_bytes(it->path()).value_or("");
        if (!text.starts_with(k_keep_header))
            continue;
        Kept k{it->path().stem().string(), {}};
        for (const auto& line : split(text.substr(std::string(k_keep_header).size()), '\n'))
            k.tips.insert(line);
        out.push_back(std::move(k));
    }
    return out;
}

std::set<std::string> chain_tips(const Git& git)
{
    RunResult r = git.run({"for-each-ref", "--format=%(objectname)", k_chain_prefix});
    if (r.status != 0)
        throw Error("cannot list the chains: " + first_line_of(r.err));
    auto lines = split(r.out, '\n');
    return {lines.begin(), lines.end()};
}

// `tips` as rev-list input, then `hidden` as negatives.
std::string revs(const std::set<std::string>& tips, const std::set<std::string>& hidden = {})
{
    std::string input;
    for (const auto& t : tips)
        input += t + "\n";
    for (const auto& h : hidden)
        input += "^" + h + "\n";
    return input;
}

// Whether the chains at `tips` still reach every tip `k` was made from. Any doubt (a
// tip git cannot read) is "no": releasing a keep only gives gc back its own judgement.
bool still_reached(const Git& git, const Kept& k, const std::set<std::string>& tips)
{
    if (k.tips.empty() || tips.empty())
        return false;
    RunResult r = git.run({"rev-list", "--max-count=1", "--stdin"}, revs(k.tips, tips));
    return r.status == 0 && r.out.empty();
}

void release(const fs::path& common, const Kept& k)
{
    std::error_code ec;
    fs::remove(pack_dir(common) / (k.pack + ".keep"), ec);
    spdlog::info("released the kept pack {}", k.pack);
}

// Removes a replaced pack of ours: its index first (git stops seeing it), its `.keep` last.
void remove_pack(const fs::path& common, const std::string& pack)
{
    std::error_code ec;
    for (const char* ext : {".idx", ".pack", ".rev", ".bitmap", ".mtimes", ".keep"})
        fs::remove(pack_dir(common) / (pack + ext), ec);
}

// Writes the pack of everything `tips` reach in a scratch directory, then moves it in: its
// `.keep` first, its index last, so git never sees it unkept. Returns pack-<hash>.
std::string write_kept(const Git& git, const std::set<std::string>& tips)
{
    fs::path scratch = git.common() / "guard" / "kept.tmp";
    std::error_code ec;
    fs::remove_all(scratch, ec);
    fs::create_directories(scratch, ec);
    // One pack, whatever pack.packSizeLimit says: it replaces the old one whole.
    std::string out = git.out({"-c", "pack.packSizeLimit=0", "pack-objects", "--revs", "--delta-base-offset", "-q",
                               (scratch / "pack").string()},
                              "write the folded saves' kept pack", revs(tips));
    std::string hash = first_line_of(out);
    if (!is_oid(hash) || split(out, '\n').size() != 1)
        throw Error("pack-objects wrote no single pack: " + out);
    std::string pack = "pack-" + hash;
    std::string keep = k_keep_header;
    for (const auto& t : tips)
        keep += t + "\n";
    bool ours_keep = !fs::exists(pack_dir(git.common()) / (pack + ".keep"), ec); // another's keep stays
    if (ours_keep)
        write_bytes(pack_dir(git.common()) / (pack + ".keep"), keep);
    ec.clear();
    for (const char* ext : {".pack", ".rev", ".idx"}) {
        std::error_code moved;
        if (fs::exists(scratch / (pack + ext), moved))
            fs::rename(scratch / (pack + ext), pack_dir(git.common()) / (pack + ext), moved);
        if (moved)
            ec = moved;
    }
    // The pack the old ones' objects may now live in alone: present whole, or nothing goes.
    bool whole = !ec && fs::exists(pack_dir(git.common()) / (pack + ".pack"), ec) &&
                 fs::exists(pack_dir(git.common()) / (pack + ".idx"), ec);
    std::error_code ignored;
    fs::remove_all(scratch, ignored);
    if (!whole && ours_keep)
        fs::remove(pack_dir(git.common()) / (pack + ".keep"), ignored); // names no pack git can read
    if (!whole)
        throw Error("cannot move the kept pack into " + pack_dir(git.common()).string() +
                    (ec ? ": " + ec.message() : ""));
    return pack;
}

} // namespace

bool is_folded_keep(const fs::path& keep) { return read_bytes(keep).value_or("").starts_with(k_keep_header); }

void release_stale_kept(const Git& store) noexcept
{
    try {
        auto kept = ours(store.common());
        if (kept.empty())
            return;
        auto tips = chain_tips(store);
        for (const auto& k : kept)
            if (!still_reached(store, k, tips))
                release(store.common(), k);
    } catch (const std::exception& e) {
        spdlog::warn("cannot check the folded saves' kept pack: {}", e.what());
    }
}

void release_all_kept(const fs::path& common) noexcept
{
    try {
        for (const auto& k : ours(common))
            release(common, k);
    } catch (const std::exception& e) {
        spdlog::warn("cannot release the folded saves' kept pack: {}", e.what());
    }
}

void keep_folded_history(const Git& store) noexcept
{
    try {
        const fs::path& common = store.common();
        PathLock lock(common, "kept pack of the chains", read_settings(common).lock_timeout);
        auto tips = chain_tips(store);
        std::vector<Kept> live;
        std::set<std::string> held; // the tips our live kept packs were made from
        for (auto& k : ours(common)) {
            if (!still_reached(store, k, tips)) {
                release(common, k);
                continue;
            }
            held.insert(k.tips.begin(), k.tips.end());
            live.push_back(std::move(k));
        }
        if (tips.empty())
            return;
        RunResult outside = store.run({"rev-list", "--count", "--stdin"}, revs(tips, held));
        if (outside.status != 0 || std::strtoul(outside.out.c_str(), nullptr, 10) < k_kept_batch)
            return;
        std::string pack = write_kept(store, tips);
        // Every object of a live pack is reachable from tips the new one was made from.
        for (const auto& k : live)
            if (k.pack != pack)
                remove_pack(common, k.pack);
        spdlog::info("kept the chains' history in {} (replacing {} kept pack(s))", pack, live.size());
    } catch (const std::exception& e) {
        spdlog::warn("cannot keep the folded saves' history in a kept pack (gc rewrites it): {}", e.what());
    }
}

} // namespace guard
