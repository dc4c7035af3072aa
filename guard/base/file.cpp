// Whole-file reads and writes, the one reader every layer uses for a file's bytes.
#include "guard/base/file.hpp"

#include "guard/base/error.hpp"

#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace guard {

std::optional<std::string> read_bytes(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
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
