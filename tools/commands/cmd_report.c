/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cmd_report.c -- `cuckoo report`: reads the options into report_params and
 * runs the article's experiment (experiment/report_run.c), which prints it
 * as a table, CSV or JSON, with optional charts.
 *
 * Exit codes: 0 done; 1 the library broke a guarantee (a false negative or
 * a lost item); 2 bad options or a filter that cannot be built.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "commands/commands.h"
#include "report.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: cuckoo report [options]\n"
            "\n"
            "Reruns the founding article's cuckoo filter experiment with this library:\n"
            "fill, false negatives, false-positive rate, kicks, delete, fill to failure,\n"
            "Cuckoo vs Bloom at equal memory, maximum load by bucket size, throughput.\n"
            "\n"
            "options (defaults are the article's setup):\n"
            "  --fingerprint-bits N  fingerprint width f, 1..32          (default %d)\n"
            "  --bucket-size N       slots per bucket b: 1, 2, 4 or 8    (default %d)\n"
            "  --buckets N           number of buckets, any N >= 1       (default %d)\n"
            "  --load X              target load factor, 0 < X <= 1      (default %.2f)\n"
            "  --queries N           non-member lookups per FPP measure  (default %d)\n"
            "  --max-kicks N         eviction budget per insert, >= 1    (default %d)\n"
            "  --seed N              hash and key seed                   (default %d)\n"
            "  --semi-sort           phases 1-6 on semi-sorted buckets: f - 1 bits per slot\n"
            "                        (needs bucket size 4 and f from %d to %d); phase 7 always\n"
            "                        adds the semi-sorted series when the bucket size is 4\n"
            "  --csv                 print CSV (section,row,metric,value) instead of a table\n"
            "  --json                print JSON instead of a table\n"
            "  --plot DIR            write report.csv, chart data and PNG/SVG charts to DIR\n"
            "  -h, --help            show this help\n"
            "\n"
            "The same seed gives byte-identical CSV and JSON (timings appear in the table only).\n"
            "Exit status: 0 done, 1 an inserted item was not found (a library bug), 2 bad usage.\n",
            REPORT_DEFAULT_FINGERPRINT_BITS, CF_DEFAULT_BUCKET_SIZE, REPORT_DEFAULT_BUCKETS,
            REPORT_DEFAULT_LOAD, REPORT_DEFAULT_QUERIES, CF_DEFAULT_MAX_KICKS, REPORT_DEFAULT_SEED,
            REPORT_SEMI_MIN_BITS, REPORT_SEMI_MAX_BITS);
}

/* A bad option: the reason is printed as every command prints it
 * (cli_parse, cli_error), then the usage. */
static int usage_after_error(void) {
    fputc('\n', stderr);
    usage(stderr);
    return CLI_ERROR;
}

/* --csv and --json: one output format, whichever is given. */
static bool set_format(report_params *p, report_format want, const char *name) {
    if (p->format != REPORT_TEXT && p->format != want)
        return cli_error("%s: --csv and --json exclude each other", name), false;
    p->format = want;
    return true;
}

static bool set_csv(void *p, const char *v) {
    (void)v;
    return set_format(p, REPORT_CSV, "--csv");
}

static bool set_json(void *p, const char *v) {
    (void)v;
    return set_format(p, REPORT_JSON, "--json");
}

static bool set_load(void *p, const char *v) {
    double *load = &((report_params *)p)->load;
    if (cli_parse_double(v, load) && *load > 0 && *load <= 1) return true;
    return cli_error("--load wants a number in (0, 1], not '%s'", v), false;
}

static bool set_queries(void *p, const char *v) {
    uint64_t *queries = &((report_params *)p)->queries;
    if (cli_parse_u64(v, queries) && *queries != 0) return true;
    return cli_error("--queries wants a positive integer, not '%s'%s", v, cli_number_hint(v)),
           false;
}

static bool set_plot(void *p, const char *v) {
    if (*v == '\0') return cli_error("--plot wants a directory"), false;
    ((report_params *)p)->plot_dir = v;
    return true;
}

static const cli_option options[] = {
    {"--csv", CLI_SWITCH, set_csv, 0},  {"--json", CLI_SWITCH, set_json, 0},
    {"--load", CLI_VALUE, set_load, 0}, {"--queries", CLI_VALUE, set_queries, 0},
    {"--plot", CLI_VALUE, set_plot, 0},
};

/* The table's options are read as the filter-file commands read them
 * (cli_table_options), into a cf_config that starts as p. */
static int parse_options(int argc, char **argv, report_params *p, bool *help) {
    cf_config table;
    cf_config_init(&table);
    table.fingerprint_bits = p->fingerprint_bits;
    table.bucket_size = p->bucket_size;
    table.num_buckets = p->buckets;
    table.max_kicks = p->max_kicks;
    table.seed = p->seed;
    table.flags = p->semi_sort ? CF_SEMI_SORT : 0;
    cli_options tables[2] = {{options, sizeof options / sizeof options[0], p},
                             cli_table_options(&table)};
    int npos;
    if (!cli_parse(argc, argv, tables, 2, &npos, help)) return usage_after_error();
    if (*help) return 0;
    if (npos > 0) {
        cli_error("report: unexpected argument '%s'", argv[1]);
        return usage_after_error();
    }
    p->fingerprint_bits = table.fingerprint_bits;
    p->bucket_size = table.bucket_size;
    p->buckets = table.num_buckets;
    p->max_kicks = table.max_kicks;
    p->seed = table.seed;
    p->semi_sort = (table.flags & CF_SEMI_SORT) != 0;
    /* Checked once every option is read: their order must not matter. */
    if (p->semi_sort && p->bucket_size != REPORT_SEMI_BUCKET_SIZE) {
        cli_error("--semi-sort needs 4 slots per bucket (a semi-sorted bucket holds 4 "
                  "fingerprints), got --bucket-size %u",
                  p->bucket_size);
        return usage_after_error();
    }
    if (p->semi_sort && !report_semi_supported(p->bucket_size, p->fingerprint_bits)) {
        cli_error("--semi-sort needs --fingerprint-bits from %d to %d, got %u",
                  REPORT_SEMI_MIN_BITS, REPORT_SEMI_MAX_BITS, p->fingerprint_bits);
        return usage_after_error();
    }
    return 0;
}

int cli_cmd_report(int argc, char **argv) {
    report_params p = {REPORT_DEFAULT_FINGERPRINT_BITS,
                       CF_DEFAULT_BUCKET_SIZE,
                       REPORT_DEFAULT_BUCKETS,
                       REPORT_DEFAULT_LOAD,
                       REPORT_DEFAULT_QUERIES,
                       CF_DEFAULT_MAX_KICKS,
                       REPORT_DEFAULT_SEED,
                       false,
                       REPORT_TEXT,
                       NULL};
    bool help = false;
    int rc = parse_options(argc, argv, &p, &help);
    if (rc != 0) return rc;
    if (help) return usage(stdout), CLI_OK;
    return report_run(&p);
}
