// What a guarded repository serves of its saves, and what doctor says about the saves.
// The config is git's own (`git config`), read in the order git reads it.
#include "guard/install/privacy.hpp"

#include "guard/install/install.hpp"
#include "guard/git/process.hpp"
#include "guard/save/stranded.hpp"

#include <algorithm>
#include <sstream>

namespace fs = std::filesystem;

namespace guard {

namespace {

constexpr const char* k_key = "uploadpack.hideRefs";

// The hideRefs values upload-pack reads, in config order (transfer.* and uploadpack.* mixed).
std::vector<std::string> hide_rules(const std::string& git, const fs::path& common)
{
    auto r = run({git, "--git-dir=" + common.string(), "config", "--get-regexp",
                  "^(transfer|uploadpack)\\.hiderefs$"});
    std::vector<std::string> rules;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
        if (auto space = line.find(' '); space != std::string::npos)
            rules.push_back(line.substr(space + 1));
    return rules;
}

} // namespace

bool ref_is_hidden(const std::string& ref, const std::vector<std::string>& rules)
{
    // As git's refs.c: the last rule that matches decides; `!` serves, `^` names a full ref
    // (the same here: git-guard uses no namespaces); a trailing slash is dropped.
    for (auto it = rules.rbegin(); it != rules.rend(); ++it) {
        std::string match = *it;
        bool serve = !match.empty() && match[0] == '!';
        match.erase(0, serve ? 1 : 0);
        match.erase(0, !match.empty() && match[0] == '^' ? 1 : 0);
        while (!match.empty() && match.back() == '/')
            match.pop_back();
        if (!match.empty() && ref.starts_with(match) && (ref.size() == match.size() || ref[match.size()] == '/'))
            return !serve;
    }
    return false;
}

void hide_saves(Installation& ctx)
{
    for (const char* space : k_hidden_saves) {
        std::string sample = std::string(space) + "/x";
        if (ref_is_hidden(sample, hide_rules(ctx.git, ctx.site.common))) {
            ctx.say(std::string(space) + "/ is already hidden from fetches", false);
            continue;
        }
        Record record{"config-add", k_key, space};
        const auto& records = ctx.manifest.records();
        if (std::find(records.begin(), records.end(), record) == records.end())
            ctx.record(record);
        auto r = run({ctx.git, "--git-dir=" + ctx.site.common.string(), "config", "--local", "--add", k_key, space});
        forget_config();
        if (r.status != 0)
            throw Error("'git config --add " + std::string(k_key) + "' failed in " + ctx.site.common.string() + ": " + r.err);
        ctx.say("added " + std::string(k_key) + "=" + space + " (saves are not served to fetches)");
    }
}

void undo_config_add(Installation& ctx, const std::vector<std::string>& record)
{
    if (record.size() < 3)
        return;
    run({ctx.git, "--git-dir=" + ctx.site.common.string(), "config", "--local", "--fixed-value", "--unset-all",
         record[1], record[2]});
    forget_config();
}

Check served_check(const std::string& git, const fs::path& common)
{
    auto rules = hide_rules(git, common);
    bool in_place = ref_is_hidden("refs/stranded/x", rules);
    bool removal = ref_is_hidden("refs/heads/stranded/x", rules);
    std::string detail = std::string("in-place saves (refs/stranded/) are ") + (in_place ? "hidden from" : "SERVED to") +
                         " fetches and clones; removal saves (refs/heads/stranded/) are " +
                         (removal ? "hidden" : "served") + " (uploadpack.hideRefs)";
    if (in_place && removal)
        return {"saves_private", true, detail, ""};
    if (in_place)
        return {"saves_private", true, detail + ": chosen by this repository's config", ""};
    return {"saves_private", false, detail + ": anyone who can fetch from here gets what they hold",
            "run 'git guard install' (it adds uploadpack.hideRefs=refs/stranded)"};
}

Check saves_check(const fs::path& common)
{
    size_t removal = 0, in_place = 0, bundled = 0, foreign = 0;
    try {
        for (const auto& s : list_saves(common, {.in_place = true})) {
            (!s.bundle.empty() ? bundled : s.in_place ? in_place : removal)++;
            foreign += s.foreign ? 1 : 0;
        }
    } catch (const std::exception& e) {
        return {"saves", false, std::string("the saves cannot be listed: ") + e.what(), "git guard list --all"};
    }
    return {"saves", true,
            std::to_string(removal) + " removal save(s), " + std::to_string(in_place) + " in-place save(s), " +
                std::to_string(bundled) + " in a mirror's bundles; " + std::to_string(foreign) +
                " not made here (git guard list --all marks them [from elsewhere])",
            ""};
}

Check manifest_check(const fs::path& common)
{
    Manifest manifest;
    if (!manifest.load(common))
        return {"manifest", false, "there is no install manifest " + Manifest::file(common).string(),
                "run 'git guard install'"};
    if (manifest.origin().empty())
        return {"manifest", true, Manifest::file(common).string() + " records this repository's install", ""};
    return {"manifest", false,
            Manifest::file(common).string() + " was written for " + manifest.origin().string() +
                ": this repository is a copy of it (or was moved); uninstall here acts on this repository only",
            "run 'git guard install' here: it records this repository in its manifest"};
}

} // namespace guard
