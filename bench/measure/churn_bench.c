/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * churn_bench.c -- issue 48's bounds measured: churn of a bounded set of
 * live keys on a CF_GROW chain (docs/BENCHMARKS.md, "Churn").
 *
 *   cf-churn [N] [CYCLES] [CAPACITY]   defaults 65,536 keys, 200 cycles,
 *                                      a chain created for 1,000 at 1%
 *
 * Fills the chain with N keys, then runs CYCLES delete-all / insert-all
 * cycles and prints, for the first and the last cycle and every tenth
 * between, the memory (cf_memory_usage), the tables, the inserts refused,
 * the copies stored after the deletes (what the deletes could not yet
 * reclaim) and after the inserts, and ns per delete and per insert.  Then
 * the pairs load: 100 keys added and deleted 1,000 times each, memory and
 * tables before and after.  Last, deletes of keys that never come back:
 * every key deleted once more, and the copies left.  Keys: splitmix64
 * outputs of their index.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/bench_util.h"
#include "cuckoofilter.h"

static cf_stats stats_of(const cf_filter *f) {
    cf_stats st;
    cf_get_stats(f, &st);
    return st;
}

static uint64_t key_at(uint64_t i) {
    uint64_t state = i;
    return bench_splitmix64(&state);
}

/* Inserts keys [0, n) and returns the refusals; ns per insert in *ns. */
static uint64_t insert_all(cf_filter *f, uint64_t n, double *ns) {
    uint64_t refused = 0;
    double t0 = bench_now_ns();
    for (uint64_t i = 0; i < n; i++) refused += cf_insert_u64(f, key_at(i)) != CF_OK;
    *ns = (bench_now_ns() - t0) / (double)n;
    return refused;
}

static uint64_t delete_all(cf_filter *f, uint64_t n, double *ns) {
    uint64_t failed = 0;
    double t0 = bench_now_ns();
    for (uint64_t i = 0; i < n; i++) failed += cf_delete_u64(f, key_at(i)) != CF_OK;
    *ns = (bench_now_ns() - t0) / (double)n;
    return failed;
}

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 65536;
    unsigned cycles = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 200;
    uint64_t capacity = argc > 3 ? strtoull(argv[3], NULL, 0) : 1000;
    if (n == 0 || cycles == 0 || capacity == 0) {
        fprintf(stderr, "usage: cf-churn [N] [CYCLES] [CAPACITY]\n");
        return 2;
    }
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.flags = CF_GROW;
    cfg.capacity = capacity;
    cfg.target_fpp = 0.01;
    cfg.growth = 2;
    cf_filter *f;
    if (cf_new(&cfg, &f) != CF_OK) return 1;
    double ins_ns, del_ns;
    uint64_t refused = insert_all(f, n, &ins_ns);
    printf("chain for %" PRIu64 " at 1%%, growth 2, fed %" PRIu64 " keys: %u tables, %zu bytes, "
           "%" PRIu64 " refused\n",
           capacity, n, stats_of(f).tables, cf_memory_usage(f), refused);
    printf("%6s %12s %6s %8s %14s %14s %9s %9s\n", "cycle", "memory B", "tables", "refused",
           "left deleted", "after insert", "del ns", "ins ns");
    uint64_t failed = 0;
    size_t first = 0;
    for (unsigned c = 1; c <= cycles; c++) {
        failed += delete_all(f, n, &del_ns);
        uint64_t left = stats_of(f).items;
        refused += insert_all(f, n, &ins_ns);
        if (c == 1) first = cf_memory_usage(f);
        if (c == 1 || c == cycles || c % 10 == 0)
            printf("%6u %12zu %6u %8" PRIu64 " %14" PRIu64 " %14" PRIu64 " %9.1f %9.1f\n", c,
                   cf_memory_usage(f), stats_of(f).tables, refused, left, stats_of(f).items, del_ns,
                   ins_ns);
    }
    printf("memory after the last cycle / after the first: %.4f; deletes refused: %" PRIu64 "\n",
           (double)cf_memory_usage(f) / (double)first, failed);
    size_t memory = cf_memory_usage(f);
    unsigned tables = stats_of(f).tables;
    uint64_t pair_refused = 0;
    for (unsigned r = 0; r < 1000; r++)
        for (uint64_t j = 0; j < 100; j++) {
            pair_refused += cf_insert_u64(f, key_at(n + j)) != CF_OK;
            pair_refused += cf_delete_u64(f, key_at(n + j)) != CF_OK;
        }
    printf("100 keys x 1,000 add/delete pairs: memory %zu -> %zu, tables %u -> %u, refused %" PRIu64
           "\n",
           memory, cf_memory_usage(f), tables, stats_of(f).tables, pair_refused);
    failed = delete_all(f, n, &del_ns);
    printf("every key deleted for good: %" PRIu64 " copies left of %" PRIu64 " (%.3f%%), memory "
           "%zu, deletes refused %" PRIu64 "\n",
           stats_of(f).items, n, 100.0 * (double)stats_of(f).items / (double)n, cf_memory_usage(f),
           failed);
    cf_free(f);
    return 0;
}
