// Saves are the bytes (DESIGN §4.1.1, §15). git's `add` decides what changed and how
// (modes, symlinks, deletions, sparse and split indexes); it is run with every filter
// driver emptied and no fsmonitor command, so it runs nothing of the repository's. Its
// blobs are then replaced by the files' raw bytes: `hash-object --no-filters` and
// `update-index --index-info` into the same private index, only where they differ. eol rules, `ident` and
// `working-tree-encoding` are git's own conversions (no program runs), but they rewrite
// bytes, so no blob of a changed file is taken from them.
#include "guard/save/staging_raw.hpp"

#include "guard/base/error.hpp"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace guard {

Git quiet_git(const Git& git) { return git.quiet(); }

std::string quote_path_line(const std::string& path)
{
    bool plain = !path.empty() && path[0] != '"';
    for (unsigned char c : path)
        if (c < 0x20 || c == 0x7f || c == '\\')
            plain = false;
    if (plain)
        return path;
    std::string out = "\"";
    for (unsigned char c : path) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\%03o", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

namespace {

struct Entry {
    std::string mode;
    std::string id;   // the blob git staged
    std::string path;
};

// The regular files of `tree` that `base` does not hold as they are: `:<old> <new> <old id>
// <new id> <status>` NUL `<path>` NUL, as diff-tree -z writes them. Trees compare by id, so
// the walk skips every directory the work left alone.
std::vector<Entry> changed_files(const Git& staged, const std::string& base, const std::string& tree)
{
    std::vector<Entry> files;
    auto fields = split(staged.out({"diff-tree", "-r", "-z", "--raw", "--no-renames", base, tree},
                                   "list the files the save holds"));
    for (size_t i = 0; i + 1 < fields.size(); i += 2) {
        const std::string& meta = fields[i];
        if (meta.size() < 15 || meta[0] != ':')
            continue;
        auto f = split(meta, ' ');
        if (f.size() == 5 && (f[1] == "100644" || f[1] == "100755"))
            files.push_back({f[1], f[3], fields[i + 1]});
    }
    return files;
}

// Empty when the file at `path` can be read as a regular file; else why not. A file gone
// or turned into something else meanwhile is git's as staged ("-").
std::string unreadable(const std::filesystem::path& path)
{
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return "-";
    int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return errno == ENOENT ? "-" : "unreadable";
    ::close(fd);
    return "";
}

} // namespace

std::vector<std::string> missing_blob_entries(const Git& staged)
{
    std::vector<std::string> paths;
    std::string ids;
    auto fields = split(staged.out({"ls-files", "-s", "-z"}, "list the index"), '\0');
    for (const auto& entry : fields) {
        auto tab = entry.find('\t');
        auto f = split(entry.substr(0, tab == std::string::npos ? 0 : tab), ' ');
        if (f.size() != 3 || f[0] == "160000" || !is_oid(f[1]))
            continue; // a gitlink names a commit of another repository
        paths.push_back(entry.substr(tab + 1));
        ids += f[1] + "\n";
    }
    std::vector<std::string> missing;
    auto answers = split(staged.out({"cat-file", "--batch-check"}, "look the index's blobs up", ids), '\n');
    for (size_t i = 0; i < answers.size() && i < paths.size(); ++i)
        if (answers[i].ends_with(" missing"))
            missing.push_back(paths[i]);
    return missing;
}

std::vector<Unsaved> stage_raw(const Git& staged, const std::string& base, std::string& tree)
{
    std::vector<Unsaved> unsaved;
    std::vector<Entry> files;
    for (auto& e : changed_files(staged, base.empty() ? staged.empty_tree() : base, tree)) {
        std::string why = unreadable(staged.work_tree() / e.path);
        if (why.empty())
            files.push_back(std::move(e));
        else if (why != "-")
            unsaved.push_back({e.path, why});
    }
    if (files.empty())
        return unsaved;
    std::string paths;
    for (const auto& e : files)
        paths += quote_path_line(e.path) + "\n";
    auto ids = split(staged.out({"hash-object", "-w", "--no-filters", "--stdin-paths"}, "save the files' bytes", paths), '\n');
    if (ids.size() != files.size())
        throw Error("save the files' bytes: git hash-object gave " + std::to_string(ids.size()) + " ids for " +
                    std::to_string(files.size()) + " files");
    std::string info;
    for (size_t i = 0; i < files.size(); ++i) {
        if (!is_oid(ids[i]))
            throw Error("save the files' bytes: git hash-object gave no id for " + files[i].path);
        // Where no conversion applied (most files), git staged the bytes already: the
        // index is rewritten only when some blob differs.
        if (ids[i] != files[i].id)
            info += files[i].mode + " " + ids[i] + "\t" + files[i].path + std::string(1, '\0');
    }
    if (info.empty())
        return unsaved;
    staged.out({"update-index", "-z", "--index-info"}, "record the files' bytes", info);
    tree = first_line_of(staged.out({"write-tree"}, "write the files' bytes"));
    if (!is_oid(tree))
        throw Error("write the files' bytes: git write-tree gave no tree id");
    return unsaved;
}

} // namespace guard
