// The raw write-back of a save's files (DESIGN §4.1.1): what the save holds apart from its
// HEAD is the files' bytes as they were on disk, so it goes back byte for byte; a smudge
// filter or an eol rule would rewrite it (an nbstripout-style filter has no smudge to undo
// its clean, `text=auto` with core.eol=crlf doubles nothing but still converts). The files
// HEAD holds unchanged are git's to check out, as `git worktree add` would.
#include "guard/save/restore_raw.hpp"

#include "guard/base/error.hpp"
#include "guard/git/git.hpp"
#include "guard/git/process.hpp"
#include "guard/save/backup.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;

namespace guard {

namespace {

struct RawFile {
    std::string mode;
    std::string id;
    std::string path;
};

// git in the repository at `git_dir` with `dir` as its work tree and `index` as its index,
// every hook off (restore.cpp's GitAt, with an index of its own).
std::string git_out(const fs::path& git_dir, const fs::path& dir, const fs::path& index,
                    const std::vector<std::string>& args, const std::string& input = "")
{
    auto argv = git_without_hooks(git_dir);
    argv.insert(argv.begin() + 2, "--work-tree=" + dir.string());
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options{.input = input, .env = {{"GIT_INDEX_FILE", index.string()}}};
    auto r = run(argv, options);
    if (r.status != 0)
        throw Error("git " + args[0] + " failed: " + r.err.substr(0, r.err.find('\n')));
    return r.out;
}

// The regular files of `tree` that `base` does not hold as they are: `:<old> <new> <old id>
// <new id> <status>` NUL `<path>` NUL, as diff-tree -z writes them.
std::vector<RawFile> raw_files(const fs::path& git_dir, const fs::path& dir, const fs::path& index,
                               const std::string& base, const std::string& tree)
{
    std::string from = base;
    if (from.empty()) // unborn: every file is the save's own
        from = first_line_of(git_out(git_dir, dir, index, {"hash-object", "-t", "tree", "--stdin"}));
    std::vector<RawFile> files;
    auto fields = split(git_out(git_dir, dir, index, {"diff-tree", "-r", "-z", "--raw", "--no-renames", from, tree}));
    for (size_t i = 0; i + 1 < fields.size(); i += 2) {
        auto meta = split(fields[i], ' ');
        if (meta.size() == 5 && (meta[1] == "100644" || meta[1] == "100755") && meta[4] != "D")
            files.push_back({meta[1], meta[3], fields[i + 1]});
    }
    return files;
}

void write_file(const fs::path& path, const RawFile& f, const char* data, size_t size)
{
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, f.mode == "100755" ? 0777 : 0666);
    if (fd < 0)
        throw Error("cannot write " + path.string() + ": " + std::strerror(errno));
    while (size > 0) {
        ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = errno;
            ::close(fd);
            throw Error("cannot write " + path.string() + ": " + std::strerror(err));
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
    if (::close(fd) != 0)
        throw Error("cannot write " + path.string() + ": " + std::strerror(errno));
}

// Each file's blob as it is, from one `cat-file --batch`: "<id> blob <size>\n<bytes>\n".
void write_blobs(const fs::path& git_dir, const fs::path& dir, const fs::path& index, const std::vector<RawFile>& files)
{
    std::string ids;
    for (const auto& f : files)
        ids += f.id + "\n";
    std::string out = git_out(git_dir, dir, index, {"cat-file", "--batch"}, ids);
    size_t at = 0;
    for (const auto& f : files) {
        size_t nl = out.find('\n', at);
        auto head = split(out.substr(at, nl == std::string::npos ? std::string::npos : nl - at), ' ');
        if (nl == std::string::npos || head.size() != 3 || head[0] != f.id || head[1] != "blob")
            throw Error("cannot read the saved bytes of " + f.path + " (" + f.id + ")");
        size_t size = std::stoull(head[2]);
        if (nl + 1 + size > out.size())
            throw Error("cannot read the saved bytes of " + f.path + ": git gave too few");
        write_file(dir / f.path, f, out.data() + nl + 1, size);
        at = nl + 1 + size + 1;
    }
}

} // namespace

void write_saved_files(const fs::path& git_dir, const fs::path& dir, const std::string& base, const std::string& tree)
{
    fs::path scratch = git_dir / "guard-restore-index";
    struct Remove {
        fs::path path;
        ~Remove() { std::error_code ec; fs::remove(path, ec); }
    } remove{scratch};
    git_out(git_dir, dir, scratch, {"read-tree", tree});
    std::vector<RawFile> raw = raw_files(git_dir, dir, scratch, base, tree);
    if (raw.empty()) {
        git_out(git_dir, dir, scratch, {"checkout-index", "--all", "--force"});
        return;
    }
    std::set<std::string> own;
    for (const auto& f : raw)
        own.insert(f.path);
    std::string rest;
    for (const auto& path : split(git_out(git_dir, dir, scratch, {"ls-files", "-z", "--cached"})))
        if (!own.count(path))
            rest += path + std::string(1, '\0');
    if (!rest.empty())
        git_out(git_dir, dir, scratch, {"checkout-index", "--force", "-z", "--stdin"}, rest);
    write_blobs(git_dir, dir, scratch, raw);
}

} // namespace guard
