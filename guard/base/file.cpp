// Whole-file reads and writes, the one reader every layer uses for a file's bytes.
#include "guard/base/file.hpp"

#include "guard/base/error.hpp"

#include <cerrno>
#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace guard {

std::optional<std::string> read_bytes(const fs::path& path)
{
    // One read of the whole file into its final buffer: a journal has a line per save, and
    // reading it through a stream was a third of `list` at 20,000 saves.
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    std::string text;
    struct stat st {};
    text.resize((::fstat(fd, &st) == 0 ? static_cast<size_t>(st.st_size) : 0) + 1); // a file that grew reads on
    size_t got = 0;
    for (ssize_t n; (n = ::read(fd, text.data() + got, text.size() - got)) != 0;) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break; // a directory, or a read that failed part way: what was read
        got += static_cast<size_t>(n);
        if (got == text.size())
            text.resize(text.size() * 2);
    }
    text.resize(got);
    ::close(fd);
    return text;
}

std::string read_first_line(const fs::path& file)
{
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

void write_bytes(const fs::path& path, const std::string& bytes, std::optional<fs::perms> mode)
{
    std::error_code ec;
    auto old_mode = fs::status(path, ec).permissions();
    fs::path temp = path.string() + ".guard-tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << bytes;
        if (!out.flush())
            throw Error("cannot write " + temp.string());
    }
    fs::permissions(temp, mode ? *mode : ec ? fs::perms(0644) : old_mode);
    fs::rename(temp, path);
}

} // namespace guard
