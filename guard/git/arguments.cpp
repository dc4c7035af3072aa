// A subcommand's own options, read by the front end's parser (guard/front/options.c), so
// that the full binary and the front end cannot read one call two ways (DESIGN §0.5).
// Where this reading could differ from git's, the caller saves more, never less.
#include "guard/git/arguments.hpp"

#include <stdexcept>

namespace guard {

std::string Arguments::last(const std::string& name) const
{
    auto it = values.find(name);
    return it == values.end() || it->second.empty() ? "" : it->second.back();
}

std::vector<std::string> Arguments::operands_and_paths() const
{
    std::vector<std::string> out = operands;
    out.insert(out.end(), paths.begin(), paths.end());
    return out;
}

Arguments parse_arguments(const std::vector<std::string>& words, size_t first,
                          std::span<const OptionSpec> table)
{
    std::vector<char*> argv;
    for (const auto& w : words)
        argv.push_back(const_cast<char*>(w.c_str()));
    ArgParse parsed;
    if (parse_args(static_cast<int>(argv.size()), argv.data(), static_cast<int>(first), table.data(),
                   static_cast<int>(table.size()), &parsed) != 0)
        throw std::bad_alloc();
    Arguments out;
    for (size_t k = 0; k < table.size(); ++k)
        if (parsed.count[k] > 0)
            out.count[table[k].name] = parsed.count[k];
    for (int v = 0; v < parsed.nvalues; ++v)
        if (parsed.value_of[v] >= 0)
            out.values[table[static_cast<size_t>(parsed.value_of[v])].name].emplace_back(parsed.values[v]);
    out.operands.assign(parsed.operands, parsed.operands + parsed.noperands);
    out.paths.assign(parsed.paths, parsed.paths + parsed.npaths);
    out.dashdash = parsed.dashdash != 0;
    free_args(&parsed);
    return out;
}

} // namespace guard
