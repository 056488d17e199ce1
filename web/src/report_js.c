/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * report_js.c -- `cuckoo report` in the playground: the article's
 * experiment, run by the report's own code (experiment/) in a WebAssembly
 * module of its own (web/playground/worker.js loads it), so the page shows
 * exactly the numbers `cuckoo report` prints for the same parameters.
 *
 *   rjs_params(...)     the experiment's parameters; forgets earlier results
 *   rjs_phase(p)        runs one phase: fill (1-6), compare (7), buckets (8)
 *   rjs_write(format)   the report so far as text or JSON, in rjs_output()
 *
 * The phases run one at a time so that the page can show each as it ends.
 * Text and JSON cover every phase: the page asks for them once all ran
 * (fields of a phase not run are zeros).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <emscripten.h>

#include "cli_base.h"
#include "report.h"

static report the_report;
static char *output;
static size_t output_len;

EMSCRIPTEN_KEEPALIVE void rjs_params(unsigned fingerprint_bits, unsigned bucket_size,
                                     double buckets, double load, double queries,
                                     unsigned max_kicks, uint32_t seed_lo, uint32_t seed_hi,
                                     bool semi_sort) {
    memset(&the_report, 0, sizeof the_report);
    report_params *p = &the_report.params;
    p->fingerprint_bits = fingerprint_bits;
    p->bucket_size = bucket_size;
    p->buckets = (uint64_t)buckets;
    p->load = load;
    p->queries = (uint64_t)queries;
    p->max_kicks = max_kicks;
    p->seed = (uint64_t)seed_hi << 32 | seed_lo;
    p->semi_sort = semi_sort;
    p->format = REPORT_JSON;
}

/* 0 on success, else the report's exit code (the reason went to stderr). */
EMSCRIPTEN_KEEPALIVE int rjs_phase(int phase) {
    switch (phase) {
    case 1: return report_run_fill(&the_report);
    case 7: return report_run_compare(&the_report);
    case 8: return report_run_buckets(&the_report);
    default: return CLI_ERROR;
    }
}

/* The report's defaults (report.h), so the page starts from the article's
 * setup without a copy of them: out[0..7) = fingerprint bits, buckets,
 * load, queries, seed, and the library's default bucket size and eviction
 * budget, which the report uses. */
EMSCRIPTEN_KEEPALIVE void rjs_defaults(double *out) {
    out[0] = REPORT_DEFAULT_FINGERPRINT_BITS;
    out[1] = REPORT_DEFAULT_BUCKETS;
    out[2] = REPORT_DEFAULT_LOAD;
    out[3] = REPORT_DEFAULT_QUERIES;
    out[4] = REPORT_DEFAULT_SEED;
    out[5] = CF_DEFAULT_BUCKET_SIZE;
    out[6] = CF_DEFAULT_MAX_KICKS;
}

/* Writes the report (0: text, as `cuckoo report` prints it; 1: JSON, as
 * `cuckoo report --json`) to a buffer; returns its length, -1 when out of
 * memory.  The bytes stay at rjs_output() until the next call. */
EMSCRIPTEN_KEEPALIVE int rjs_write(int format) {
    free(output);
    output = NULL;
    output_len = 0;
    FILE *out = open_memstream(&output, &output_len);
    if (out == NULL) return -1;
    if (format == 0)
        report_write_text(&the_report, out);
    else
        report_write_json(&the_report, out);
    if (fclose(out) != 0) return -1;
    return (int)output_len;
}

EMSCRIPTEN_KEEPALIVE const char *rjs_output(void) {
    return output;
}
