// Stamps for save names and journal times: UTC to the millisecond.
#include "guard/base/clock.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace guard {

std::string utc_stamp()
{
    if (const char* pinned = std::getenv("GIT_GUARD_STAMP"); pinned && *pinned)
        return pinned;
    return utc_millis("%Y%m%dT%H%M%S");
}

std::string utc_millis(const char* date_format)
{
    auto now = std::chrono::system_clock::now();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
    std::time_t seconds = static_cast<std::time_t>(ms / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[40];
    std::strftime(text, sizeof text, date_format, &utc);
    char full[48];
    std::snprintf(full, sizeof full, "%s.%03dZ", text, static_cast<int>(ms % 1000));
    return full;
}

std::string utc_iso(std::time_t t)
{
    std::tm utc{};
    gmtime_r(&t, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    return text;
}

} // namespace guard
