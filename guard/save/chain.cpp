// Chains: link commits written by git fast-import, moved forward only, read back.
#include "guard/save/chain.hpp"

#include "guard/save/layout.hpp"
#include "guard/base/lock.hpp"
#include "guard/save/saveref.hpp"
#include "guard/save/tree_chains.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <ctime>
#include <map>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr const char* k_in_place = "refs/stranded/";

} // namespace

std::vector<std::vector<std::string>> nul_records(const std::string& out, size_t fields)
{
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> record;
    for (size_t at = 0; at < out.size();) {
        if (record.empty() && out[at] == '\n') {
            ++at;
            continue;
        }
        size_t end = out.find('\0', at);
        if (end == std::string::npos)
            break;
        record.push_back(out.substr(at, end - at));
        at = end + 1;
        if (record.size() == fields)
            records.push_back(std::move(record)), record.clear();
    }
    return records;
}

namespace {

struct Tip {
    std::string oid;    // "" when the chain does not exist yet
    std::string handle; // the newest link's handle (saved or dropped)
    long long time = 0; // its committer time
};

Tip read_tip(const Git& git, const std::string& chain)
{
    RunResult r = git.run({"for-each-ref", "--format=%(refname)%00%(objectname)%00"
                                           "%(trailers:key=Stranded-Save,valueonly,separator=)%00"
                                           "%(trailers:key=Stranded-Drop,valueonly,separator=)%00"
                                           "%(committerdate:unix)%00",
                           chain});
    if (r.status != 0)
        throw Error("cannot read the chain " + chain + ": " + r.err);
    for (const auto& f : nul_records(r.out, 5))
        if (f[0] == chain)
            return {f[1], f[2].empty() ? f[3] : f[2], std::atoll(f[4].c_str())};
    return {};
}

struct SaveMessage {
    std::string text;
    long long time = 0; // committer time
};

// The messages of `commits`, by id, in one git.
std::map<std::string, SaveMessage> messages_of(const Git& git, const std::vector<Link>& links)
{
    std::string ids;
    for (const auto& l : links)
        ids += l.commit + "\n";
    RunResult r = git.run({"log", "--no-walk=unsorted", "--stdin", "--format=%H%x00%ct%x00%B%x00"}, ids);
    if (r.status != 0)
        throw Error("cannot read the saves to append: " + r.err);
    std::map<std::string, SaveMessage> out;
    for (auto& f : nul_records(r.out, 3))
        out[f[0]] = {std::move(f[2]), std::atoll(f[1].c_str())};
    return out;
}

// A link's committer time: its save's (never past now), never older than the link below.
// A walk by date (git before 2.40 keeps its queue as a list sorted by date) then meets
// each save beside its link; links of one fold all stamped "now" made `log --all` over
// 20,000 folded saves quadratic. Never older than below: the chain's dates only grow.
long long link_time(long long below, const SaveMessage* save, long long now)
{
    return std::max(below, save ? std::min(save->time, now) : now);
}

// A link's message: the save's own facts (its body and trailers, when git-guard made it),
// so a listing reads every save from its chain alone, then the handle.
std::string link_message(const std::string& handle, const std::string& save_message, const char* key)
{
    std::string text = "stranded chain: " + handle + "\n\n";
    auto body = save_message.find("\n\n");
    if (key[0] == 'S' && save_message.find("\nStranded-Head: ") != std::string::npos && body != std::string::npos) {
        std::string facts = save_message.substr(body + 2);
        while (!facts.empty() && facts.back() == '\n')
            facts.pop_back();
        text += facts + "\n";
    }
    return text + "Stranded-" + key + ": " + handle + "\n";
}

void add_commit(std::string& stream, const std::string& chain, int mark, const std::string& message,
                const std::string& from, long long when)
{
    Identity id;
    stream += "commit " + chain + "\nmark :" + std::to_string(mark) + "\ncommitter " + id.name + " <" +
              id.email + "> " + std::to_string(when) + " +0000\ndata " +
              std::to_string(message.size()) + "\n" + message + "\n";
    if (!from.empty())
        stream += "from " + from + "\n";
}

// The links above `old` on `chain`, read back newest first: (first parent, second parent, handle).
std::vector<std::vector<std::string>> new_links(const Git& git, const std::string& chain, const std::string& old)
{
    std::vector<std::string> args = {"log", "--first-parent", "--format=%H%x00%P%x00"
                                                              "%(trailers:key=Stranded-Save,valueonly,separator=)%x00"
                                                              "%(trailers:key=Stranded-Drop,valueonly,separator=)%x00",
                                     chain};
    if (!old.empty())
        args.push_back("^" + old);
    RunResult r = git.run(args);
    if (r.status != 0)
        throw Error("cannot read back the chain " + chain + ": " + r.err);
    return nul_records(r.out, 4);
}

// Returns the chain's tip as read back (the chain's lock is held: no one moved it since).
std::string check_links(const Git& git, const std::string& chain, const std::string& old, const std::vector<Link>& links)
{
    auto read = new_links(git, chain, old);
    size_t root = old.empty() ? 1 : 0;
    if (read.size() != links.size() + root || (root && !read.back()[1].empty()))
        throw Error("verification failed: " + chain + " does not hold the " + std::to_string(links.size()) +
                    " link(s) just appended");
    for (size_t i = 0; i < links.size(); ++i) {
        const auto& f = read[links.size() - 1 - i];
        auto parents = split(f[1], ' ');
        bool drop = links[i].commit.empty();
        bool ok = drop ? parents.size() == 1 && f[3] == links[i].handle
                       : parents.size() == 2 && parents[1] == links[i].commit && f[2] == links[i].handle;
        std::string below = i == 0 && !old.empty() ? old : read[links.size() - i][0];
        if (!ok || parents[0] != below)
            throw Error("verification failed: " + chain + " does not reach the save " + links[i].handle);
    }
    return read.empty() ? old : read.front()[0];
}

} // namespace

std::string tree_chain(const std::string& name)
{
    std::string part = ref_component(name);
    return std::string(k_chain_prefix) + "tree/" + (part.empty() ? "tree" : part);
}

std::string chain_of_handle(const std::string& handle)
{
    if (!handle.starts_with(k_in_place))
        return k_archive_chain;
    std::string rest = handle.substr(std::string(k_in_place).size());
    return tree_chain(rest.substr(0, rest.rfind('/')));
}

std::string chain_lock_key(const std::string& chain) { return "chain:" + chain; }

bool is_chain_ref(const std::string& ref)
{
    return ref == k_archive_chain || ref.starts_with(std::string(k_chain_prefix) + "tree/");
}

std::string append_links(const Git& git, const std::string& chain, const std::vector<Link>& links)
{
    Tip tip = read_tip(git, chain);
    auto messages = messages_of(git, links);
    std::string stream;
    int mark = 0;
    long long now = static_cast<long long>(std::time(nullptr));
    auto save_of = [&](const Link& l) { return l.commit.empty() ? nullptr : &messages[l.commit]; };
    long long when = tip.oid.empty() && !links.empty() ? link_time(0, save_of(links.front()), now) : tip.time;
    if (tip.oid.empty())
        add_commit(stream, chain, ++mark, "stranded chain: " + chain + "\n\nStranded-Chain: " + chain + "\n", "",
                   when);
    for (const auto& l : links) {
        bool drop = l.commit.empty();
        std::string from = mark == 0 ? tip.oid : std::string(":").append(std::to_string(mark)); // appended: g++ 12 warns falsely on ":" + …
        when = link_time(when, save_of(l), now);
        add_commit(stream, chain, ++mark,
                   link_message(l.handle, drop ? "" : messages[l.commit].text, drop ? "Drop" : "Save"), from, when);
        if (!drop)
            stream += "merge " + l.commit + "\n";
    }
    std::vector<std::string> args = hooks_off(git);
    // fast-import moves the ref only when its old value is an ancestor of the new one:
    // forward only, by git's own check, and none of our hooks runs.
    args.insert(args.end(), {"fast-import", "--quiet"});
    RunResult r = git.run(args, stream + "done\n");
    if (r.status != 0)
        throw Error("cannot append to the chain " + chain + ": git fast-import: " + first_line_of(r.err));
    return check_links(git, chain, tip.oid, links);
}

Saved append_save(const fs::path& common, const std::string& name, const std::string& commit,
                  std::chrono::seconds lock_timeout)
{
    Git git(common);
    std::string chain = tree_chain(name);
    std::string handle = stranded_ref_name(name, "refs/stranded");
    bool new_chain = false;
    {
        PathLock lock(common, chain_lock_key(chain), lock_timeout);
        Tip tip = read_tip(git, chain);
        new_chain = tip.oid.empty();
        std::string base = handle;
        const std::string& newest = tip.handle;
        if (newest == base || newest.starts_with(base + "-"))
            handle = base + "-" +
                     std::to_string(newest == base ? 2 : std::atoi(newest.c_str() + base.size() + 1) + 1);
        append_links(git, chain, {{handle, commit}});
    }
    // Only a save that made a chain can take the tree chains past guard.keepBranches: every
    // other save costs nothing more.
    if (new_chain)
        bound_tree_chains(common);
    Saved s;
    s.ref = handle;
    s.commit = commit;
    s.tree = first_line_of(git.out({"rev-parse", "--verify", commit + "^{tree}"}, "read back the save " + handle));
    s.base = commit;
    return s;
}

void verify_link(const Git& git, const Saved& s)
{
    std::string chain = chain_of_handle(s.ref);
    RunResult r = git.run({"log", "--first-parent", "-n", "64", "--format=%P%x00%(trailers:key=Stranded-Save,valueonly,separator=)%x00", chain});
    for (const auto& f : nul_records(r.out, 2)) {
        auto parents = split(f[0], ' ');
        if (f[1] != s.ref || parents.size() != 2)
            continue;
        RunResult tree = git.run({"rev-parse", "--verify", parents[1] + "^{tree}"});
        if (parents[1] == s.commit && first_line_of(tree.out) == s.tree)
            return;
    }
    throw Error("verification failed: " + chain + " does not hold the save " + s.ref + " at " + s.commit);
}

void drop_link(const fs::path& common, const std::string& chain, const std::string& handle,
               std::chrono::seconds lock_timeout)
{
    PathLock lock(common, chain_lock_key(chain), lock_timeout);
    append_links(Git(common), chain, {{handle, ""}});
}

} // namespace guard
