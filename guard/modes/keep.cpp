// Keeping what a ref transaction would leave on no ref: the hook's saves, bundles and
// refusals. A deletion, a forced move and a detached HEAD moved away are kept alike
// (DESIGN §0.6); only the name, the reason and the message say which it was.
#include "guard/modes/keep.hpp"

#include "guard/git/bounded.hpp"
#include "guard/save/bundles.hpp"
#include "guard/base/clock.hpp"
#include "guard/save/journal.hpp"
#include "guard/save/report.hpp"
#include "guard/save/snapshot.hpp"
#include "guard/modes/transaction.hpp"
#include "guard/judge/work.hpp"
#include "guard/save/saveref.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <map>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace guard {

namespace {

// What a verdict's save is called and why it was made.
struct Subject {
    std::string name;   // stranded/<name>/<stamp>
    std::string reason; // Stranded-Reason
    std::string what;   // for messages: "branch x", "the detached HEAD of <tree>"
    std::string verb;   // what git was about to do: delete, move
};

Subject subject_of(const Deletion& d)
{
    std::string verb = d.new_value.empty() ? "delete" : "move";
    if (d.ref == "HEAD") {
        // git runs the hook in the tree's root (the git dir when bare): the tree's name.
        std::string tree = fs::current_path().filename().string();
        return {tree.empty() ? "HEAD" : tree, "detached HEAD " + verb, "the detached HEAD of " + tree, verb};
    }
    std::string branch = d.ref.substr(11);
    return {branch, d.new_value.empty() ? "branch delete" : "forced move", "branch " + branch, verb};
}

void report_kept(const Subject& s, const Deletion& d, const std::string& ref)
{
    std::string shown = ref.substr(11);
    if (d.new_value.empty() && d.ref != "HEAD")
        std::fprintf(stderr, "git-guard: saved %s to %s (%s)\n", s.what.c_str(), shown.c_str(),
                     restore_hint(ref).c_str());
    else
        std::fprintf(stderr, "git-guard: saved %s at %.12s, which this %s leaves on no ref, to %s (%s)\n",
                     s.what.c_str(), d.old_oid.c_str(), s.verb == "move" ? "move" : "deletion", shown.c_str(),
                     restore_hint(ref).c_str());
}

// The branches and saves that lose commits, bundled in one file under
// <common>/guard/bundles/ instead of saved as refs: a mirror's `fetch --prune` deletes
// every ref its remote lacks, saves included (DESIGN §4.2). The refs still exist in
// `prepared`, so the bundle names them; it holds their whole history, so it restores
// on its own. Returns false after saying why it could not be written.
bool keep_in_bundle(const fs::path& git_dir, const fs::path& common, const std::vector<const BranchVerdict*>& kept)
{
    fs::path dir = common / "guard" / "bundles";
    std::error_code ec;
    fs::create_directories(dir, ec);
    fs::path file = dir / (utc_stamp() + ".bundle");
    for (int n = 2; fs::exists(file, ec); ++n)
        file = dir / (utc_stamp() + "-" + std::to_string(n) + ".bundle");
    std::vector<std::string> args{"bundle", "create", "-q", file.string()};
    for (const auto* v : kept)
        args.push_back(v->deletion.ref);
    auto r = run_git_bounded(git_dir, args, "", Clock::now() + std::chrono::minutes(10));
    auto heads = run_git_bounded(git_dir, {"bundle", "list-heads", file.string()}, "",
                                 Clock::now() + std::chrono::minutes(1));
    for (const auto* v : kept)
        if (!r || r->status != 0 || !heads || heads->out.find(v->deletion.old_oid + " " + v->deletion.ref) == std::string::npos) {
            std::fprintf(stderr, "git-guard: cannot keep %s in %s: git bundle failed%s%s; refusing the update\n",
                         v->deletion.ref.c_str(), file.c_str(), r && !r->err.empty() ? ": " : "",
                         r ? r->err.substr(0, r->err.find('\n')).c_str() : "");
            return false;
        }
    for (const auto* v : kept)
        journal_bundle_save(common, file, v->deletion.ref, v->deletion.old_oid); // a save like any other
    for (const auto* v : kept)
        std::fprintf(stderr, "git-guard: kept %s in %s (recover: git fetch %s %s:%s; %s)\n",
                     v->deletion.ref.c_str(), file.c_str(), shell_quote(file.string()).c_str(),
                     v->deletion.ref.c_str(), v->deletion.ref == "HEAD" ? "refs/heads/recovered" : v->deletion.ref.c_str(),
                     restore_hint(bundle_handle(file, v->deletion.ref)).c_str());
    return true;
}

// Saves one verdict's tip; false after printing the refusal.
bool save_verdict(const fs::path& git_dir, const fs::path& common, const BranchVerdict& v)
{
    Subject s = subject_of(v.deletion);
    try {
        Saved saved = save_existing(git_dir, s.name, v.deletion.old_oid,
                                    {.reason = s.reason, .tree = v.deletion.tree,
                                     .branch = v.deletion.ref == "HEAD" ? "" : s.name});
        report_kept(s, v.deletion, saved.ref);
        return true;
    } catch (const std::exception& e) {
        Work w;
        w.branch = v.deletion.ref == "HEAD" ? "" : s.name;
        w.verdict = Verdict::has_work;
        w.commits = v.commits;
        std::fprintf(stderr, "git-guard: %s", refusal_message(w, e.what(), s.verb).c_str());
        journal_refusal(common, w, e.what(), s.reason);
        return false;
    }
}

// A bulk deletion's saves, counted over the hook's batches of locked refs and told in
// one line when the hook exits (the journal has each; GIT_GUARD_VERBOSE prints each).
struct Bulk {
    size_t count = 0;
    bool deletions_only = true;
    std::string since;
};
Bulk g_bulk;

void print_bulk()
{
    if (g_bulk.count)
        std::fprintf(stderr, "%s", bulk_summary(g_bulk.count, g_bulk.deletions_only ? "deleted branches"
                                                                                  : "branch tips left on no ref",
                                                g_bulk.since).c_str());
    g_bulk.count = 0;
}

void add_to_bulk(size_t count, const std::string& reason, const std::string& since)
{
    if (!g_bulk.count && g_bulk.since.empty()) {
        g_bulk.since = since;
        std::atexit(print_bulk);
    }
    g_bulk.count += count;
    g_bulk.deletions_only = g_bulk.deletions_only && reason == "branch delete";
}

// Saves every verdict of one reason in one transaction (a `branch -D` of hundreds of
// branches costs a few git calls, not a few per branch); one by one, with a refusal each,
// when it cannot.
bool save_batch(const fs::path& git_dir, const fs::path& common, const std::string& reason,
                const std::vector<const BranchVerdict*>& verdicts)
{
    std::string since = utc_millis("%Y-%m-%dT%H:%M:%S").substr(0, 19) + "Z"; // before every save
    std::vector<NamedTip> tips;
    for (const auto* v : verdicts)
        tips.push_back({subject_of(v->deletion).name, v->deletion.old_oid, v->deletion.tree,
                        v->deletion.ref == "HEAD" ? "" : subject_of(v->deletion).name}); // restores as the branch
    std::optional<std::vector<Saved>> saves;
    try {
        saves = save_existing_batch(git_dir, tips, {.reason = reason});
    } catch (const std::exception& e) {
        spdlog::warn("batched save: {}", e.what()); // each tip is saved on its own below
    }
    if (!saves) {
        bool ok = true;
        for (const auto* v : verdicts)
            ok = save_verdict(git_dir, common, *v) && ok;
        return ok;
    }
    if (g_bulk.count || !each_item_reported(saves->size())) { // one line for a bulk deletion
        add_to_bulk(saves->size(), reason, since);
        return true;
    }
    for (size_t i = 0; i < saves->size(); ++i)
        report_kept(subject_of(verdicts[i]->deletion), verdicts[i]->deletion, (*saves)[i].ref);
    return true;
}

// A save ref (or chain) deleted or forced off commits found nowhere else: refused, as
// `git guard drop` is the way to let a save go.
void refuse_save_loss(const fs::path& common, const BranchVerdict& v)
{
    const std::string& ref = v.deletion.ref;
    std::string name = ref.substr(ref.starts_with("refs/heads/") ? 11 : 5);
    std::fprintf(stderr,
                 "git-guard: refusing to %s %s: it holds %zu commit(s) found on no other ref.\n"
                 "  inspect: git show --stat %s\n  let it go: git guard drop %s\n",
                 v.deletion.new_value.empty() ? "delete" : "move", name.c_str(), v.commits.size(),
                 shell_quote(name).c_str(), shell_quote(name).c_str());
    Work w;
    w.branch = name;
    w.commits = v.commits;
    journal_refusal(common, w, "a save holding unique commits; git guard drop lets it go",
                    v.deletion.new_value.empty() ? "branch delete" : "forced move");
}

} // namespace

bool keep_verdicts(const fs::path& git_dir, const fs::path& common, const std::vector<const BranchVerdict*>& verdicts,
                   Bundle bundle)
{
    bool ok = true;
    std::vector<const BranchVerdict*> to_bundle;
    std::map<std::string, std::vector<const BranchVerdict*>> to_save; // by reason
    for (const auto* v : verdicts) {
        if (bundle == Bundle::yes)
            to_bundle.push_back(v);
        else if (is_save_ref(v->deletion.ref)) {
            refuse_save_loss(common, *v);
            ok = false;
        } else
            to_save[subject_of(v->deletion).reason].push_back(v);
    }
    for (const auto& [reason, group] : to_save)
        ok = save_batch(git_dir, common, reason, group) && ok;
    if (!to_bundle.empty())
        ok = keep_in_bundle(git_dir, common, to_bundle) && ok;
    return ok;
}

} // namespace guard
