#pragma once

// read_bytes and write_bytes, declared here before base/file.hpp held them: the install
// and watcher code that reads and writes the files a manifest names still finds them here.
#include "guard/base/file.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace guard {

// Whether anything, even a dangling symlink, is at `path`.
bool exists_at_all(const std::filesystem::path& path);

// One line of the manifest: its kind, then its fields.
using Record = std::vector<std::string>;

// Everything install changed, one action per line: `hook P` (we wrote P, nothing was
// there), `chain P` (the previous P is P.guard-chained), `dir D` (created), `exclude
// present|absent`, `config KEY set|absent OLD`, `config-add KEY VALUE` (one value of a
// multi-valued key), `lock TREE`, `shim LINK`, `registry FILE`, `repo COMMON` (whose it is).
// The bytes it replaced are kept beside it in `backup/`.
class Manifest {
  public:
    // `<common>/guard/manifest` for the common git dir `common`.
    static std::filesystem::path file(const std::filesystem::path& common);

    // `<common>/guard/backup/<name>`, where the bytes install replaced are kept.
    static std::filesystem::path backup(const std::filesystem::path& common, const char* name);

    // Reads the manifest of `common`; false when there is none. A manifest whose `repo`
    // record names another common dir was copied (or moved) here: its paths inside that
    // repository are read as the same paths inside this one, and origin() names it.
    bool load(const std::filesystem::path& common);

    // The common dir the manifest was written for, when that is not this one; else empty.
    const std::filesystem::path& origin() const { return m_origin; }

    // Records `common` as the repository the manifest is for (`repo`, the first record).
    void set_repo(const std::filesystem::path& common);

    // Whether `path` lies in the repository this manifest was loaded for (its common dir, or
    // the directory holding a `.git` common dir).
    bool is_here(const std::filesystem::path& path) const;

    // Replaces the manifest of `common` with every record added so far.
    void save(const std::filesystem::path& common) const;

    void add(Record record);

    // The first record of `kind` whose first field is `first` (any, when `first` is empty).
    std::optional<Record> find(const std::string& kind, const std::string& first = "") const;

    const std::vector<Record>& records() const { return m_records; }

  private:
    void relocate(const std::filesystem::path& common);

    std::vector<Record> m_records;
    std::filesystem::path m_origin;
    std::filesystem::path m_base;
};

// Keeps `common`'s config bytes from before the first install (`first`); on a later
// install, drops them when the config changed since the last one.
void snapshot_config(const std::filesystem::path& common, bool first);

// Keeps the config bytes install leaves, to tell at uninstall whether anyone changed them.
void keep_installed_config(const std::filesystem::path& common);

// Puts back the config bytes from before the first install; false, touching nothing,
// when they are gone or the config changed after install.
bool restore_config_bytes(const std::filesystem::path& common);

// Puts info/exclude back as the `exclude` record `record` says it was.
void restore_exclude(const std::filesystem::path& common, const Record& record);

// `~/.local/share/git-guard/repos`: the common dir of every guarded repository, one a
// line, so uninstall can ask the other manifests whether they still name a shared shim link.
std::filesystem::path registry_file();

// The repositories listed in the registry `file`; none when it is missing.
std::vector<std::string> read_registry(const std::filesystem::path& file);

// Replaces the registry `file` with `repos`.
void write_registry(const std::filesystem::path& file, const std::vector<std::string>& repos);

} // namespace guard
