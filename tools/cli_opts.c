/*
 * cli_opts.c -- how every option of `cuckoo` is spelled ("--name value" or
 * "--name=value"), and the options that shape a table, which `report` and
 * the filter-file commands (files_parse) both take: read, checked and
 * reported ("needs a value", "wants ...") one way for both.
 */
#include "cli.h"

#include <string.h>

const char *cli_flag_value(int argc, char **argv, int *i, const char *name, bool *missing) {
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0) return NULL;
    if (a[n] == '=') return a + n + 1;
    if (a[n] != '\0') return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

bool cli_table_flag(int argc, char **argv, int *i, cf_config *cfg, bool *matched) {
    const char *v;
    bool missing = false;
    *matched = true;
    if ((v = cli_flag_value(argc, argv, i, "--fingerprint-bits", &missing)) != NULL) {
        if (!cli_parse_unsigned(v, CF_MIN_FINGERPRINT_BITS, CF_MAX_FINGERPRINT_BITS,
                                &cfg->fingerprint_bits))
            return cli_error("--fingerprint-bits wants a width from %d to %d bits, not '%s'",
                             CF_MIN_FINGERPRINT_BITS, CF_MAX_FINGERPRINT_BITS, v),
                   false;
    } else if ((v = cli_flag_value(argc, argv, i, "--bucket-size", &missing)) != NULL) {
        unsigned b;
        if (!cli_parse_unsigned(v, 1, CF_MAX_BUCKET_SIZE, &b) || (b & (b - 1)) != 0)
            return cli_error("--bucket-size wants 1, 2, 4 or 8, not '%s'", v), false;
        cfg->bucket_size = b;
    } else if ((v = cli_flag_value(argc, argv, i, "--seed", &missing)) != NULL) {
        if (!cli_parse_u64(v, &cfg->seed))
            return cli_error("--seed wants an unsigned 64-bit integer, not '%s'", v), false;
    } else if ((v = cli_flag_value(argc, argv, i, "--max-kicks", &missing)) != NULL) {
        if (!cli_parse_unsigned(v, 1, CF_MAX_KICKS_LIMIT, &cfg->max_kicks))
            return cli_error("--max-kicks wants an eviction budget from 1 to %u, not '%s'",
                             CF_MAX_KICKS_LIMIT, v),
                   false;
    } else if ((v = cli_flag_value(argc, argv, i, "--buckets", &missing)) != NULL) {
        if (!cli_parse_u64(v, &cfg->num_buckets) || cfg->num_buckets == 0)
            return cli_error("--buckets wants a positive integer, not '%s'%s", v,
                             cli_number_hint(v)),
                   false;
    } else if (strcmp(argv[*i], "--semi-sort") == 0) {
        cfg->flags |= CF_SEMI_SORT;
    } else {
        *matched = missing;
        if (missing) return cli_error("%s needs a value", argv[*i]), false;
    }
    return true;
}
