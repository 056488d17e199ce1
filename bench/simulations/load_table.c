/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * load_table.c -- cf-load-table: how full a table gets before its first
 * failed insert, per bucket size b, fingerprint width f and table size,
 * with the default eviction budget: the table in docs/C-API.md, "Sizing".
 *
 *   cf-load-table [--buckets LIST] [--seeds N]
 *
 * Each cell is the lowest load over N seeds (default 2) of a table of nb
 * buckets filled with random 64-bit hashes until the first CF_E_FULL.
 * The result depends only on the library and the seeds, not on the machine.
 */
#include <cuckoofilter.h>

#include "common/bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double first_failure_load(unsigned b, unsigned f, uint64_t nb, uint64_t seed) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.bucket_size = b;
    cfg.fingerprint_bits = f;
    cfg.num_buckets = nb;
    cfg.seed = seed;
    cf_filter *flt;
    cf_status s = cf_new(&cfg, &flt);
    if (s != CF_OK) {
        fprintf(stderr, "cf-load-table: cf_new: %s\n", cf_strerror(s));
        exit(1);
    }
    uint64_t rng = seed * 0x2545f4914f6cdd1dull + 1, n = 0;
    while (cf_insert_hash(flt, bench_splitmix64(&rng)) == CF_OK) n++;
    cf_free(flt);
    return (double)n / ((double)nb * b);
}

int main(int argc, char **argv) {
    uint64_t buckets[8] = {1ull << 16, 1ull << 22};
    size_t nbuckets = 2;
    unsigned seeds = 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
            seeds = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--buckets") == 0 && i + 1 < argc) {
            nbuckets = 0;
            for (char *t = strtok(argv[++i], ","); t != NULL && nbuckets < 8; t = strtok(NULL, ","))
                buckets[nbuckets++] = strtoull(t, NULL, 0);
        } else {
            fprintf(stderr, "usage: cf-load-table [--buckets N,N,...] [--seeds N]\n");
            return 2;
        }
    }
    if (seeds == 0 || nbuckets == 0) return 2;
    static const struct {
        unsigned b, f;
    } rows[] = {{2, 5}, {2, 6}, {2, 7},  {2, 8}, {4, 4}, {4, 5}, {4, 6}, {4, 7},
                {4, 8}, {4, 9}, {4, 12}, {8, 4}, {8, 5}, {8, 6}, {8, 7}, {8, 8}};
    printf("| b | f |");
    for (size_t j = 0; j < nbuckets; j++) printf(" %llu buckets |", (unsigned long long)buckets[j]);
    printf("\n|---|---|");
    for (size_t j = 0; j < nbuckets; j++) printf("---|");
    printf("\n");
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        printf("| %u | %u |", rows[r].b, rows[r].f);
        for (size_t j = 0; j < nbuckets; j++) {
            double worst = 1.0;
            for (unsigned s = 1; s <= seeds; s++) {
                double load = first_failure_load(rows[r].b, rows[r].f, buckets[j], s);
                if (load < worst) worst = load;
            }
            printf(" %.1f%% |", 100.0 * worst);
            fflush(stdout);
        }
        printf("\n");
    }
    return 0;
}
