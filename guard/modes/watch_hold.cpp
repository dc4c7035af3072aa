// The hold: one kept pack of the unpublished tips' objects, replaced when the tips change.
// git's own pack-objects walks the tips (`tip` lines, `^published` lines), so the hold is
// exactly what a ref walk would need and nothing is imitated.
#include "guard/modes/watch_hold.hpp"

#include "guard/base/error.hpp"
#include "guard/base/file.hpp"
#include "guard/git/git.hpp"
#include "guard/modes/watch_repo.hpp"

#include <spdlog/spdlog.h>

#include <sstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr const char* k_keep_text = "git-guard hold: the watcher's copy of unpublished tips (DESIGN 15)\n";

fs::path pack_dir(const fs::path& common) { return common / "objects" / "pack"; }

// `<common>/guard/watch/hold`: the pack's name, the tips it holds, then its object ids.
struct Record {
    std::string pack;             // "pack-<hash>", "" when nothing is held
    std::string tips;             // the held tips, space-separated and sorted
    std::set<std::string> objects;
};

fs::path record_file(const fs::path& common) { return repo_watch_dir(common) / "hold"; }

Record read_record(const fs::path& common)
{
    Record r;
    std::istringstream in(read_bytes(record_file(common)).value_or(""));
    std::getline(in, r.pack);
    std::getline(in, r.tips);
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            r.objects.insert(line);
    return r;
}

void write_record(const fs::path& common, const Record& r)
{
    std::string text = r.pack + "\n" + r.tips + "\n";
    for (const auto& oid : r.objects)
        text += oid + "\n";
    write_bytes(record_file(common), text);
}

std::string joined(const std::set<std::string>& tips)
{
    std::string out;
    for (const auto& t : tips)
        out += (out.empty() ? "" : " ") + t;
    return out;
}

// The object ids a pack's index lists.
std::set<std::string> pack_objects(const Git& git, const fs::path& idx)
{
    auto bytes = read_bytes(idx);
    if (!bytes)
        throw Error("cannot read " + idx.string());
    std::set<std::string> out;
    std::istringstream in(git.out({"show-index"}, "read the hold's index", *bytes));
    for (std::string offset, oid; in >> offset >> oid;) {
        out.insert(oid);
        std::string crc;
        if (in.peek() == ' ')
            in >> crc;
    }
    return out;
}

// Removes a pack's files, its index first (git stops seeing it), its `.keep` last.
void remove_pack(const fs::path& common, const std::string& pack)
{
    std::error_code ec;
    for (const char* ext : {".idx", ".pack", ".rev", ".bitmap", ".mtimes", ".keep"})
        fs::remove(pack_dir(common) / (pack + ext), ec);
}

// Writes the new hold in a scratch directory, then moves it in: its `.keep` first, its
// index last, so no moment shows git an unkept hold a concurrent repack could fold away.
std::string write_pack(const Git& git, const fs::path& common, const std::string& revs)
{
    fs::path scratch = repo_watch_dir(common) / "hold.tmp";
    std::error_code ec;
    fs::remove_all(scratch, ec);
    if (!make_watch_dir(common) || !fs::create_directory(scratch, ec))
        throw Error("the repository is gone or cannot take the hold: " + common.string());
    std::string hash = first_line_of(git.out({"pack-objects", "--revs", "--delta-base-offset", "-q",
                                              (scratch / "pack").string()},
                                             "write the hold", revs));
    if (!is_oid(hash))
        throw Error("pack-objects named no pack: " + hash);
    std::string pack = "pack-" + hash;
    write_bytes(pack_dir(common) / (pack + ".keep"), k_keep_text);
    for (const char* ext : {".pack", ".rev", ".idx"})
        if (fs::exists(scratch / (pack + ext), ec))
            fs::rename(scratch / (pack + ext), pack_dir(common) / (pack + ext), ec);
    if (ec)
        throw Error("cannot move the hold into " + pack_dir(common).string() + ": " + ec.message());
    fs::remove_all(scratch, ec);
    return pack;
}

// Lets the previous hold go: what only it had is copied into an ordinary pack first (gc
// and prune then treat it as they would have without the hold).
void let_go(const Git& git, const fs::path& common, const Record& old, const std::set<std::string>& kept)
{
    std::string rest;
    for (const auto& oid : old.objects)
        if (!kept.count(oid))
            rest += oid + "\n";
    if (!rest.empty())
        git.out({"pack-objects", "-q", (pack_dir(common) / "pack").string()}, "keep what the hold let go", rest);
    remove_pack(common, old.pack);
}

// The `tip` and `^published` lines of the tips whose commit git can read.
std::string present_only(const Git& git, const std::set<std::string>& tips, const std::set<std::string>& published)
{
    std::string input;
    for (const auto& t : tips)
        input += t + "^{commit}\n";
    std::string revs;
    for (const auto& line : split(git.run({"cat-file", "--batch-check=%(objectname)"}, input).out, '\n'))
        if (is_oid(line))
            revs += line + "\n";
    for (const auto& p : published)
        revs += "^" + p + "\n";
    return revs;
}

} // namespace

void hold_more(const fs::path& common, const std::set<std::string>& tips, const std::set<std::string>& published)
{
    Record old = read_record(common);
    std::set<std::string> all = tips;
    std::istringstream in(old.tips);
    for (std::string t; in >> t;)
        all.insert(t);
    if (joined(all) != old.tips)
        hold_tips(common, all, published);
}

std::set<fs::path> hold_packs(const fs::path& common)
{
    std::set<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(pack_dir(common), ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".keep" && read_bytes(it->path()).value_or("") == k_keep_text)
            out.insert(it->path());
    return out;
}

void hold_tips(const fs::path& common, const std::set<std::string>& tips, const std::set<std::string>& published)
{
    if (!repo_alive(common))
        return;
    Record old = read_record(common);
    std::string wanted = joined(tips);
    std::error_code ec;
    if (wanted == old.tips && (old.pack.empty() || fs::exists(pack_dir(common) / (old.pack + ".keep"), ec)))
        return;
    try {
        Git git(common);
        Record now{"", wanted, {}};
        std::string revs;
        for (const auto& t : tips)
            revs += t + "\n";
        for (const auto& p : published)
            revs += "^" + p + "\n";
        if (!tips.empty()) {
            try {
                now.pack = write_pack(git, common, revs);
            } catch (const Error& e) {
                // A tip whose objects are gone already (a broken ref, a pruned HEAD) must not
                // keep every other tip unheld: hold the ones that are there.
                spdlog::warn("watch: holding only the tips still in {}: {}", common.string(), e.what());
                revs = present_only(git, tips, published);
                now.pack = write_pack(git, common, revs);
            }
            now.objects = pack_objects(git, pack_dir(common) / (now.pack + ".idx"));
        }
        write_record(common, now);
        if (!old.pack.empty() && old.pack != now.pack && fs::exists(pack_dir(common) / (old.pack + ".idx"), ec))
            let_go(git, common, old, now.objects);
        // A hold a killed watcher left behind stays as an ordinary pack: never removed unread.
        for (const auto& keep : hold_packs(common))
            if (keep.stem().string() != now.pack)
                fs::remove(keep, ec);
    } catch (const std::exception& e) {
        spdlog::error("watch: cannot hold the tips of {}: {}", common.string(), e.what());
    }
}

} // namespace guard
