// What a linked tree's HEAD reflog still names (head_reflog.hpp).
#include "guard/judge/head_reflog.hpp"

#include "guard/base/error.hpp"
#include "guard/git/git.hpp"

#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

bool is_null_id(const std::string& id) { return id.find_first_not_of('0') == std::string::npos; }

} // namespace

std::vector<std::string> head_reflog(const Worktree& tree)
{
    std::vector<std::string> ids;
    if (tree.is_main)
        return ids;
    std::error_code ec;
    fs::path log = tree.git_dir / "logs" / "HEAD";
    std::string text;
    if (fs::exists(log, ec)) {
        // "<old> <new> <ident> <time> <zone>\t<message>" a line: the files backend's reflog.
        std::ifstream in(log);
        for (std::string line; std::getline(in, line);) {
            std::istringstream words(line);
            std::string old_id, new_id;
            words >> old_id >> new_id;
            for (const auto& id : {old_id, new_id})
                if (is_oid(id) && !is_null_id(id))
                    ids.push_back(id);
        }
        return ids;
    }
    if (!fs::exists(common_of(tree.git_dir) / "reftable", ec))
        return ids; // no reflog (core.logAllRefUpdates off): nothing names anything
    RunResult r = Git(tree.git_dir).run({"reflog", "show", "--format=%H", "HEAD"});
    if (r.status != 0 && !r.err.empty() && r.err.find("unknown revision") == std::string::npos)
        throw Error("read the HEAD reflog of " + tree.path.string() + ": " + r.err);
    for (const auto& id : split(r.out, '\n'))
        if (is_oid(id))
            ids.insert(ids.begin(), id);
    return ids;
}

std::vector<std::string> reflog_tips(const std::vector<std::string>& logged, const std::string& head,
                                     const std::map<std::string, std::vector<std::string>>& unique)
{
    std::set<std::string> reached; // commits some tip other than their own reaches
    auto mark = [&](const std::string& tip) {
        if (auto it = unique.find(tip); it != unique.end())
            for (const auto& c : it->second)
                if (c != tip)
                    reached.insert(c);
    };
    if (!head.empty())
        mark(head), reached.insert(head);
    std::set<std::string> distinct(logged.begin(), logged.end());
    for (const auto& tip : distinct)
        mark(tip);
    std::vector<std::string> tips;
    for (const auto& tip : distinct) {
        auto it = unique.find(tip);
        if (it != unique.end() && !it->second.empty() && !reached.count(tip))
            tips.push_back(tip);
    }
    return tips;
}

} // namespace guard
