#include "guard/base/pattern.hpp"

namespace guard {

namespace {

// Matches one bracket expression at the start of `glob` against `c`; returns the
// length of the expression, or 0 when it is malformed (then '[' is literal).
size_t match_class(std::string_view glob, char c, bool& matched)
{
    size_t i = 1;
    bool negate = i < glob.size() && (glob[i] == '!' || glob[i] == '^');
    if (negate)
        ++i;
    bool hit = false;
    for (bool first = true; i < glob.size() && (first || glob[i] != ']'); first = false, ++i) {
        char lo = glob[i];
        if (lo == '\\' && i + 1 < glob.size())
            lo = glob[++i];
        char hi = lo;
        if (i + 2 < glob.size() && glob[i + 1] == '-' && glob[i + 2] != ']') {
            hi = glob[i + 2];
            i += 2;
        }
        hit = hit || (lo <= c && c <= hi);
    }
    if (i >= glob.size())
        return 0;
    matched = hit != negate && c != '/';
    return i + 1;
}

bool star(std::string_view glob, std::string_view text, bool cross_dirs)
{
    for (size_t i = 0;; ++i) {
        if (wildmatch(glob, text.substr(i)))
            return true;
        if (i >= text.size() || (!cross_dirs && text[i] == '/'))
            return false;
    }
}

} // namespace

bool wildmatch(std::string_view glob, std::string_view text)
{
    while (!glob.empty()) {
        if (glob.starts_with("**/")) {
            // Zero or more whole directories.
            for (size_t i = 0;;) {
                if (wildmatch(glob.substr(3), text.substr(i)))
                    return true;
                size_t slash = text.find('/', i);
                if (slash == std::string_view::npos)
                    return false;
                i = slash + 1;
            }
        }
        if (glob == "**" || glob.starts_with("**"))
            return star(glob.substr(2), text, true);
        char c = glob[0];
        if (c == '*')
            return star(glob.substr(1), text, false);
        if (text.empty())
            return false;
        size_t used = 1;
        if (c == '?') {
            if (text[0] == '/')
                return false;
        } else if (c == '[') {
            bool matched = false;
            used = match_class(glob, text[0], matched);
            if (used == 0 ? text[0] != '[' : !matched)
                return false;
            used = used == 0 ? 1 : used;
        } else if (c == '\\' && glob.size() > 1) {
            if (glob[1] != text[0])
                return false;
            used = 2;
        } else if (c != text[0]) {
            return false;
        }
        glob.remove_prefix(used);
        text.remove_prefix(1);
    }
    return text.empty();
}

PatternList::PatternList(const std::vector<std::string>& patterns)
{
    for (const auto& text : patterns) {
        Pattern p;
        p.text = text;
        std::string_view g = text;
        while (!g.empty() && g.back() == ' ' && !(g.size() > 1 && g[g.size() - 2] == '\\'))
            g.remove_suffix(1);
        if (g.empty() || g[0] == '#')
            continue;
        if (g[0] == '!') {
            p.negated = true;
            g.remove_prefix(1);
        } else if (g.starts_with("\\!") || g.starts_with("\\#")) {
            g.remove_prefix(1);
        }
        if (g.size() > 1 && g.back() == '/') {
            p.dir_only = true;
            g.remove_suffix(1);
        }
        p.anchored = g.find('/') != std::string_view::npos;
        if (!g.empty() && g[0] == '/')
            g.remove_prefix(1);
        p.glob = g;
        if (!p.glob.empty())
            m_patterns.push_back(std::move(p));
    }
}

std::optional<const PatternList::Pattern*> PatternList::decide(std::string_view path, bool is_dir) const
{
    std::string_view base = path.substr(path.rfind('/') + 1);
    for (auto it = m_patterns.rbegin(); it != m_patterns.rend(); ++it) {
        if (it->dir_only && !is_dir)
            continue;
        if (wildmatch(it->glob, it->anchored ? path : base))
            return &*it;
    }
    return std::nullopt;
}

std::optional<std::string> PatternList::match(std::string_view path) const
{
    // As in git, nothing below an excluded directory can be re-included.
    for (size_t slash = path.find('/'); slash != std::string_view::npos && slash + 1 < path.size();
         slash = path.find('/', slash + 1)) {
        if (auto p = decide(path.substr(0, slash), true); p && !(*p)->negated)
            return (*p)->text;
    }
    bool is_dir = !path.empty() && path.back() == '/';
    if (is_dir)
        path.remove_suffix(1);
    if (auto p = decide(path, is_dir); p && !(*p)->negated)
        return (*p)->text;
    return std::nullopt;
}

} // namespace guard
