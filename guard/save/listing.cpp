// The last listing of the saves, kept under the key of the facts it was made from.
#include "guard/save/listing.hpp"

#include "guard/base/file.hpp"
#include "guard/version.hpp"

#include <spdlog/spdlog.h>

#include <charconv>

namespace fs = std::filesystem;

namespace guard {

namespace {

// Bump with any change to what a Save holds or how all_saves makes one: a listing kept by
// an older build is then read as missing.
constexpr const char* k_format = "git-guard listing 1 " GUARD_VERSION;
constexpr size_t k_fields = 15;

fs::path listing_path(const fs::path& common) { return common / "guard" / "listing"; }

// The first line, up to the count of saves that ends it.
std::string header(const ListingKey& key) { return std::string(k_format) + " " + key.hex() + " "; }

} // namespace

ListingKey listing_key(std::initializer_list<std::string_view> facts)
{
    ListingKey k;
    for (auto fact : facts)
        k.add(fact);
    return k;
}

bool read_listing(const fs::path& common, const ListingKey& key, const std::function<void(const Save&)>& each)
{
    MappedFile file(listing_path(common));
    std::string_view text = file.bytes();
    std::string head = header(key);
    size_t newline = text.find('\n');
    size_t count = 0;
    if (!text.starts_with(head) || newline == std::string_view::npos ||
        std::from_chars(text.data() + head.size(), text.data() + newline, count).ec != std::errc())
        return false;
    // Whole before the first save is given: a listing is written whole or not at all, so one
    // whose records do not each end where the fifteenth NUL puts them, or whose count does
    // not match, is cut short or not ours, and is read as none rather than in part.
    size_t at = newline + 1;
    size_t records = 0;
    for (size_t pos = at; pos < text.size(); ++records) {
        for (size_t i = 0; i < k_fields && pos != std::string_view::npos; ++i) {
            pos = text.find('\0', pos);
            pos = pos == std::string_view::npos ? pos : pos + 1;
        }
        if (pos == std::string_view::npos || pos >= text.size() || text[pos] != '\n')
            return false;
        pos += 1;
    }
    if (records != count)
        return false;
    Save s; // one save reused: its strings keep their room, so 20,000 saves cost no allocation each
    std::string_view f[k_fields];
    while (at < text.size()) {
        for (auto& field : f) {
            size_t end = text.find('\0', at);
            field = text.substr(at, end - at);
            at = end + 1;
        }
        ++at; // the newline, checked above
        s.ref = f[0];
        s.commit = f[1];
        s.path = f[2];
        s.branch = f[3];
        s.reason = f[4];
        s.time = f[5];
        s.unix_time = 0;
        std::from_chars(f[6].data(), f[6].data() + f[6].size(), s.unix_time);
        s.kind = f[7];
        s.layout = f[8].empty() ? 0 : f[8][0] - '0';
        s.summary = f[9];
        s.in_place = f[10] == "1";
        s.backed_up = f[11].empty() ? std::nullopt : std::optional<bool>(f[11] == "1");
        s.foreign = f[12] == "1";
        s.bundle = f[13];
        s.chain = f[14];
        each(s);
    }
    return true;
}

void write_listing(const fs::path& common, const ListingKey& key, const std::vector<Save>& saves)
{
    std::error_code ec;
    if (!fs::is_directory(common / "guard", ec))
        return; // a listing of a repository the guard never wrote to is not worth a folder
    std::string text = header(key) + std::to_string(saves.size()) + "\n";
    text.reserve(saves.size() * 320);
    bool whole = true;
    auto put = [&](std::string_view field) {
        whole = whole && field.find('\0') == std::string_view::npos; // a NUL would end a field early
        text.append(field);
        text.push_back('\0');
    };
    for (const auto& s : saves) {
        if (s.layout < 0 || s.layout > 9)
            return; // not a layout this format holds: no listing rather than a wrong one
        put(s.ref);
        put(s.commit);
        put(s.path);
        put(s.branch);
        put(s.reason);
        put(s.time);
        put(std::to_string(s.unix_time));
        put(s.kind);
        put(std::to_string(s.layout));
        put(s.summary);
        put(s.in_place ? "1" : "0");
        put(!s.backed_up ? "" : *s.backed_up ? "1" : "0");
        put(s.foreign ? "1" : "0");
        put(s.bundle);
        put(s.chain);
        text.push_back('\n');
    }
    if (whole && !replace_file(listing_path(common), text))
        spdlog::debug("cannot write {}", listing_path(common).string());
}

} // namespace guard
