#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

extern "C" {
#include "guard/front/guarded.h"
#include "guard/front/options.h"
}

// The front end's option table of `name` (guard/front/guarded.c) as a span.
#define GUARD_TABLE(name) std::span<const guard::OptionSpec>(name##_options, static_cast<size_t>(name##_noptions))

namespace guard {

// One option of a git subcommand, as its parse-options table declares it: the front
// end's type (guard/front/options.h), so that both read a table the same way.
using OptionSpec = ::ArgOption;

// A subcommand's arguments as git's parse-options reads them, by the front end's one
// parser (guard/front/options.c): unique prefixes, `--no-` negations, last-wins groups,
// short clusters with values, `--end-of-options`, `--`. Unknown options are skipped:
// git refuses them itself.
struct Arguments {
    std::map<std::string, int> count;                         // long name -> times in force
    std::map<std::string, std::vector<std::string>> values;   // long name -> values given
    std::vector<std::string> operands;                        // before `--`
    std::vector<std::string> paths;                           // after `--`
    bool dashdash = false;

    bool has(const std::string& name) const { return count.contains(name); }
    std::string last(const std::string& name) const;
    std::vector<std::string> operands_and_paths() const;
};

// Parses `words[first..]` against `table`.
Arguments parse_arguments(const std::vector<std::string>& words, size_t first,
                          std::span<const OptionSpec> table);

} // namespace guard
