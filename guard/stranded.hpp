#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace guard {

// One stranded branch, with the facts its commit's trailers record.
struct Stranded {
    std::string ref;
    std::string commit;
    std::string from;    // Stranded-From
    std::string branch;  // Stranded-Branch
    std::string reason;  // Stranded-Reason
    long long time = 0;  // commit time, seconds since the epoch
};

std::vector<Stranded> list_stranded(const std::filesystem::path& start);

// Deletes the stranded branch `name` (short or full) without saving; logged.
void drop_stranded(const std::filesystem::path& start, const std::string& name);

} // namespace guard
