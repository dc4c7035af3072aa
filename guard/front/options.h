// git's parse-options rules, in one place (DESIGN §0.6, issue 16): the front end's
// classification of a call and the full binary's reading of it (guard/git/arguments.cpp)
// both read a subcommand's options here, so that they cannot disagree with each other,
// and disagree with git only towards saving more.
#pragma once

// One option of a subcommand, as its parse-options table declares it.
struct ArgOption {
    const char* name; // the long name ("force"); a one-letter name is the short option's alone
    char short_name;  // 0: long only
    int takes_value;  // arg_flag, arg_value, or arg_optional
    int group;        // > 0: options of one group set one variable (reset's modes): the last wins
};

enum {
    arg_flag = 0,     // no value; counted (`-ff`)
    arg_value = 1,    // a value: `--name=v`, `--name v`, `-nv`, `-n v`
    arg_optional = 2, // a value only when attached: `--name=v`, `-nv`
};

enum { k_max_arg_options = 64 };

// A subcommand's words as git's parse-options reads them:
// - long options by any unique prefix (`--forc` is `--force`; an ambiguous prefix, which
//   git refuses, counts as every option it could be);
// - `--no-<name>` (and its prefixes) negates: the option is no longer in force, and a
//   list option (`clean -e`) forgets its values;
// - a group's options overwrite each other: the last one given is the one in force;
// - short options cluster (`-fdx`), a value takes the rest of the word or the next word
//   (`clean -e -n`: `-n` is the pattern);
// - options may follow operands; `--end-of-options` ends them (what follows is an operand
//   even if it starts with `-`); `--` ends them and starts the paths.
struct ArgParse {
    int count[k_max_arg_options]; // per table entry: times in force (0: not, or negated)
    const char** values;          // every value given, in order
    int* value_of;                // the table entry each value belongs to (-1: negated away)
    int nvalues;
    const char** operands;        // before `--`
    int noperands;
    const char** paths;           // after `--`
    int npaths;
    int dashdash;                 // a `--` was given
};

// Parses `words[first..nwords)` against `table` (`ntable` entries, at most
// k_max_arg_options) into `out`, whose arrays it allocates (free with free_args).
// Returns 0, or -1 when out of memory.
int parse_args(int nwords, char* const* words, int first, const struct ArgOption* table, int ntable,
               struct ArgParse* out);

void free_args(struct ArgParse* out);

// The table entry named `name` (its long name), or -1.
int arg_index(const struct ArgOption* table, int ntable, const char* name);

// Whether the option named `name` is in force in `parsed`.
int arg_has(const struct ArgParse* parsed, const struct ArgOption* table, int ntable, const char* name);
