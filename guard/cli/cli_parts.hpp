#pragma once
// What the `git guard` commands share (cli.cpp, cli_trees.cpp, cli_saves.cpp): the
// invocation, and boost's parse of a command's own options, the only parse there is.
#include "guard/git/site.hpp"

#include <boost/program_options.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace guard::cli {

namespace po = boost::program_options;

struct Invocation {
    std::vector<std::string> args; // after the command name
    std::filesystem::path cwd;
    bool verbose = false;
    Site site; // asked once for a command that needs a repository (empty outside one)
};

// Parses `inv.args` against `options` (plus --help), with `positional` names taking the
// rest. Throws UsageError.
po::variables_map parse(const Invocation& inv, po::options_description& options,
                        const po::positional_options_description& positional);

// Prints `options` and says true when --help was given.
bool wants_help(const po::variables_map& vm, const po::options_description& options);

template <class T> std::vector<T> list(const po::variables_map& vm, const char* key)
{
    return vm.count(key) ? vm[key].as<std::vector<T>>() : std::vector<T>{};
}

std::string short_id(const std::string& id);

// The trees and branches (cli_trees.cpp).
int run_status(const Invocation& inv);
int run_save(const Invocation& inv);
int run_remove(const Invocation& inv);
int run_discard(const Invocation& inv);

// The saves and their records (cli_saves.cpp).
int run_list(const Invocation& inv);
int run_show(const Invocation& inv);
int run_restore(const Invocation& inv);
int run_drop(const Invocation& inv);
int run_push(const Invocation& inv);
int run_fold(const Invocation& inv);

// The journal as events, and undo (cli_undo.cpp).
int run_log(const Invocation& inv);
int run_undo(const Invocation& inv);

} // namespace guard::cli
