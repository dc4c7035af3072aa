// Chained saves as listed saves: their handle, their backup state, their drop.
#include "guard/folded.hpp"

#include "guard/chain.hpp"
#include "guard/journal.hpp"
#include "guard/repo.hpp"

#include <spdlog/spdlog.h>

#include <map>

namespace fs = std::filesystem;

namespace guard {

void add_chained(std::vector<Save>& out, std::set<std::string>& seen,
                 const std::vector<std::vector<std::string>>& records,
                 const std::function<Save(const std::vector<std::string>&)>& make,
                 const std::set<std::string>* pushed)
{
    std::map<std::string, bool> reached; // per chain: a pushed tip is at or above this link
    for (const auto& f : records) {
        if (f.size() < 7 || !seen.insert(f[0] + " " + f[1]).second)
            continue;
        Save s = make(f);
        s.chain = f[6];
        if (pushed) {
            bool& r = reached[s.chain];
            r = r || pushed->count(s.chain + " " + f[5]) > 0;
            s.backed_up = r || pushed->count(s.ref + " " + s.commit) > 0;
        }
        out.push_back(std::move(s));
    }
}

std::string drop_folded(const fs::path& common, const Save& s)
{
    drop_link(common, s.ref, read_settings(common).lock_timeout);
    spdlog::warn("dropped {} from {} (was {})", s.ref, s.chain, s.commit);
    journal_record(common, {.kind = "drop", .ref = s.ref, .commit = s.commit, .path = s.path,
                            .branch = s.branch, .reason = "drop", .detail = s.reason});
    return s.ref;
}

} // namespace guard
