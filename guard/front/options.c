#include "options.h"

#include <stdlib.h>
#include <string.h>

static int starts_with(const char* s, const char* prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

// Puts option `k` in force (`negated`: out of force), as git's option callbacks do.
static void set_option(const struct ArgOption* table, int ntable, int k, int negated, struct ArgParse* out)
{
    if (table[k].group > 0 && !negated)
        for (int j = 0; j < ntable; ++j)
            if (table[j].group == table[k].group)
                out->count[j] = 0; // the group's one variable now holds this one
    if (negated) {
        out->count[k] = 0;
        for (int v = 0; v < out->nvalues; ++v)
            if (out->value_of[v] == k)
                out->value_of[v] = -1; // a list option's --no- empties the list
        return;
    }
    ++out->count[k];
}

static void add_value(struct ArgParse* out, int k, const char* value)
{
    out->values[out->nvalues] = value;
    out->value_of[out->nvalues++] = k;
}

// The entries `body` ("name" of "--name[=v]", `length` bytes) can mean: an exact name,
// else every name it abbreviates; each either as itself or as its `--no-` negation.
static int long_matches(const struct ArgOption* table, int ntable, const char* body, size_t length,
                        int* match, int* negated)
{
    int n = 0;
    for (int pass = 0; pass < 2 && n == 0; ++pass) // pass 0: exact names, pass 1: prefixes
        for (int k = 0; k < ntable; ++k) {
            const char* name = table[k].name;
            if (!name || strlen(name) < 2)
                continue; // a one-letter name is a short option's only
            for (int neg = 0; neg < 2; ++neg) {
                const char* b = body;
                size_t len = length;
                if (neg && !(len > 3 && strncmp(b, "no-", 3) == 0))
                    continue;
                if (neg)
                    b += 3, len -= 3;
                int hit = pass == 0 ? strlen(name) == len && strncmp(name, b, len) == 0
                                    : len > 0 && strlen(name) > len && strncmp(name, b, len) == 0;
                if (hit && n < k_max_arg_options) {
                    match[n] = k;
                    negated[n++] = neg;
                }
            }
        }
    return n;
}

// `--name[=value]` at `words[i]`; returns how many words it used.
static int read_long(int nwords, char* const* words, int i, const struct ArgOption* table, int ntable,
                     struct ArgParse* out)
{
    const char* body = words[i] + 2;
    const char* eq = strchr(body, '=');
    size_t length = eq ? (size_t)(eq - body) : strlen(body);
    int match[k_max_arg_options], negated[k_max_arg_options];
    int n = long_matches(table, ntable, body, length, match, negated);
    int used = 1;
    for (int m = 0; m < n; ++m) {
        int k = match[m];
        set_option(table, ntable, k, negated[m], out);
        if (negated[m] || table[k].takes_value == arg_flag)
            continue;
        if (eq)
            add_value(out, k, eq + 1);
        else if (table[k].takes_value == arg_value && i + 1 < nwords)
            add_value(out, k, words[i + 1]), used = 2;
    }
    return used;
}

// `-abc`, `-e<value>`, `-e <value>` at `words[i]`; returns how many words it used.
static int read_short(int nwords, char* const* words, int i, const struct ArgOption* table, int ntable,
                      struct ArgParse* out)
{
    const char* w = words[i];
    for (const char* c = w + 1; *c; ++c) {
        int k = 0;
        while (k < ntable && table[k].short_name != *c)
            ++k;
        if (k == ntable)
            continue; // git: "unknown switch", and it runs nothing
        set_option(table, ntable, k, 0, out);
        if (table[k].takes_value == arg_flag)
            continue;
        if (c[1]) {
            add_value(out, k, c + 1);
            return 1;
        }
        if (table[k].takes_value == arg_value && i + 1 < nwords) {
            add_value(out, k, words[i + 1]);
            return 2;
        }
        return 1;
    }
    return 1;
}

int parse_args(int nwords, char* const* words, int first, const struct ArgOption* table, int ntable,
               struct ArgParse* out)
{
    memset(out, 0, sizeof *out);
    size_t room = (size_t)(nwords > 0 ? nwords : 1);
    out->values = malloc(room * sizeof *out->values);
    out->value_of = malloc(room * sizeof *out->value_of);
    out->operands = malloc(room * sizeof *out->operands);
    out->paths = malloc(room * sizeof *out->paths);
    if (!out->values || !out->value_of || !out->operands || !out->paths || ntable > k_max_arg_options) {
        free_args(out);
        return -1;
    }
    int options = 1;
    for (int i = first; i < nwords;) {
        const char* w = words[i];
        if (out->dashdash) {
            out->paths[out->npaths++] = w;
            ++i;
        } else if (strcmp(w, "--") == 0) {
            out->dashdash = 1;
            ++i;
        } else if (options && strcmp(w, "--end-of-options") == 0) {
            options = 0;
            ++i;
        } else if (options && starts_with(w, "--")) {
            i += read_long(nwords, words, i, table, ntable, out);
        } else if (options && w[0] == '-' && w[1]) {
            i += read_short(nwords, words, i, table, ntable, out);
        } else {
            out->operands[out->noperands++] = w;
            ++i;
        }
    }
    return 0;
}

void free_args(struct ArgParse* out)
{
    free(out->values);
    free(out->value_of);
    free(out->operands);
    free(out->paths);
    out->values = out->operands = out->paths = NULL;
    out->value_of = NULL;
}

int arg_index(const struct ArgOption* table, int ntable, const char* name)
{
    for (int k = 0; k < ntable; ++k)
        if (table[k].name && strcmp(table[k].name, name) == 0)
            return k;
    return -1;
}

int arg_has(const struct ArgParse* parsed, const struct ArgOption* table, int ntable, const char* name)
{
    int k = arg_index(table, ntable, name);
    return k >= 0 && parsed->count[k] > 0;
}
