// An index's listing, kept under the digest of the index's bytes (index_listing.hpp).
#include "guard/judge/index_listing.hpp"

#include "guard/base/file.hpp"
#include "guard/version.hpp"

namespace fs = std::filesystem;

namespace guard {

namespace {

// Bump with any change to which records are kept.
constexpr std::string_view k_format = "git-guard index-listing 1 " GUARD_VERSION " ";

// True for a record an inspection reads: "<tag> <mode> <oid> <stage>\t<path>".
bool wanted(std::string_view rec)
{
    if (rec.size() < 10)
        return false;
    constexpr std::string_view attrs = ".gitattributes";
    char tag = rec[0];
    size_t name = rec.size() - attrs.size();
    return rec.substr(2, 6) == "160000" || (tag >= 'a' && tag <= 'z') ||
           (rec.size() > attrs.size() && rec.ends_with(attrs) && (rec[name - 1] == '/' || rec[name - 1] == '\t'));
}

// A record that makes the listing depend on more than the index's bytes: skip-worktree
// ('S', lowercase 's' when also assume-unchanged), or a sparse directory.
bool sparse(std::string_view rec) { return rec.size() >= 10 && (rec[0] == 'S' || rec[0] == 's' || rec.substr(2, 6) == "040000"); }

} // namespace

IndexKey index_key(const fs::path& git_dir, const fs::path& index)
{
    IndexKey key;
    // A linked tree's listing lives and dies with its admin entry's name; the main tree's
    // beside the guard's other files. Any other git dir (a nested repository's) keeps none.
    fs::path common = git_dir.parent_path().parent_path();
    std::error_code ec;
    if (git_dir.parent_path().filename() == "worktrees" && fs::is_directory(common / "guard", ec))
        key.slot = common / "guard" / "indexes" / ("tree-" + git_dir.filename().string());
    else if (fs::is_directory(git_dir / "guard", ec) && fs::exists(git_dir / "HEAD", ec))
        key.slot = git_dir / "guard" / "indexes" / "main";
    if (key.slot.empty())
        return key; // nowhere to keep a listing: the index is not read for nothing
    MappedFile file(index);
    if (file.opened())
        key.digest = Digest().add(file.bytes());
    return key;
}

std::optional<std::string> read_index_listing(const IndexKey& key)
{
    if (key.slot.empty() || !key.digest)
        return std::nullopt;
    MappedFile file(key.slot);
    std::string_view text = file.bytes();
    std::string head = std::string(k_format) + key.digest->hex() + "\n";
    if (!file.opened() || !text.starts_with(head))
        return std::nullopt;
    text.remove_prefix(head.size());
    if (!text.empty() && !text.ends_with('\0'))
        return std::nullopt; // cut short
    return std::string(text);
}

void keep_index_listing(const IndexKey& key, const IndexKey& now, std::string_view listing)
{
    if (key.slot.empty() || !key.digest || now.digest != key.digest)
        return;
    std::string text = std::string(k_format) + key.digest->hex() + "\n";
    for (size_t at = 0, end; at < listing.size(); at = end + 1) {
        end = listing.find('\0', at);
        if (end == std::string_view::npos)
            return; // not as ls-files -z ends its records: keep nothing
        std::string_view rec = listing.substr(at, end - at);
        if (sparse(rec))
            return;
        if (wanted(rec))
            text.append(rec).push_back('\0');
    }
    std::error_code ec;
    fs::path dir = key.slot.parent_path();
    bool fresh = !fs::exists(key.slot, ec);
    fs::create_directories(dir, ec);
    if (ec || !replace_file(key.slot, text) || !fresh)
        return;
    // A new slot: drop those of trees whose admin entry is gone, so a repository that saw
    // thousands of short-lived trees keeps a listing only for those that exist.
    fs::path worktrees = dir.parent_path().parent_path() / "worktrees";
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) { // never throws
        std::string name = it->path().filename().string();
        std::error_code gone;
        if (name.starts_with("tree-") && !fs::exists(worktrees / name.substr(5), gone) && !gone)
            fs::remove(it->path(), gone);
    }
}

} // namespace guard
