#include "guard/save/packs.hpp"

#include "guard/save/saveref.hpp"

#include <spdlog/spdlog.h>

namespace fs = std::filesystem;

namespace guard {

std::size_t pack_count(const fs::path& common)
{
    std::size_t n = 0;
    std::error_code ec;
    for (fs::directory_iterator it(common / "objects" / "pack", ec), end; !ec && it != end; it.increment(ec))
        n += it->path().extension() == ".pack";
    return n;
}

void keep_packs_few(const Git& store)
{
    std::size_t before = pack_count(store.common());
    if (before < k_pack_limit)
        return;
    std::vector<std::string> args = hooks_off(store);
    args.insert(args.end(), {"-c", "repack.writeBitmaps=false", "repack", "-d", "-q", "-l", "--geometric=2"});
    RunResult r = store.run(args);
    if (r.status != 0)
        spdlog::warn("could not gather the repository's {} packs: {}", before, first_line_of(r.err));
    else
        spdlog::info("gathered {} packs into {}", before, pack_count(store.common()));
}

} // namespace guard
