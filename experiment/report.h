/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * report.h -- `cuckoo report`: the founding article's experiment, rerun with
 * the real library.  What the report's files share: its parameters, every
 * number it measures, and the functions that measure and print them.
 *
 *   report_run.c        runs the phases, picks the output (tools/commands/cmd_report.c reads
 *                       the options into report_params and calls report_run)
 *   report_util.c       keys, confidence intervals, percentiles, progress, clock
 *   report_fill.c       phases 1-6: fill, false negatives, FPP, kicks, delete, failure
 *   report_compare.c    phase 7 (Cuckoo vs Bloom at equal memory) and 9 (throughput)
 *   report_buckets.c    phase 8: maximum load by bucket size
 *   report_fields.c     every machine-readable number, in order, through a sink
 *   report_csv.c        the CSV and JSON sinks
 *   report_text.c       the human-readable table
 *   report_plot.c       data files, gnuplot script, PNG and SVG charts
 *
 * Everything except the throughput figures is a pure function of the
 * parameters, so the same seed gives byte-identical CSV and JSON.
 */
#ifndef CF_REPORT_H
#define CF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuckoofilter.h"

/* The article's setup: report_params' defaults (bucket size and eviction
 * budget are the library's own defaults). */
#define REPORT_DEFAULT_FINGERPRINT_BITS 12
#define REPORT_DEFAULT_BUCKETS 65536
#define REPORT_DEFAULT_LOAD 0.95
#define REPORT_DEFAULT_QUERIES 500000
#define REPORT_DEFAULT_SEED 2014

/* The Cuckoo vs Bloom sweep covers these fingerprint widths. */
#define REPORT_MIN_SWEEP_BITS 4
#define REPORT_MAX_SWEEP_BITS 24
#define REPORT_SWEEP_ROWS (REPORT_MAX_SWEEP_BITS - REPORT_MIN_SWEEP_BITS + 1)
/* Semi-sorted buckets (CF_SEMI_SORT) exist for 4 slots per bucket and these
 * widths (cuckoofilter.h); the sweep adds them as a third series. */
#define REPORT_SEMI_BUCKET_SIZE 4
#define REPORT_SEMI_MIN_BITS 5
#define REPORT_SEMI_MAX_BITS 16
#define REPORT_SEMI_ROWS (REPORT_SEMI_MAX_BITS - REPORT_SEMI_MIN_BITS + 1)
/* Bucket sizes the library supports, for the maximum-load experiment. */
#define REPORT_BUCKET_ROWS 4
/* Kicks per insert are averaged over load bins of 1% for the kicks-vs-load chart. */
#define REPORT_LOAD_BINS 100
/* The delete demonstration removes this many items, as the article did. */
#define REPORT_DELETE_ITEMS 4

typedef enum report_format { REPORT_TEXT, REPORT_CSV, REPORT_JSON } report_format;

typedef struct report_params {
    unsigned fingerprint_bits; /* f */
    unsigned bucket_size;      /* b */
    uint64_t buckets;          /* nb */
    double load;               /* target fill of the main experiment, in (0, 1] */
    uint64_t queries;          /* non-member lookups per FPP measurement */
    unsigned max_kicks;
    uint64_t seed;  /* both the filters' hash seed and the keys' */
    bool semi_sort; /* phases 1-6 on semi-sorted buckets (CF_SEMI_SORT) */
    report_format format;
    const char *plot_dir; /* NULL: no plots */
} report_params;

/* A measured proportion with its 95% Wilson score interval. */
typedef struct report_rate {
    uint64_t hits;
    uint64_t trials;
    double rate;
    double low;
    double high;
} report_rate;

/* Kicks (fingerprints moved) per successful insert. */
typedef struct report_kicks {
    uint64_t inserts;
    uint64_t total;
    uint64_t max;
    uint64_t p99;
    double mean;
    /* Per 1% load bin (load at the time of the insert), up to the failure. */
    uint64_t bin_inserts[REPORT_LOAD_BINS];
    uint64_t bin_kicks[REPORT_LOAD_BINS];
    uint64_t bin_max[REPORT_LOAD_BINS];
} report_kicks;

/* Phases 1-6, on one filter of the requested shape. */
typedef struct report_fill {
    uint64_t slots;
    uint64_t target_items; /* floor(load * slots) */
    uint64_t items;        /* inserted before the first failure or the target */
    bool target_reached;
    double load;            /* items / slots */
    unsigned bits_per_slot; /* f, or f - 1 semi-sorted */
    size_t table_bytes;     /* ceil(nb * b * bits_per_slot / 8) */
    size_t memory_bytes;    /* everything the filter allocated */
    double bits_per_item;   /* table bits / items */
    uint64_t false_negatives;
    report_rate fpp;
    double fpp_theory; /* cf_theoretical_fpp at the load reached */
    double fpp_bound;  /* 2b / 2^f */
    bool theory_in_ci;
    report_kicks kicks; /* only the inserts up to the target */
    unsigned delete_items;
    unsigned delete_found_before;
    unsigned delete_found_after;
    uint64_t delete_others_lost; /* other items missing after the deletes */
    bool delete_reinserted;      /* the deleted items went back in */
    uint64_t fail_items;         /* items stored when the first insert failed */
    double fail_load;
    bool fail_reached;  /* false if every slot filled without a failure */
    uint64_t fail_lost; /* stored items not found after the failure */
} report_fill;

/* Phase 7: one fingerprint width, a cuckoo filter (plain or semi-sorted) and
 * a Bloom filter of exactly its table's bits. */
typedef struct report_compare_row {
    unsigned fingerprint_bits;
    uint64_t items;         /* same items in both filters */
    double load;            /* of the cuckoo filter */
    unsigned bits_per_slot; /* f plain, f - 1 semi-sorted */
    uint64_t table_bits;    /* slots * bits_per_slot = the Bloom filter's num_bits */
    double bits_per_item;
    report_rate cuckoo;
    report_rate bloom;
    double cuckoo_theory;
    double bloom_theory; /* (1 - e^(-kn/m))^k */
    unsigned bloom_k;
    int winner;       /* 1 cuckoo, -1 bloom, 0 tie (same count) */
    bool significant; /* the two 95% intervals do not overlap */
} report_compare_row;

/* Where a cuckoo series and Bloom cross. */
typedef struct report_crossover {
    /* Where the theoretical curves cross (cuckoo better above). */
    bool found;
    double bits; /* bits per item, interpolated */
    double fpp;
    /* Smallest fingerprint width from which the measured cuckoo FPP is never
     * above Bloom's (0 if the last row is not a cuckoo win or tie). */
    unsigned measured_from_f;
} report_crossover;

typedef struct report_compare {
    report_compare_row rows[REPORT_SWEEP_ROWS]; /* plain buckets, f = 4..24 */
    report_crossover crossover;
    /* Semi-sorted buckets, f = 5..16, only when the bucket size is 4. */
    bool semi_available;
    report_compare_row semi[REPORT_SEMI_ROWS];
    report_crossover semi_crossover;
} report_compare;

/* Phase 8: fill to the first failure with each bucket size, same slots. */
typedef struct report_bucket_row {
    unsigned bucket_size;
    uint64_t buckets;
    uint64_t slots;
    uint64_t items;
    double max_load;
    double mean_kicks;
    uint64_t lost;
} report_bucket_row;

/* Phase 9: informative timings; never in the CSV or JSON. */
typedef struct report_speed {
    double cuckoo_insert_ns;
    double cuckoo_lookup_ns;
    bool has_semi; /* the requested width has a semi-sorted row */
    double semi_insert_ns;
    double semi_lookup_ns;
    double bloom_insert_ns;
    double bloom_lookup_ns;
} report_speed;

typedef struct report {
    report_params params;
    report_fill fill;
    report_compare compare;
    report_bucket_row buckets[REPORT_BUCKET_ROWS];
    report_speed speed;
    bool show_progress; /* stderr is a terminal */
} report;

/* ---- report_util.c ---- */

/* The bytes of key number `index`.  Members and non-members come from
 * disjoint inputs of a bijection, so no non-member equals a member. */
void report_key(uint64_t seed, uint64_t index, bool member, unsigned char out[8]);

/* hits out of trials, with its 95% Wilson score interval. */
report_rate report_rate_of(uint64_t hits, uint64_t trials);

/* The smallest v with at least 99% of the counts at or below it. */
uint64_t report_p99(const uint64_t *histogram, size_t len);

/* Monotonic time in nanoseconds. */
double report_now_ns(void);

/* Shows "phase: done/total" on stderr, rewriting the line, when r->show_progress;
 * done == total ends the line.  Cheap to call often: it prints only now and then. */
void report_progress(const report *r, const char *phase, uint64_t done, uint64_t total);

/* True when the parameters are the article's, so its figures can be shown
 * beside ours (the seed may differ: the article's keys were its own). */
bool report_is_article_setup(const report_params *p);

/* True when semi-sorted buckets exist for bucket size b and width f. */
bool report_semi_supported(unsigned bucket_size, unsigned fbits);

/* A filter of the report's shape with f-bit fingerprints and cf_config.flags
 * `flags` (0 or CF_SEMI_SORT); prints the error. */
cf_status report_new_filter(const report *r, unsigned fbits, unsigned bucket_size, uint64_t buckets,
                            unsigned flags, cf_filter **out);

/* ---- the phases: 0 on success, else a CLI exit code after printing why ---- */
int report_run_fill(report *r);
int report_run_compare(report *r);
int report_run_buckets(report *r);

/* ---- report_run.c ---- */

/* Runs every phase with parameters p, prints the result on stdout in
 * p->format and writes the charts to p->plot_dir (if set).  Returns 0, 1
 * when the library lost an item (a bug, said on stderr), or CLI_ERROR after
 * printing why a phase could not run. */
int report_run(const report_params *p);

/* ---- output ---- */

/* Receives the machine-readable numbers in order: a section, optionally rows
 * (each introduced by its key), and named values already formatted (NULL:
 * no value, e.g. a crossover that does not exist). */
typedef struct report_sink {
    void (*section)(void *ctx, const char *name, bool has_rows);
    void (*row)(void *ctx, const char *key, const char *value);
    void (*field)(void *ctx, const char *name, const char *value, bool is_text);
    void (*end)(void *ctx);
    void *ctx;
} report_sink;

void report_fields(const report *r, const report_sink *sink);
void report_write_csv(const report *r, FILE *out);
void report_write_json(const report *r, FILE *out);
void report_write_text(const report *r, FILE *out);

/* Writes DIR/report.csv, the chart data and script, and runs gnuplot.
 * Returns 0, or CLI_ERROR when DIR cannot be written (a missing gnuplot is
 * only a note on stderr: the data is there to plot later). */
int report_plot(const report *r, const char *dir);

#endif /* CF_REPORT_H */
