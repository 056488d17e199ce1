/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * bench.h -- what cf-bench's parts share: the filters and metrics measured,
 * the samples of one case (one N, one fingerprint width), and the printers.
 *
 * A case runs every implementation `reps` times on the same keys and keeps
 * every sample; the report shows medians and the ratios between them.
 */
#ifndef CF_BENCH_H
#define CF_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_MAX_REPS 31

/* The implementations measured side by side. */
typedef enum bench_impl {
    IMPL_OURS,  /* libcuckoofilter through the public API            */
    IMPL_SEMI,  /* the same with CF_SEMI_SORT (b = 4, f = 5..16)     */
    IMPL_REF,   /* reference/ref_cuckoo.c, the paper's code          */
    IMPL_BLOOM, /* cf_bloom_* with the same number of bits           */
    IMPL_PROBE, /* the memory-latency probe (mem_probe.c)            */
    IMPL_COUNT
} bench_impl;

/* ns per operation; the probe's three figures are ns per read or pair. */
typedef enum bench_metric {
    M_INSERT,       /* inserts filling the table to the target load         */
    M_INSERT_BATCH, /* the same fill by cf_insert_batch, hashing included */
    M_POS,          /* lookups of inserted keys                             */
    M_NEG,          /* lookups of keys never inserted                       */
    M_MIXED,        /* lookups, 50% inserted keys, randomly interleaved     */
    M_MIXED_HASH,   /* the mixed lookups on precomputed hashes, one by one  */
    M_BATCH,        /* the same hashes through cf_contains_batch            */
    M_DELETE,       /* deletes of inserted keys                             */
    M_DEPENDENT,    /* probe: dependent random line reads                   */
    M_RANDOM1,      /* probe: independent random lines, many in flight      */
    M_RANDOM2,      /* probe: pairs of independent random lines             */
    M_PAGE2,        /* probe: pairs of random lines sharing a 4 KiB page    */
    M_COUNT
} bench_metric;

/* Sizes and accuracy of one implementation in a case: deterministic for a
 * seed, so the last repetition's values are kept. */
typedef struct bench_facts {
    bool present;
    uint64_t items;           /* items stored after the fill                 */
    uint64_t num_buckets;     /* 0 for Bloom and the probe                   */
    size_t table_bytes;       /* bytes of the table (or bit array, array)    */
    double bits_per_item;     /* table bits / items                          */
    double fpp;               /* measured on the negative lookups            */
    uint64_t failed_inserts;  /* inserts that did not store the key          */
    uint64_t false_negatives; /* positive lookups answered false             */
    uint64_t failed_deletes;  /* deletes of inserted keys that failed        */
    uint64_t kicks;           /* fingerprints moved while filling            */
    unsigned num_hashes;      /* Bloom's k                                   */
    size_t huge_bytes;        /* probe: bytes on transparent huge pages      */
} bench_facts;

typedef struct bench_case {
    uint64_t n; /* N: the capacity the filter is sized for     */
    unsigned fp_bits;
    unsigned bucket_size;
    unsigned reps;
    double samples[IMPL_COUNT][M_COUNT][BENCH_MAX_REPS]; /* NaN = not measured */
    uint64_t ops[IMPL_COUNT][M_COUNT];                   /* operations timed   */
    bench_facts facts[IMPL_COUNT];
} bench_case;

extern const char *const bench_impl_names[IMPL_COUNT];
extern const char *const bench_metric_names[M_COUNT];

/* Median of the case's samples for (impl, metric); NaN when not measured. */
double bench_case_median(const bench_case *c, bench_impl impl, bench_metric m);

/* The human-readable table of one case, with ratios and the targets. */
void bench_print_case(FILE *out, const bench_case *c);

/* CSV: one header line, then one line per (case, impl, metric or fact). */
void bench_csv_header(FILE *out);
void bench_csv_case(FILE *out, const bench_case *c);

#endif /* CF_BENCH_H */
