// Saves are the bytes (DESIGN §4.1.1, §15). Most saves stage the paths git's status listed
// straight from their files (stage_listed: `update-index --add --remove` where no attribute
// can reach them, else hash-object --no-filters and update-index --index-info). Otherwise
// git's `add` decides what changed and how
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
#include <set>
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

// The blob ids of `files`' bytes on disk (hash-object -w --no-filters), one per file, in order.
std::vector<std::string> hash_bytes(const Git& staged, const std::vector<Entry>& files)
{
    if (files.empty())
        return {};
    std::string paths;
    for (const auto& e : files)
        paths += quote_path_line(e.path) + "\n";
    auto ids = split(staged.out({"hash-object", "-w", "--no-filters", "--stdin-paths"}, "save the files' bytes", paths), '\n');
    if (ids.size() != files.size())
        throw Error("save the files' bytes: git hash-object gave " + std::to_string(ids.size()) + " ids for " +
                    std::to_string(files.size()) + " files");
    for (size_t i = 0; i < files.size(); ++i)
        if (!is_oid(ids[i]))
            throw Error("save the files' bytes: git hash-object gave no id for " + files[i].path);
    return ids;
}

} // namespace

std::string write_tree(const Git& git, const std::string& what)
{
    std::string id = first_line_of(git.out({"write-tree"}, what));
    if (!is_oid(id))
        throw Error(what + ": git write-tree gave no tree id");
    return id;
}

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

namespace {

// Whether no attribute can reach `paths` when git stages them with the system and global
// attribute files off: no .gitattributes in the index (nor a sparse directory that may
// hide one), none on disk in any directory above a path, no info/attributes. Asked of the
// files git itself would read (attr.c), so git's staging then writes the bytes.
bool no_attributes(const Git& staged, const Work& w, const std::vector<std::string>& paths)
{
    if (w.attributes)
        return false;
    struct stat st {};
    errno = 0;
    if (::stat((staged.common() / "info" / "attributes").c_str(), &st) == 0 ? st.st_size > 0 : errno != ENOENT)
        return false;
    std::set<std::string> seen; // directories checked, with all above them
    for (const auto& path : paths) {
        std::string dir = path;
        do {
            auto slash = dir.rfind('/');
            dir = slash == std::string::npos ? "" : dir.substr(0, slash);
            if (!seen.insert(dir).second)
                break;
            errno = 0;
            if (::lstat((staged.work_tree() / dir / ".gitattributes").c_str(), &st) == 0 || errno != ENOENT)
                return false;
        } while (!dir.empty());
    }
    return true;
}

} // namespace

std::optional<std::string> stage_listed(const Git& staged, const Work& w, const StageRules& rules,
                                        const std::string& index_tree)
{
    if (!w.unmerged.empty() || !w.nested.empty() || !w.hidden.empty() || !w.excluded.empty() || !w.note.empty())
        return std::nullopt;
    std::vector<std::string> gone, links, all; // all: the gone first, so a directory may take a file's place
    std::vector<Entry> files;
    for (const auto& c : w.changes) {
        if (c.kind == ChangeKind::ignored || c.kind == ChangeKind::unmerged || c.path == ".")
            return std::nullopt;
        if (c.kind == ChangeKind::deleted && !c.in_worktree)
            continue; // out of the index only: a file still at its path is listed as untracked
        // A file staged only is saved as its bytes too: git staged it through the
        // repository's rules (a CRLF file under text=auto is LF in the index).
        bool tracked = c.kind != ChangeKind::untracked;
        std::filesystem::path file = staged.work_tree() / c.path;
        struct stat st {};
        if (c.gone || (::lstat(file.c_str(), &st) != 0 && errno == ENOENT)) {
            if (tracked)
                gone.push_back(c.path);
            continue;
        }
        if (S_ISLNK(st.st_mode)) {
            links.push_back(c.path); // git's own staging only: its blob is the link's target
            continue;
        }
        if (!S_ISREG(st.st_mode) || !unreadable(file).empty())
            return std::nullopt; // a directory or gitlink; or unreadable: git's add says
        if (tracked && c.mode != "100644" && c.mode != "100755")
            return std::nullopt; // a link or gitlink in the index, a file on disk (core.symlinks)
        // git's mode for it (read-cache.c): the executable bit when core.fileMode trusts
        // it, else the index's mode, 100644 for a new file.
        std::string mode = rules.trust_exec ? ((st.st_mode & S_IXUSR) ? "100755" : "100644")
                                            : (tracked ? c.mode : "100644");
        files.push_back({mode, "", c.path});
    }
    for (const auto* list : {&gone, &links})
        all.insert(all.end(), list->begin(), list->end());
    for (const auto& e : files)
        all.push_back(e.path);
    if (all.empty())
        return index_tree;
    if (!rules.autocrlf && no_attributes(staged, w, all)) {
        // No rule can rewrite these files: git's own staging writes their bytes, with
        // git's modes and links, in one git. The system and global attribute files are
        // off, and an attribute source (git >= 2.40: a caller's GIT_ATTR_SOURCE, attr.tree)
        // is the empty tree.
        std::string input;
        for (const auto& path : all)
            input += path + std::string(1, '\0');
        staged.with_env("GIT_ATTR_NOSYSTEM", "1")
            .with_env("GIT_ATTR_SOURCE", empty_tree_like(index_tree))
            .out({"-c", "core.autocrlf=false", "-c", "core.attributesFile=/dev/null", "update-index", "--add",
                  "--remove", "--replace", "-z", "--stdin"},
                 "record the files' bytes", input);
    } else {
        if (!links.empty())
            return std::nullopt; // git's add stages the links, the files' bytes then replace its blobs
        std::string info; // mode 0 takes a path out of the index
        for (const auto& path : gone)
            info += "0 " + std::string(index_tree.size(), '0') + "\t" + path + std::string(1, '\0');
        auto ids = hash_bytes(staged, files);
        for (size_t i = 0; i < files.size(); ++i)
            info += files[i].mode + " " + ids[i] + "\t" + files[i].path + std::string(1, '\0');
        staged.out({"update-index", "-z", "--index-info"}, "record the files' bytes", info);
    }
    return write_tree(staged, "write the files' bytes");
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
    auto ids = hash_bytes(staged, files);
    std::string info;
    for (size_t i = 0; i < files.size(); ++i)
        // Where no conversion applied (most files), git staged the bytes already: the
        // index is rewritten only when some blob differs.
        if (ids[i] != files[i].id)
            info += files[i].mode + " " + ids[i] + "\t" + files[i].path + std::string(1, '\0');
    if (info.empty())
        return unsaved;
    staged.out({"update-index", "-z", "--index-info"}, "record the files' bytes", info);
    tree = write_tree(staged, "write the files' bytes");
    return unsaved;
}

} // namespace guard
