#include "guard/save/report.hpp"
#include "guard/save/saveref.hpp"

#include <cstdlib>
#include <map>

namespace fs = std::filesystem;

namespace guard {

std::string summary(const Work& w)
{
    std::map<std::string, int> counts;
    for (const auto& c : w.changes)
        ++counts[to_string(c.kind)];
    std::string text;
    for (const auto& [kind, n] : counts)
        text += (text.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
    if (!w.nested.empty())
        text += (text.empty() ? "" : ", ") + std::to_string(w.nested.size()) +
                " nested repositor" + (w.nested.size() == 1 ? "y" : "ies") + " saved whole";
    if (!w.commits.empty())
        text += (text.empty() ? "" : "; ") + std::to_string(w.commits.size()) +
                " commit(s) on no other ref";
    return text.empty() ? "nothing" : text;
}

std::string shell_quote(const std::string& text)
{
    bool plain = !text.empty();
    for (char c : text)
        plain = plain && (std::isalnum(static_cast<unsigned char>(c)) ||
                          std::string_view("/._-+:@=,").find(c) != std::string_view::npos);
    if (plain && text[0] != '-')
        return text;
    std::string out = "'";
    for (char c : text)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string restore_command(const std::string& ref)
{
    bool in_place = ref.starts_with("refs/stranded/");
    return std::string("git guard restore ") + (in_place ? "--in-place " : "") + shell_quote(short_ref(ref));
}

std::string restore_hint(const std::string& ref)
{
    return "put back: " + restore_command(ref) + "; show: git guard show " + shell_quote(short_ref(ref));
}

bool each_item_reported(size_t count)
{
    const char* verbose = std::getenv("GIT_GUARD_VERBOSE");
    return count <= k_bulk_lines || (verbose && *verbose && std::string_view(verbose) != "0");
}

std::string bulk_summary(size_t count, const std::string& what, const std::string& since)
{
    return "git-guard: saved " + std::to_string(count) + " " + what + " (put them all back: git guard undo; "
           "list them: git guard list --since " + since + "; each on its own line: GIT_GUARD_VERBOSE=1)\n";
}

std::string describe(const Saved& s)
{
    std::string ref = short_ref(s.ref);
    std::string q = shell_quote(ref);
    std::string text = "  " + s.diffstat + "\n  put back: " + restore_command(s.ref) + "\n";
    text += "  show: git guard show " + q + "\n  inspect: git show --stat " + q + "\n";
    if (s.made_commit && !s.base.empty()) {
        std::string base = s.base.substr(0, 12);
        text += "  compare: git diff " + base + "..." + q + "\n";
        text += "  apply here: git cherry-pick " + base + ".." + q + "\n";
    } else {
        text += "  as a branch: git switch -c <new-branch> " + q + "\n";
    }
    return text;
}

std::string refusal_message(const Work& w, const std::string& why, std::string_view action)
{
    std::string path = w.path.empty() ? "branch " + w.branch : w.path;
    std::string text = "refusing to " + std::string(action) + " " + path + " (" + (w.branch.empty() ? "detached" : w.branch) +
                       "): its work could not be saved.\n";
    text += "  it holds: " + summary(w) + "\n";
    size_t shown = 0;
    for (const auto& c : w.changes) {
        if (shown++ == 5) {
            text += "    ...\n";
            break;
        }
        text += "    " + std::string(to_string(c.kind)) + ": " + c.path + "\n";
    }
    text += "  why: " + why + "\n";
    std::string q = shell_quote(w.path.empty() ? w.branch : w.path);
    if (!w.path.empty() && !w.blocker.empty()) {
        std::string blocker = w.blocker.ends_with('/') ? w.blocker.substr(0, w.blocker.size() - 1) : w.blocker;
        std::string rescued = w.path + "-" + ref_component(fs::path(blocker).filename().string()) + ".rescued";
        text += "  recover: mv " + shell_quote(w.path + "/" + blocker) + " " + shell_quote(rescued) +
                "   # move the repository out, then remove the tree again\n";
    } else if (!w.path.empty()) {
        text += "  recover: git -C " + q + " switch -c rescue/" + ref_component(fs::path(w.path).filename().string()) +
                " && git -C " + q + " add -A && git -C " + q + " commit -m rescue\n";
    } else {
        text += "  recover: git branch rescue/" + ref_component(w.branch) + " " + shell_quote(w.branch) + "\n";
    }
    text += "  discard: git guard discard " + q + "\n";
    return text;
}

} // namespace guard
