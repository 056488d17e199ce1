/*
 * cmd_report.c -- `cuckoo report`: reads the flags, runs the phases of the
 * article's experiment (report_fill.c, report_compare.c, report_buckets.c)
 * and prints them as a table, CSV or JSON, with optional charts.
 *
 * Exit codes: 0 done; 1 the library broke a guarantee (a false negative or
 * a lost item); 2 bad flags or a filter that cannot be built.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, fork, isatty */

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"

/* The article's setup. */
#define DEFAULT_FINGERPRINT_BITS 12
#define DEFAULT_BUCKETS 65536
#define DEFAULT_LOAD 0.95
#define DEFAULT_QUERIES 500000
#define DEFAULT_SEED 2014

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
            DEFAULT_FINGERPRINT_BITS, CF_DEFAULT_BUCKET_SIZE, DEFAULT_BUCKETS, DEFAULT_LOAD,
            DEFAULT_QUERIES, CF_DEFAULT_MAX_KICKS, DEFAULT_SEED, REPORT_SEMI_MIN_BITS,
            REPORT_SEMI_MAX_BITS);
}

/* A bad flag: the reason is printed as every command prints it (cli_error),
 * then the usage. */
static int usage_after_error(void) {
    fputc('\n', stderr);
    usage(stderr);
    return CLI_ERROR;
}

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad_usage(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("cuckoo: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return usage_after_error();
}

/* The table's options are read as the filter-file commands read them
 * (cli_table_flag), into a cf_config that starts as p. */
static int parse_flags(int argc, char **argv, report_params *p, bool *help) {
    cf_config table;
    cf_config_init(&table);
    table.fingerprint_bits = p->fingerprint_bits;
    table.bucket_size = p->bucket_size;
    table.num_buckets = p->buckets;
    table.max_kicks = p->max_kicks;
    table.seed = p->seed;
    table.flags = p->semi_sort ? CF_SEMI_SORT : 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool matched, missing = false;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = true;
            return 0;
        } else if (strcmp(a, "--csv") == 0 || strcmp(a, "--json") == 0) {
            report_format want = a[2] == 'c' ? REPORT_CSV : REPORT_JSON;
            if (p->format != REPORT_TEXT && p->format != want)
                return bad_usage("%s: --csv and --json exclude each other", a);
            p->format = want;
        } else if (!cli_table_flag(argc, argv, &i, &table, &matched)) {
            return usage_after_error();
        } else if (matched) {
            continue;
        } else if ((v = cli_flag_value(argc, argv, &i, "--load", &missing)) != NULL) {
            if (!cli_parse_double(v, &p->load) || !(p->load > 0 && p->load <= 1))
                return bad_usage("--load wants a number in (0, 1], not '%s'", v);
        } else if ((v = cli_flag_value(argc, argv, &i, "--queries", &missing)) != NULL) {
            if (!cli_parse_u64(v, &p->queries) || p->queries == 0)
                return bad_usage("--queries wants a positive integer, not '%s'%s", v,
                                 cli_number_hint(v));
        } else if ((v = cli_flag_value(argc, argv, &i, "--plot", &missing)) != NULL) {
            if (*v == '\0') return bad_usage("--plot wants a directory");
            p->plot_dir = v;
        } else if (missing) {
            return bad_usage("%s needs a value", a);
        } else {
            return bad_usage("report: unknown option '%s'", a);
        }
    }
    p->fingerprint_bits = table.fingerprint_bits;
    p->bucket_size = table.bucket_size;
    p->buckets = table.num_buckets;
    p->max_kicks = table.max_kicks;
    p->seed = table.seed;
    p->semi_sort = (table.flags & CF_SEMI_SORT) != 0;
    /* Checked once every flag is read: the order of the flags must not matter. */
    if (p->semi_sort && p->bucket_size != REPORT_SEMI_BUCKET_SIZE)
        return bad_usage("--semi-sort needs 4 slots per bucket (a semi-sorted bucket holds 4 "
                         "fingerprints), got --bucket-size %u",
                         p->bucket_size);
    if (p->semi_sort && !report_semi_supported(p->bucket_size, p->fingerprint_bits))
        return bad_usage("--semi-sort needs --fingerprint-bits from %d to %d, got %u",
                         REPORT_SEMI_MIN_BITS, REPORT_SEMI_MAX_BITS, p->fingerprint_bits);
    return 0;
}

/* The guarantees the report demonstrates; a violation is a library bug. */
static int check_guarantees(const report *r) {
    const report_fill *f = &r->fill;
    uint64_t lost = f->false_negatives + f->delete_others_lost + f->fail_lost;
    for (int i = 0; i < REPORT_BUCKET_ROWS; i++) lost += r->buckets[i].lost;
    if (lost == 0) return CLI_OK;
    fprintf(stderr, "cuckoo report: %llu inserted items were not found: a library bug\n",
            (unsigned long long)lost);
    return CLI_NOT_FOUND;
}

int cli_cmd_report(int argc, char **argv) {
    report *r = calloc(1, sizeof *r);
    if (r == NULL) return cli_error("out of memory");
    report_params *p = &r->params;
    *p = (report_params){DEFAULT_FINGERPRINT_BITS,
                         CF_DEFAULT_BUCKET_SIZE,
                         DEFAULT_BUCKETS,
                         DEFAULT_LOAD,
                         DEFAULT_QUERIES,
                         CF_DEFAULT_MAX_KICKS,
                         DEFAULT_SEED,
                         false,
                         REPORT_TEXT,
                         NULL};
    bool help = false;
    int rc = parse_flags(argc, argv, p, &help);
    if (rc == 0 && help) usage(stdout);
    if (rc != 0 || help) {
        free(r);
        return rc;
    }
    r->show_progress = isatty(STDERR_FILENO);

    rc = report_run_fill(r);
    if (rc == 0) rc = report_run_compare(r);
    if (rc == 0) rc = report_run_buckets(r);
    if (rc == 0) {
        if (p->format == REPORT_CSV)
            report_write_csv(r, stdout);
        else if (p->format == REPORT_JSON)
            report_write_json(r, stdout);
        else
            report_write_text(r, stdout);
        fflush(stdout);
        if (p->plot_dir != NULL) rc = report_plot(r, p->plot_dir);
    }
    if (rc == 0) rc = check_guarantees(r);
    free(r);
    return rc;
}
