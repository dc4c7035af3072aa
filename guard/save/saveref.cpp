// The ref of a save: its name (`<prefix>/<name>/<stamp>`), its creation with "must not
// exist" semantics and no hook (DESIGN §5.4, §5.5); its read-back is read_back.cpp.
#include "guard/save/saveref.hpp"

#include "guard/base/clock.hpp"
#include "guard/save/fold.hpp"
#include "guard/save/journal.hpp"
#include "guard/git/repo.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <ctime>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr int k_max_suffix = 20;

// `name` with its first component that is itself a ref (a plain branch
// `stranded/<tree>` blocks every `stranded/<tree>/<stamp>`) suffixed -2, -3, ….
std::string unblocked_name(const Git& git, const std::string& name, const std::string& prefix)
{
    std::vector<std::string> parts = split(name, '/');
    std::string done;
    for (size_t i = 0; i < parts.size(); ++i) {
        std::string part = ref_component(parts[i]);
        if (part.empty())
            continue;
        std::string candidate = part;
        for (int n = 2; n <= k_max_suffix; ++n) {
            std::string ref = prefix + "/" + done + candidate;
            if (git.run({"rev-parse", "-q", "--verify", ref}).status != 0)
                break;
            candidate = part + "-" + std::to_string(n);
        }
        done += candidate + "/";
    }
    return done.empty() ? name : done.substr(0, done.size() - 1);
}

} // namespace

// `-c hook.<x>.enabled=false` for the reference-transaction event and every
// configured hook (git >= 2.54); core.hooksPath=/dev/null is set on every call.
std::vector<std::string> hooks_off(const Git& git)
{
    std::vector<std::string> args = {"-c", "hook.reference-transaction.enabled=false"};
    for (const auto& [key, value] : guard_config(git.git_dir()))
        if (key.starts_with("hook.") && key.ends_with(".command") && key.size() > 13)
            args.insert(args.end(), {"-c", key.substr(0, key.size() - 8) + ".enabled=false"});
    return args;
}

namespace {

// The ref writer of saves: no hooks, and no reflog (a save's one entry would say nothing the
// ref does not, and goes with the ref; a bulk deletion would make a log file and its
// directories for each of hundreds of saves).
std::vector<std::string> save_writer(const Git& git)
{
    std::vector<std::string> args = hooks_off(git);
    args.insert(args.end(), {"-c", "core.logAllRefUpdates=false", "update-ref", "-m", "git-guard: save", "--stdin"});
    return args;
}

} // namespace

// A save is a ref, readable with plain git, until guard.keepBranches newer ones of its
// kind exist: then it is folded onto a chain (fold.cpp), so the refs stay few.
std::string create_save(const Git& git, const std::string& name, const std::string& commit,
                        const std::string& prefix, std::optional<std::size_t> saves_before)
{
    std::string ref = create_ref(git, name, commit, prefix);
    fold_beyond_keep(git.common(), saves_before);
    return ref;
}

// Creates the ref with "must not exist" semantics and no hooks.
std::string create_ref(const Git& git, const std::string& name, const std::string& commit,
                       const std::string& prefix)
{
    std::vector<std::string> args = save_writer(git);
    // Usually the name is free: one git. Only a failure looks for what blocks it.
    std::string plain = stranded_ref_name(name, prefix);
    if (git.run(args, "create " + plain + " " + commit + "\n").status == 0)
        return plain;
    std::string base = stranded_ref_name(unblocked_name(git, name, prefix), prefix);
    std::string last;
    for (int n = 1; n <= k_max_suffix; ++n) {
        std::string ref = n == 1 ? base : base + "-" + std::to_string(n);
        RunResult r = git.run(args, "create " + ref + " " + commit + "\n");
        if (r.status == 0)
            return ref;
        last = r.err;
        if (git.run({"rev-parse", "-q", "--verify", ref}).status != 0 && last.find("exists") == std::string::npos)
            break; // not taken: writing itself failed
    }
    while (!last.empty() && last.back() == '\n')
        last.pop_back();
    throw Error("cannot create a save ref: " + base + " and its -2 ... -" + std::to_string(k_max_suffix) +
                " variants are all taken, or writing failed (" + last + "); nothing was written");
}

std::string ref_component(std::string c)
{
    for (size_t i = 0; i < c.size(); ++i) {
        auto b = static_cast<unsigned char>(c[i]);
        bool bad = b < 0x20 || b == 0x7f || std::string_view(" ~^:?*[\\").find(c[i]) != std::string_view::npos;
        bool dots = i > 0 && c[i] == '.' && c[i - 1] == '.';
        bool at_brace = c[i] == '{' && i > 0 && c[i - 1] == '@';
        if (bad || dots || at_brace)
            c[i] = '-';
    }
    if (!c.empty() && c.front() == '.')
        c.front() = '-';
    if (c.ends_with(".lock"))
        c.replace(c.size() - 5, 1, "-");
    if (!c.empty() && c.back() == '.')
        c.back() = '-';
    if (c == "@")
        c = "-";
    return c;
}

std::string stranded_ref_name(const std::string& name, const std::string& prefix)
{
    std::string ref = prefix;
    size_t start = 0;
    bool any = false;
    while (start <= name.size()) {
        size_t end = name.find('/', start);
        if (end == std::string::npos)
            end = name.size();
        std::string part = ref_component(name.substr(start, end - start));
        if (!part.empty()) {
            ref += "/" + part;
            any = true;
        }
        start = end + 1;
    }
    if (!any)
        ref += "/tree";
    return ref + "/" + ref_component(utc_stamp());
}

std::string short_ref(const std::string& ref)
{
    return ref.starts_with("refs/heads/") ? ref.substr(11) : ref;
}

// A new save ref at `commit`, read back; the caller journals it.
Saved point_at(const fs::path& git_dir, const std::string& name, const std::string& commit,
               const SaveOptions& options)
{
    Git git(common_of(git_dir));
    Saved s;
    s.commit = commit;
    if (options.tree.empty()) {
        RunResult tree = git.run({"rev-parse", "--verify", "-q", commit + "^{tree}"});
        if (tree.status != 0)
            throw Error("cannot save " + name + ": commit " + commit + " cannot be read");
        s.tree = first_line_of(tree.out);
    } else {
        s.tree = options.tree; // the caller wrote it: verify() still reads it back from the ref
    }
    s.base = commit;
    s.ref = create_save(git, name, commit, options.ref_prefix, options.saves_of_kind);
    verify(git, s);
    s.diffstat = "no new commit: the save holds " + commit.substr(0, 12);
    spdlog::info("saved {} at {} ({})", s.ref, commit, options.reason);
    return s;
}

Saved save_existing(const fs::path& git_dir, const std::string& name, const std::string& commit,
                    const SaveOptions& options)
{
    Saved s = point_at(git_dir, name, commit, options);
    JournalEvent event = tip_save_event(s.ref, commit, name, options.reason);
    if (!options.path.empty() || !options.branch.empty()) {
        // Said by the caller, not guessed from the reason: a branch's save (no path)
        // restores as that branch.
        event.path = options.path;
        event.branch = options.branch;
    }
    journal_record(common_of(git_dir), event);
    return s;
}

namespace {

// The whole batch in one transaction, read back whole (`saves_now`: read_back_all's
// count); nothing when any step before the write fails.
std::optional<std::vector<Saved>> point_all_at(const Git& git, const std::vector<NamedTip>& tips,
                                               const std::string& prefix, std::size_t& saves_now)
{
    std::string creates;
    std::vector<Saved> saves;
    for (const auto& tip : tips) {
        Saved s;
        s.commit = s.base = tip.commit;
        s.tree = tip.tree; // "" when unread: the read-back reads it from the save itself
        s.ref = stranded_ref_name(tip.name, prefix);
        creates += "create " + s.ref + " " + tip.commit + "\n";
        saves.push_back(s);
    }
    if (git.run(save_writer(git), "start\n" + creates + "commit\n").status != 0)
        return std::nullopt; // nothing was written: the transaction is all or nothing
    saves_now = read_back_all(git, saves);
    return saves;
}

} // namespace

std::optional<std::vector<Saved>> save_existing_batch(const fs::path& git_dir, const std::vector<NamedTip>& tips,
                                                      const SaveOptions& options)
{
    fs::path common = common_of(git_dir);
    std::size_t saves_now = 0;
    auto saves = tips.empty() ? std::nullopt : point_all_at(Git(common), tips, options.ref_prefix, saves_now);
    if (!saves)
        return std::nullopt;
    for (size_t i = 0; i < saves->size(); ++i) {
        Saved& s = (*saves)[i];
        s.diffstat = "no new commit: the save holds " + s.commit.substr(0, 12);
        spdlog::info("saved {} at {} ({})", s.ref, s.commit, options.reason);
        JournalEvent event = tip_save_event(s.ref, s.commit, tips[i].name, options.reason);
        if (!tips[i].branch.empty()) { // said by the caller: restores as that branch
            event.path = "";
            event.branch = tips[i].branch;
        }
        journal_record(common, event);
    }
    fold_beyond_keep(common, saves_now - 1); // the read-back counted the saves: no listing unless due
    return saves;
}

} // namespace guard
