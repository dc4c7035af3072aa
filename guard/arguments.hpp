#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

namespace guard {

// One option of a git subcommand, as its parse-options table declares it.
struct OptionSpec {
    const char* name;        // the long name, or the short letter as a string
    char short_name = 0;     // 0: long only
    bool takes_value = false;
};

// A subcommand's arguments as git's parse-options reads them: long options by any
// unique prefix (`--forc` is `--force`; an ambiguous prefix counts as every match),
// short ones clustered (`-fdx`), values attached or separate, options anywhere before
// `--`. Unknown options are skipped: git refuses them itself.
struct Arguments {
    std::map<std::string, int> count;                         // long name -> times given
    std::map<std::string, std::vector<std::string>> values;   // long name -> values given
    std::vector<std::string> operands;                        // before `--`
    std::vector<std::string> paths;                           // after `--`
    bool dashdash = false;

    bool has(const std::string& name) const { return count.contains(name); }
    std::string last(const std::string& name) const;
};

// Parses `words[first..]` against `table`.
Arguments parse_arguments(const std::vector<std::string>& words, size_t first,
                          std::span<const OptionSpec> table);

} // namespace guard
