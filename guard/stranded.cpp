#include "guard/stranded.hpp"

#include "guard/repo.hpp"

#include <spdlog/spdlog.h>

namespace fs = std::filesystem;

namespace guard {

namespace {

std::string trailer(const std::string& message, const std::string& key)
{
    auto at = message.find("\n" + key + ": ");
    if (at == std::string::npos)
        return "";
    at += key.size() + 3;
    return message.substr(at, message.find('\n', at) - at);
}

std::string full_name(const std::string& name)
{
    std::string ref = name.starts_with("refs/heads/") ? name : "refs/heads/" + name;
    if (!ref.starts_with("refs/heads/stranded/"))
        throw Error("'" + name + "' is not a stranded branch (they live under stranded/)");
    return ref;
}

} // namespace

std::vector<Stranded> list_stranded(const fs::path& start)
{
    Repository repo = open_repository(start);
    std::vector<std::string> refs;
    git_reference_foreach_glob(
        repo.get(), "refs/heads/stranded/*",
        [](const char* name, void* payload) {
            static_cast<std::vector<std::string>*>(payload)->emplace_back(name);
            return 0;
        },
        &refs);
    std::vector<Stranded> out;
    for (const auto& ref : refs) {
        git_oid oid;
        git_commit* raw = nullptr;
        if (git_reference_name_to_id(&oid, repo.get(), ref.c_str()) < 0 ||
            git_commit_lookup(&raw, repo.get(), &oid) < 0) {
            git_error_clear();
            continue;
        }
        Commit commit(raw);
        std::string message = git_commit_message(raw);
        out.push_back({ref.substr(11), to_hex(oid), trailer(message, "Stranded-From"),
                       trailer(message, "Stranded-Branch"), trailer(message, "Stranded-Reason"),
                       static_cast<long long>(git_commit_time(raw))});
    }
    return out;
}

void drop_stranded(const fs::path& start, const std::string& name)
{
    Repository repo = open_repository(start);
    std::string ref = full_name(name);
    git_reference* raw = nullptr;
    check(git_reference_lookup(&raw, repo.get(), ref.c_str()), "no stranded branch '" + name + "'");
    Reference owned(raw);
    std::string was = to_hex(*git_reference_target(raw));
    // Deleted through libgit2, which runs no hook: this is the one sanctioned way.
    check(git_reference_delete(raw), "delete " + ref);
    spdlog::warn("dropped {} (was {})", ref, was);
}

} // namespace guard
