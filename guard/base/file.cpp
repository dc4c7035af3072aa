// Whole-file reads and writes, the one reader every layer uses for a file's bytes.
#include "guard/base/file.hpp"

#include "guard/base/error.hpp"

#include <cerrno>
#include <fstream>

#include <fcntl.h>
#include <sys/mman.h>
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

MappedFile::MappedFile(const fs::path& path)
{
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st {};
    m_opened = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (m_opened && st.st_size > 0) {
        // MAP_POPULATE: the pages come in one call rather than one fault each.
        void* at = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (at == MAP_FAILED) {
            m_opened = false;
        } else {
            m_data = static_cast<const char*>(at);
            m_size = static_cast<size_t>(st.st_size);
            m_mapped = true;
        }
    }
    ::close(fd);
}

MappedFile::~MappedFile()
{
    if (m_mapped)
        ::munmap(const_cast<char*>(m_data), m_size);
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

bool replace_file(const fs::path& path, const std::string& bytes)
{
    std::error_code ec;
    fs::path temp = path.string() + "." + std::to_string(::getpid()) + ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << bytes;
        if (!out.flush()) {
            fs::remove(temp, ec);
            return false;
        }
    }
    fs::rename(temp, path, ec);
    if (ec)
        fs::remove(temp, ec);
    return !ec;
}

} // namespace guard
