#pragma once

#include <ctime>
#include <string>

namespace guard {

// The UTC time to the millisecond, `YYYYMMDDTHHMMSS.mmmZ` (or $GIT_GUARD_STAMP, for tests).
std::string utc_stamp();

// The UTC time now, `date_format` (strftime) followed by `.mmmZ`.
std::string utc_millis(const char* date_format);

// `t` as UTC ISO 8601 to the second, `YYYY-MM-DDTHH:MM:SS` (the caller adds any suffix).
std::string utc_iso(std::time_t t);

} // namespace guard
