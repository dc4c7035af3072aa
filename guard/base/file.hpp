#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace guard {

// The bytes of `path`, whole and unchanged (no newline translation). nullopt when it
// cannot be opened: missing, a dangling link, no permission. A file that opens but cannot
// be read (a directory) reads as "", and one whose read fails part way as what was read.
std::optional<std::string> read_bytes(const std::filesystem::path& path);

// A file's bytes mapped read-only and whole, for reading a large file without copying it
// (the journal and the listing at 20,000 saves are megabytes, read by every `list`). Only
// for files that are replaced by rename or appended to, never truncated in place: a page
// cut off under a mapping would fault. Empty when the file is missing, empty or unreadable.
class MappedFile {
public:
    explicit MappedFile(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    bool opened() const { return m_opened; }
    std::string_view bytes() const { return {m_data, m_size}; }

private:
    const char* m_data = "";
    size_t m_size = 0;
    bool m_opened = false;
    bool m_mapped = false;
};

// The first line of `file`, without its newline ("" when it cannot be read).
std::string read_first_line(const std::filesystem::path& file);

// Replaces `path` whole (temp file, then rename), keeping its mode unless `mode` is given.
void write_bytes(const std::filesystem::path& path, const std::string& bytes,
                 std::optional<std::filesystem::perms> mode = {});

// Replaces `path` whole through a temporary file of this process (so writers in several
// processes never share one), then rename: a reader sees the old bytes or the new. For the
// guard's own caches. Never throws; false when it could not be written (then `path` is
// unchanged).
bool replace_file(const std::filesystem::path& path, const std::string& bytes);

} // namespace guard
