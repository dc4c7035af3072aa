// Finding and removing saves that name missing objects. Only git is asked: for-each-ref
// with %(objectname) reads no object, so it lists even the refs that break every other
// format; cat-file --batch-check then says which of them are gone.
#include "guard/save/repair.hpp"

#include "guard/base/error.hpp"
#include "guard/git/git.hpp"
#include "guard/judge/work.hpp"
#include "guard/save/journal.hpp"
#include "guard/save/saveref.hpp"

#include <spdlog/spdlog.h>

#include <set>

namespace fs = std::filesystem;

namespace guard {

std::vector<BrokenSave> broken_saves(const fs::path& common, const std::vector<std::string>& refs)
{
    Git git(common);
    std::vector<std::string> args{"for-each-ref", "--format=%(objectname) %(refname)"};
    if (refs.empty()) {
        args.push_back("refs/heads/stranded/");
        args.push_back("refs/stranded/");
    } else {
        args.insert(args.end(), refs.begin(), refs.end());
    }
    std::vector<BrokenSave> all;
    for (const auto& line : split(git.out(args, "list the saves' ids"), '\n'))
        if (auto sp = line.find(' '); sp != std::string::npos)
            all.push_back({line.substr(sp + 1), line.substr(0, sp)});
    if (all.empty())
        return {};
    std::string input;
    for (const auto& s : all)
        input += s.oid + "\n" + s.oid + "^{tree}\n";
    // --batch-check answers every line, "<name> missing" for what is not there.
    RunResult r = git.run({"cat-file", "--batch-check=%(objectname)"}, input);
    std::set<std::string> missing;
    for (const auto& line : split(r.out, '\n'))
        if (line.ends_with(" missing"))
            missing.insert(line.substr(0, line.find_first_of("^ ")));
    if (r.status != 0)
        throw Error("cannot check the saves' objects: " + r.err);
    std::vector<BrokenSave> out;
    for (const auto& s : all)
        if (missing.count(s.oid))
            out.push_back(s);
    return out;
}

std::vector<std::string> save_ref_names(const fs::path& common)
{
    return split(Git(common).out({"for-each-ref", "--format=%(refname)", "refs/heads/stranded/", "refs/stranded/"},
                                 "list the saves' names"),
                 '\n');
}

size_t remove_broken(const fs::path& common, const std::vector<BrokenSave>& broken, const std::string& reason)
{
    Git git(common);
    size_t removed = 0;
    for (const auto& b : broken) {
        std::vector<std::string> args = hooks_off(git);
        args.insert(args.end(), {"update-ref", "--no-deref", "-d", b.ref, b.oid});
        RunResult r = git.run(args);
        if (r.status != 0) {
            spdlog::error("cannot remove the broken save {}: {}", b.ref, r.err);
            continue;
        }
        ++removed;
        spdlog::error("removed the save {}: its commit {} was pruned before it could be kept (lost)", b.ref, b.oid);
        Work w;
        w.commits = {b.oid};
        journal_refusal(common, w, "the save " + b.ref + " named " + b.oid + ", pruned before it was kept: lost",
                        reason);
    }
    return removed;
}

} // namespace guard
