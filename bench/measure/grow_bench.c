/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * grow_bench.c -- the price of not knowing n: lookups on a CF_GROW filter
 * that grew from one table to eight, against one table sized for the same
 * items from the start, in the same run (docs/BENCHMARKS.md, "Growth").
 *
 *   cf-grow-bench [N]     N items (default 4,000,000), target FPP 1%
 *
 * The grown filter starts at capacity N / 200, so that N items fill seven
 * tables and part of the eighth (1 + 2 + ... + 64 = 127 times the first,
 * then 128).  Prints, for each filter: bits per item, the measured FPP and
 * its bound, and the median ns per lookup over 5 rounds of N present keys
 * and N absent keys, single (cf_contains) and batched (cf_contains_batch
 * on hashes); then the grown/single ratios.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/bench_util.h"
#include "cuckoofilter.h"

#define ROUNDS 5

typedef struct result {
    double bits_per_item, fpp, bound, ns[4]; /* present, absent, batch present, batch absent */
    unsigned tables;
} result;

static double time_single(const cf_filter *f, const uint64_t *keys, size_t n) {
    double t[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t hits = 0;
        double t0 = bench_now_ns();
        for (size_t i = 0; i < n; i++) hits += cf_contains(f, &keys[i], sizeof keys[i]);
        t[r] = (bench_now_ns() - t0) / (double)n;
        bench_sink += hits;
    }
    return bench_median(t, ROUNDS);
}

static double time_batch(const cf_filter *f, const uint64_t *hashes, size_t n) {
    double t[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = bench_now_ns();
        bench_sink += cf_contains_batch(f, hashes, n, NULL);
        t[r] = (bench_now_ns() - t0) / (double)n;
    }
    return bench_median(t, ROUNDS);
}

static int measure(cf_filter *f, const uint64_t *present, const uint64_t *absent, size_t n,
                   result *out) {
    for (size_t i = 0; i < n; i++)
        if (cf_insert(f, &present[i], sizeof present[i]) != CF_OK)
            return fprintf(stderr, "insert %zu failed\n", i), 1;
    cf_stats st;
    cf_get_stats(f, &st);
    out->bits_per_item = st.bits_per_item;
    out->bound = st.fpp_bound;
    out->tables = st.tables;
    uint64_t fp = 0;
    for (size_t i = 0; i < n; i++) fp += cf_contains(f, &absent[i], sizeof absent[i]);
    out->fpp = (double)fp / (double)n;
    uint64_t *hp = malloc(n * sizeof *hp), *ha = malloc(n * sizeof *ha);
    if (hp == NULL || ha == NULL) return fprintf(stderr, "out of memory\n"), 1;
    for (size_t i = 0; i < n; i++) {
        hp[i] = cf_hash(f, &present[i], sizeof present[i]);
        ha[i] = cf_hash(f, &absent[i], sizeof absent[i]);
    }
    out->ns[0] = time_single(f, present, n);
    out->ns[1] = time_single(f, absent, n);
    out->ns[2] = time_batch(f, hp, n);
    out->ns[3] = time_batch(f, ha, n);
    free(hp), free(ha);
    return 0;
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 4000000;
    if (n < 1000) return fprintf(stderr, "usage: cf-grow-bench [N >= 1000]\n"), 2;
    uint64_t *present = malloc(n * sizeof *present), *absent = malloc(n * sizeof *absent);
    if (present == NULL || absent == NULL) return fprintf(stderr, "out of memory\n"), 1;
    uint64_t s = 42;
    for (size_t i = 0; i < n; i++) present[i] = bench_splitmix64(&s);
    for (size_t i = 0; i < n; i++) absent[i] = bench_splitmix64(&s);

    cf_config single, grown;
    cf_config_init(&single);
    single.capacity = n;
    single.target_fpp = 0.01;
    grown = single;
    grown.capacity = n / 200;
    grown.flags = CF_GROW;
    cf_filter *fs, *fg;
    if (cf_new(&single, &fs) != CF_OK || cf_new(&grown, &fg) != CF_OK)
        return fprintf(stderr, "cannot create the filters\n"), 1;
    result rs, rg;
    if (measure(fs, present, absent, n, &rs) || measure(fg, present, absent, n, &rg)) return 1;

    printf("%zu items, target FPP 1%%\n", n);
    printf("%-8s %6s %9s %9s %9s %10s %10s %10s %10s\n", "filter", "tables", "bits/item", "fpp",
           "bound", "hit ns", "miss ns", "batch hit", "batch miss");
    const result *r[2] = {&rs, &rg};
    const char *names[2] = {"single", "grown"};
    for (int i = 0; i < 2; i++)
        printf("%-8s %6u %9.2f %9.5f %9.5f %10.1f %10.1f %10.1f %10.1f\n", names[i], r[i]->tables,
               r[i]->bits_per_item, r[i]->fpp, r[i]->bound, r[i]->ns[0], r[i]->ns[1], r[i]->ns[2],
               r[i]->ns[3]);
    printf("grown/single: bits %.2fx, hit %.2fx, miss %.2fx, batch hit %.2fx, batch miss %.2fx\n",
           rg.bits_per_item / rs.bits_per_item, rg.ns[0] / rs.ns[0], rg.ns[1] / rs.ns[1],
           rg.ns[2] / rs.ns[2], rg.ns[3] / rs.ns[3]);
    cf_free(fs), cf_free(fg);
    free(present), free(absent);
    return 0;
}
