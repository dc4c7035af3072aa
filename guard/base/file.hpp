#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace guard {

// The bytes of `path`, whole and unchanged (no newline translation). nullopt when it
// cannot be opened: missing, a dangling link, no permission. A file that opens but cannot
// be read (a directory) reads as "", and one whose read fails part way as what was read.
std::optional<std::string> read_bytes(const std::filesystem::path& path);

// The first line of `file`, without its newline ("" when it cannot be read).
std::string read_first_line(const std::filesystem::path& file);

// Replaces `path` whole (temp file, then rename), keeping its mode unless `mode` is given.
void write_bytes(const std::filesystem::path& path, const std::string& bytes,
                 std::optional<std::filesystem::perms> mode = {});

} // namespace guard
