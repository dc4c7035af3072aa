// A subcommand's own options, read the way git's parse-options reads them, for the
// in-place destroyers: which form of the command runs is the one thing git cannot
// be asked before it runs. Where this reading could differ from git's, the caller
// saves more, never less (DESIGN §0.2).
#include "guard/arguments.hpp"

namespace guard {

namespace {

std::vector<const OptionSpec*> long_matches(std::span<const OptionSpec> table, const std::string& name)
{
    std::vector<const OptionSpec*> found;
    for (const auto& o : table)
        if (std::string(o.name) == name)
            return {&o};
    for (const auto& o : table)
        if (name.size() > 0 && std::string(o.name).starts_with(name) && std::string(o.name).size() > 1)
            found.push_back(&o);
    return found;
}

// `--name[=value]`; returns how many words it used.
size_t read_long(const std::vector<std::string>& words, size_t i, std::span<const OptionSpec> table,
                 Arguments& out)
{
    std::string body = words[i].substr(2);
    size_t eq = body.find('=');
    std::string name = body.substr(0, eq);
    auto found = long_matches(table, name);
    if (found.empty() && name.starts_with("no-"))
        return 1; // a negation: the option is not in force
    size_t used = 1;
    for (const OptionSpec* o : found) {
        ++out.count[o->name];
        if (!o->takes_value)
            continue;
        if (eq != std::string::npos) {
            out.values[o->name].push_back(body.substr(eq + 1));
        } else if (i + 1 < words.size()) {
            out.values[o->name].push_back(words[i + 1]);
            used = 2;
        }
    }
    return used;
}

// `-abc`, `-e<value>`, `-e <value>`; returns how many words it used.
size_t read_short(const std::vector<std::string>& words, size_t i, std::span<const OptionSpec> table,
                  Arguments& out)
{
    const std::string& w = words[i];
    for (size_t k = 1; k < w.size(); ++k) {
        const OptionSpec* spec = nullptr;
        for (const auto& o : table)
            if (o.short_name == w[k])
                spec = &o;
        if (!spec)
            continue;
        ++out.count[spec->name];
        if (!spec->takes_value)
            continue;
        if (k + 1 < w.size()) {
            out.values[spec->name].push_back(w.substr(k + 1));
            return 1;
        }
        if (i + 1 < words.size()) {
            out.values[spec->name].push_back(words[i + 1]);
            return 2;
        }
        return 1;
    }
    return 1;
}

} // namespace

std::string Arguments::last(const std::string& name) const
{
    auto it = values.find(name);
    return it == values.end() || it->second.empty() ? "" : it->second.back();
}

Arguments parse_arguments(const std::vector<std::string>& words, size_t first,
                          std::span<const OptionSpec> table)
{
    Arguments out;
    for (size_t i = first; i < words.size();) {
        const std::string& w = words[i];
        if (out.dashdash) {
            out.paths.push_back(w);
            ++i;
        } else if (w == "--") {
            out.dashdash = true;
            ++i;
        } else if (w.starts_with("--")) {
            i += read_long(words, i, table, out);
        } else if (w.size() > 1 && w[0] == '-') {
            i += read_short(words, i, table, out);
        } else {
            out.operands.push_back(w);
            ++i;
        }
    }
    return out;
}

} // namespace guard
