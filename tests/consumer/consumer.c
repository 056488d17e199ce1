/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * consumer.c -- a program written only against the installed header and
 * DESIGN.md's names, built with `pkg-config --cflags --libs cuckoofilter`
 * (install_check.sh) and by CMake projects (cmake_check.sh).
 * It checks the invariants on random workloads of non-power-of-two sizes,
 * filling to failure, and exits non-zero on the first violation.  (The
 * byte-for-byte "a failed insert changes nothing" check needs the internal
 * table and lives in tests/test_model.c; here a failure must keep the item
 * count and every stored item.)
 */
#include <cuckoofilter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), exit(1))

static uint64_t next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void workload(uint64_t nb, unsigned b, unsigned fbits, uint64_t seed) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.num_buckets = nb;
    cfg.bucket_size = b;
    cfg.fingerprint_bits = fbits;
    cfg.seed = seed;
    cf_filter *f;
    if (cf_new(&cfg, &f) != CF_OK) FAIL("cf_new");
    uint64_t universe = nb * b * 2;
    unsigned *count = calloc(universe, sizeof *count);
    uint64_t rng = seed, failures = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t k = next(&rng) % universe;
        if (next(&rng) % 3 != 0) {
            cf_stats before, after;
            cf_get_stats(f, &before);
            cf_status s = cf_insert(f, &k, sizeof k);
            if (s == CF_OK) {
                count[k]++;
                continue;
            }
            if (s != CF_E_FULL) FAIL("insert: %s", cf_strerror(s));
            cf_get_stats(f, &after);
            if (after.items != before.items || after.total_kicks != before.total_kicks)
                FAIL("a failed insert changed the filter");
            if (failures++ % 1000 == 0)
                for (uint64_t j = 0; j < universe; j++)
                    if (count[j] && !cf_contains(f, &j, sizeof j))
                        FAIL("item lost by a failed insert");
        } else if (count[k] > 0) {
            if (cf_delete(f, &k, sizeof k) != CF_OK) FAIL("delete of a present item failed");
            count[k]--;
        }
    }
    uint64_t present = 0;
    for (uint64_t k = 0; k < universe; k++) {
        if (count[k] == 0) continue;
        present += count[k];
        if (!cf_contains(f, &k, sizeof k)) FAIL("false negative (nb=%llu)", (unsigned long long)nb);
        if (cf_count(f, &k, sizeof k) < count[k]) FAIL("count below copies stored");
    }
    cf_stats st;
    cf_get_stats(f, &st);
    if (st.items != present)
        FAIL("items %llu != %llu", (unsigned long long)st.items, (unsigned long long)present);
    if (st.failed_inserts == 0) FAIL("the workload should have filled the filter");
    free(count);
    cf_free(f);
}

int main(int argc, char **argv) {
    workload(1, 4, 12, 1);
    workload(3, 2, 7, 2);
    /* --quick: the two tiny tables only, for the tests that check a build
     * system links the library (cmake_check.sh), not the library itself. */
    if (argc > 1 && strcmp(argv[1], "--quick") == 0) {
        printf("consumer --quick: %s, invariants hold\n", cf_version_string());
        return 0;
    }
    workload(1001, 4, 12, 3);
    workload(4099, 8, 13, 4);
    workload(777, 1, 31, 5);
    printf("consumer: %s, all invariants hold\n", cf_version_string());
    return 0;
}
