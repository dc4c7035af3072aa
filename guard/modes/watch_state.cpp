// The watcher's record of a repository, kept in the repository (DESIGN §15: a restarted
// watcher judges what changed while it was away): `<common>/guard/watch/tips`.
#include "guard/modes/watch_repo.hpp"

#include "guard/base/file.hpp"
#include "guard/git/git.hpp"
#include "guard/modes/watch_lost.hpp"

#include <spdlog/spdlog.h>

#include <fstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

// The state file: records of six NUL-terminated fields (paths may hold any byte but NUL),
// `tip oid ref` or `tree id head branch_ref path git_dir`, written whole and renamed.
constexpr size_t k_fields = 6;

std::vector<std::string> read_state(const fs::path& common)
{
    std::ifstream in(repo_watch_dir(common) / "tips", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto fields = split(text);
    fields.resize(fields.size() - fields.size() % k_fields);
    return fields;
}

} // namespace

std::vector<std::pair<std::string, std::string>> known_tips(const fs::path& common)
{
    auto f = read_state(common);
    std::vector<std::pair<std::string, std::string>> out;
    for (size_t i = 0; i < f.size(); i += k_fields)
        if (f[i] == "tip")
            out.emplace_back(f[i + 1], f[i + 2]);
        else if (f[i] == "tree" && f[i + 3].empty() && !f[i + 2].empty())
            out.emplace_back(f[i + 2], f[i + 4]);
    return out;
}

// What the last watcher knew: this one then saves what vanished while none ran.
void RepoWatch::load()
{
    auto f = read_state(m_common);
    for (size_t i = 0; i < f.size(); i += k_fields) {
        if (f[i] == "tip")
            m_tips[f[i + 2]] = f[i + 1];
        else if (f[i] == "tree")
            m_trees[f[i + 1]] = {f[i + 4], f[i + 5], f[i + 2], f[i + 3], ""};
    }
    m_learned = !f.empty();
}

void RepoWatch::store() const
{
    std::string text;
    auto add = [&](std::initializer_list<std::string> fields) {
        for (const auto& field : fields)
            text += field + '\0';
    };
    // A save that failed is known still: the sweep and a restarted watcher try it again.
    for (const auto& [key, p] : m_pending)
        if (!p.lost.ref.empty())
            add({"tip", p.lost.oid, p.lost.ref, "", "", ""});
        else if (p.lost.gone)
            add({"tree", p.lost.id, p.lost.tree.head, p.lost.tree.branch_ref, p.lost.tree.path.string(),
                 p.lost.tree.git_dir.string()});
    for (const auto& [ref, oid] : m_tips)
        add({"tip", oid, ref, "", "", ""});
    for (const auto& [id, t] : m_trees)
        add({"tree", id, t.head, t.branch_ref, t.path.string(), t.git_dir.string()});
    std::error_code ec;
    if (!make_watch_dir(m_common))
        return;
    fs::path file = repo_watch_dir(m_common) / "tips";
    if (read_bytes(file).value_or("") == text)
        return;
    fs::path tmp = file.string() + ".tmp";
    bool written = false;
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.close();
        written = !out.fail();
    }
    // A short write (a full disk) never replaces the record the sweep relies on.
    if (written)
        fs::rename(tmp, file, ec);
    if (!written || ec) {
        spdlog::warn("watch: cannot record the tips of {}: {}", m_common.string(),
                     written ? ec.message() : std::string("writing failed (is the disk full?)"));
        fs::remove(tmp, ec);
    }
}

} // namespace guard
