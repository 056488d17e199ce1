/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cli_opts.c -- the one option parser of every `cuckoo` command, report
 * included: each command lists its options in tables (cli_option), and
 * this file spells them ("--name value" or "--name=value"), finds them,
 * and reports what is wrong one way ("--x needs a value", "CMD: unknown
 * option '--x' (see --help)"; the setters say "--x wants ..., not '...'").
 * It also holds the table of the options that shape a table, which
 * `report` and the filter-file commands (files_parse) both take.
 */
#include "cli/cli.h"

#include <string.h>

bool cli_set_flag(void *field, const char *value) {
    (void)value; /* a switch has none */
    *(bool *)field = true;
    return true;
}

/* The value of argv[*i] for opt: "--name=value", or "--name value" (a
 * value option; *i advances); NULL when argv[*i] is not opt, and then
 * *missing is set when it is a value option last, with no value. */
static bool match(const cli_option *opt, int argc, char **argv, int *i, const char **value,
                  bool *missing) {
    size_t n = strlen(opt->name);
    const char *a = argv[*i];
    *value = NULL;
    if (strncmp(a, opt->name, n) != 0) return false;
    if (a[n] == '=' && opt->arg != CLI_SWITCH) {
        *value = a + n + 1;
        return true;
    }
    if (a[n] != '\0') return false;
    if (opt->arg != CLI_VALUE) return true;
    if (*i + 1 >= argc) {
        *missing = true;
        return false;
    }
    *value = argv[++*i];
    return true;
}

bool cli_parse(int argc, char **argv, const cli_options *tables, size_t ntables, int *npos,
               bool *help) {
    *npos = 0;
    *help = false;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        /* Positionals are gathered at the front of argv, in order, so options
         * may come anywhere before a "--". */
        if (options_done || a[0] != '-' || a[1] == '\0') {
            argv[1 + (*npos)++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            options_done = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = true;
            return true;
        }
        bool found = false, missing = false;
        for (size_t t = 0; t < ntables && !found; t++)
            for (size_t k = 0; k < tables[t].n && !found; k++) {
                const cli_option *opt = &tables[t].opt[k];
                const char *value;
                if (!match(opt, argc, argv, &i, &value, &missing)) continue;
                found = true;
                if (!opt->set((char *)tables[t].ctx + opt->offset, value)) return false;
            }
        if (found) continue;
        if (missing) return cli_error("%s needs a value", a), false;
        return cli_error("%s: unknown option '%s' (see --help)", argv[0], a), false;
    }
    return true;
}

bool cli_given(int argc, char **argv, const char *name) {
    size_t n = strlen(name);
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strncmp(argv[i], name, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '='))
            return true;
    return false;
}

/* ---- the options that shape a table, into a cf_config ---- */

static bool set_fingerprint_bits(void *cfg, const char *v) {
    if (cli_parse_unsigned(v, CF_MIN_FINGERPRINT_BITS, CF_MAX_FINGERPRINT_BITS,
                           &((cf_config *)cfg)->fingerprint_bits))
        return true;
    return cli_error("--fingerprint-bits wants a width from %d to %d bits, not '%s'",
                     CF_MIN_FINGERPRINT_BITS, CF_MAX_FINGERPRINT_BITS, v),
           false;
}

static bool set_bucket_size(void *cfg, const char *v) {
    unsigned b;
    if (!cli_parse_unsigned(v, 1, CF_MAX_BUCKET_SIZE, &b) || (b & (b - 1)) != 0)
        return cli_error("--bucket-size wants 1, 2, 4 or 8, not '%s'", v), false;
    ((cf_config *)cfg)->bucket_size = b;
    return true;
}

static bool set_seed(void *cfg, const char *v) {
    if (cli_parse_u64(v, &((cf_config *)cfg)->seed)) return true;
    return cli_error("--seed wants an unsigned 64-bit integer, not '%s'", v), false;
}

static bool set_max_kicks(void *cfg, const char *v) {
    if (cli_parse_unsigned(v, 1, CF_MAX_KICKS_LIMIT, &((cf_config *)cfg)->max_kicks)) return true;
    return cli_error("--max-kicks wants an eviction budget from 1 to %u, not '%s'",
                     CF_MAX_KICKS_LIMIT, v),
           false;
}

static bool set_buckets(void *cfg, const char *v) {
    uint64_t *nb = &((cf_config *)cfg)->num_buckets;
    if (cli_parse_u64(v, nb) && *nb != 0) return true;
    return cli_error("--buckets wants a positive integer, not '%s'%s", v, cli_number_hint(v)),
           false;
}

static bool set_semi_sort(void *cfg, const char *v) {
    (void)v;
    ((cf_config *)cfg)->flags |= CF_SEMI_SORT;
    return true;
}

static const cli_option table_options[] = {
    {"--fingerprint-bits", CLI_VALUE, set_fingerprint_bits, 0},
    {"--bucket-size", CLI_VALUE, set_bucket_size, 0},
    {"--seed", CLI_VALUE, set_seed, 0},
    {"--max-kicks", CLI_VALUE, set_max_kicks, 0},
    {"--buckets", CLI_VALUE, set_buckets, 0},
    {"--semi-sort", CLI_SWITCH, set_semi_sort, 0},
};

cli_options cli_table_options(cf_config *cfg) {
    return (cli_options){table_options, sizeof table_options / sizeof table_options[0], cfg};
}
