// The install manifest, `<common>/guard/manifest`, and the bytes it keeps in
// `<common>/guard/backup/`. Every change install makes is recorded here before it is made,
// so uninstall can put back each byte even after an install that stopped half way.
#include "guard/base/manifest.hpp"

#include "guard/base/error.hpp"
#include "guard/base/file.hpp"

#include <cstdlib>
#include <sstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

std::string escape(const std::string& field)
{
    std::string out;
    for (char c : field)
        out += c == '\\' ? "\\\\" : c == '\t' ? "\\t" : c == '\n' ? "\\n" : std::string(1, c);
    return out;
}

Record unescape_line(const std::string& line)
{
    Record fields(1);
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\t')
            fields.emplace_back();
        else if (line[i] == '\\' && i + 1 < line.size())
            fields.back() += line[++i] == 't' ? '\t' : line[i] == 'n' ? '\n' : line[i];
        else
            fields.back() += line[i];
    }
    return fields;
}

} // namespace

bool exists_at_all(const fs::path& path)
{
    std::error_code ec;
    return fs::symlink_status(path, ec).type() != fs::file_type::not_found;
}

fs::path Manifest::file(const fs::path& common)
{
    return common / "guard" / "manifest";
}

fs::path Manifest::backup(const fs::path& common, const char* name)
{
    return common / "guard" / "backup" / name;
}

bool Manifest::load(const fs::path& common)
{
    auto text = read_bytes(file(common));
    if (!text)
        return false;
    std::istringstream in(*text);
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#')
            m_records.push_back(unescape_line(line));
    relocate(common);
    return true;
}

namespace {

// What a repository's paths start with: the directory holding `.git`, or a bare common dir.
fs::path base_of(const fs::path& common)
{
    return common.filename() == ".git" ? common.parent_path() : common;
}

bool under(const std::string& path, const std::string& base)
{
    return path == base || (path.starts_with(base) && path[base.size()] == '/');
}

} // namespace

void Manifest::relocate(const fs::path& common)
{
    m_base = base_of(common.lexically_normal());
    auto repo = find("repo");
    if (!repo || repo->size() < 2 || fs::path((*repo)[1]).lexically_normal() == common.lexically_normal())
        return;
    m_origin = (*repo)[1];
    std::string old_base = base_of(m_origin.lexically_normal()).string();
    for (auto& record : m_records)
        for (size_t i = 1; i < record.size() && record[0] != "repo"; ++i)
            if (under(record[i], old_base))
                record[i] = m_base.string() + record[i].substr(old_base.size());
    set_repo(common);
}

void Manifest::set_repo(const fs::path& common)
{
    std::erase_if(m_records, [](const Record& r) { return r[0] == "repo"; });
    m_records.insert(m_records.begin(), Record{"repo", common.lexically_normal().string()});
}

bool Manifest::is_here(const fs::path& path) const
{
    return under(path.lexically_normal().string(), m_base.string());
}

void Manifest::save(const fs::path& common) const
{
    std::string text = "# git-guard install manifest 1: what 'git guard uninstall' restores\n";
    for (const auto& record : m_records) {
        for (size_t i = 0; i < record.size(); ++i) {
            if (i)
                text += '\t';
            text += escape(record[i]);
        }
        text += '\n';
    }
    fs::create_directories(common / "guard");
    write_bytes(file(common), text, fs::perms(0644));
}

void Manifest::add(Record record)
{
    m_records.push_back(std::move(record));
}

std::optional<Record> Manifest::find(const std::string& kind, const std::string& first) const
{
    for (const auto& r : m_records)
        if (r[0] == kind && (first.empty() || (r.size() > 1 && r[1] == first)))
            return r;
    return std::nullopt;
}

// Keeps the config bytes from before the first install while nothing else touched the
// file; once someone else did, uninstall falls back to restoring key by key.
void snapshot_config(const fs::path& common, bool first)
{
    fs::create_directories(common / "guard" / "backup");
    auto now = read_bytes(common / "config").value_or("");
    if (first)
        write_bytes(Manifest::backup(common, "config.before"), now, fs::perms(0600));
    else if (read_bytes(Manifest::backup(common, "config.after")) != now)
        fs::remove(Manifest::backup(common, "config.before"));
}

void keep_installed_config(const fs::path& common)
{
    write_bytes(Manifest::backup(common, "config.after"),
                read_bytes(common / "config").value_or(""), fs::perms(0600));
}

bool restore_config_bytes(const fs::path& common)
{
    auto before = read_bytes(Manifest::backup(common, "config.before"));
    auto now = read_bytes(common / "config");
    if (!before || now != read_bytes(Manifest::backup(common, "config.after")))
        return false;
    write_bytes(common / "config", *before);
    return true;
}

void restore_exclude(const fs::path& common, const Record& record)
{
    fs::path exclude = common / "info" / "exclude";
    if (record[1] == "present")
        write_bytes(exclude, read_bytes(Manifest::backup(common, "exclude.before")).value_or(""));
    else
        fs::remove(exclude);
}

fs::path registry_file()
{
    const char* home = std::getenv("HOME");
    return fs::path(home ? home : "/") / ".local/share/git-guard/repos";
}

std::vector<std::string> read_registry(const fs::path& file)
{
    std::vector<std::string> lines;
    std::istringstream in(read_bytes(file).value_or(""));
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            lines.push_back(line);
    return lines;
}

void write_registry(const fs::path& file, const std::vector<std::string>& repos)
{
    std::string text;
    for (const auto& repo : repos)
        text += repo + "\n";
    fs::create_directories(file.parent_path());
    write_bytes(file, text, fs::perms(0644));
}

} // namespace guard
