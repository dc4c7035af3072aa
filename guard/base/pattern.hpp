#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace guard {

// Patterns in .gitignore syntax (negation, trailing '/', anchoring, '**'),
// matched against paths relative to a tree's root, as guard.exclude and
// guard.keepIgnored use them.
class PatternList {
public:
    explicit PatternList(const std::vector<std::string>& patterns);

    // The pattern that selects `path` (or one of its leading directories), or
    // nothing when no pattern does or the deciding one is a negation.
    std::optional<std::string> match(std::string_view path) const;
    bool empty() const { return m_patterns.empty(); }

private:
    struct Pattern {
        std::string text;  // as configured
        std::string glob;  // without '!', leading '/' and trailing '/'
        bool negated = false;
        bool dir_only = false;
        bool anchored = false;
    };
    std::optional<const Pattern*> decide(std::string_view path, bool is_dir) const;
    std::vector<Pattern> m_patterns;
};

// Wildcard match of `glob` against `text`: '*' and '?' stop at '/', '**' as a
// whole component crosses directories, '[...]' classes, '\' escapes.
bool wildmatch(std::string_view glob, std::string_view text);

} // namespace guard
