#pragma once

#include <string>

namespace guard {

// The UTC time to the millisecond, `YYYYMMDDTHHMMSS.mmmZ` (or $GIT_GUARD_STAMP, for tests).
std::string utc_stamp();

// The UTC time now, `date_format` (strftime) followed by `.mmmZ`.
std::string utc_millis(const char* date_format);

} // namespace guard
