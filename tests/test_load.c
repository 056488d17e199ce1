/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_load.c -- the default max_load for each bucket size really holds:
 * with the default eviction budget, tables of many sizes (powers of two,
 * primes, and other sizes that are neither)
 * reach at least cf_default_max_load(b) before the first failed insert, that
 * failure loses nothing, and a filter sized from capacity + target FPP holds
 * its capacity and meets its FPP for every bucket size, however loose the
 * FPP, while its derived width follows the FPP (no wider than it asks).
 */
#include "test.h"

#include <math.h>

#include "table/layout.h"

/* CF_TEST_QUICK=1 (the memcheck run, tests/CMakeLists.txt): one seed and
 * fewer sizes, so valgrind finishes in seconds; the claims are the same. */
static bool quick(void) {
    const char *q = getenv("CF_TEST_QUICK");
    return q != NULL && strcmp(q, "1") == 0;
}

static double fill_to_failure(unsigned b, unsigned f, uint64_t nb, uint64_t seed) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.bucket_size = b;
    cfg.num_buckets = nb;
    cfg.fingerprint_bits = f;
    cfg.seed = seed;
    cf_filter *flt;
    REQUIRE(cf_new(&cfg, &flt) == CF_OK);
    uint64_t n = 0;
    while (cf_insert(flt, &n, sizeof n) == CF_OK) n++;
    uint64_t lost = 0;
    for (uint64_t k = 0; k < n; k++) lost += !cf_contains(flt, &k, sizeof k);
    CHECK_EQ(lost, 0);
    cf_stats st;
    cf_get_stats(flt, &st);
    CHECK_EQ(st.items, n);
    CHECK_EQ(st.failed_inserts, 1);
    cf_free(flt);
    return (double)n / (double)(nb * b);
}

static void test_default_max_load_holds(void) {
    static const unsigned sizes[] = {1, 2, 4, 8};
    for (size_t i = 0; i < 4; i++) {
        unsigned b = sizes[i];
        /* 16K slots, a prime, odd and even sizes without a power of two. */
        const uint64_t buckets[] = {16384 / b, 10007 * 4 / b, 4097 / b,
                                    12289 / b, 20002 / b,     9 * 1027 / b};
        double worst = 1.0;
        size_t tables = quick() ? 2 : sizeof buckets / sizeof *buckets;
        for (size_t j = 0; j < tables; j++)
            for (uint64_t seed = 1; seed <= (quick() ? 1u : 3u); seed++) {
                double load = fill_to_failure(b, 16, buckets[j], seed);
                if (load < worst) worst = load;
            }
        printf("b=%u: lowest load at first failure %.4f (default max_load %.2f)\n", b, worst,
               cf_default_max_load(b));
        CHECK(worst >= cf_default_max_load(b));
    }
}

/* Fills a filter sized from (b, capacity, fpp) with `capacity` distinct
 * keys, then looks up `probes` absent keys: the filter must hold every key
 * and its measured FPP must stay within the target (plus 5 binomial sigma
 * of measurement noise).  Returns the bits per item it used. */
static double sized_fill(unsigned b, uint64_t capacity, double fpp, uint64_t seed,
                         uint64_t probes) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.bucket_size = b;
    cfg.capacity = capacity;
    cfg.target_fpp = fpp;
    cfg.seed = seed;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    uint64_t n = 0;
    while (n < capacity && cf_insert(f, &n, sizeof n) == CF_OK) n++;
    if (n < capacity)
        fprintf(stderr, "b=%u capacity=%llu fpp=%g: full after %llu items\n", b,
                (unsigned long long)capacity, fpp, (unsigned long long)n);
    CHECK_EQ(n, capacity);
    uint64_t hits = 0;
    for (uint64_t k = capacity; k < capacity + probes; k++) hits += cf_contains(f, &k, sizeof k);
    double sigma = sqrt(fpp * (1 - fpp) / (double)probes);
    double measured = (double)hits / (double)probes;
    if (measured > fpp + 5 * sigma)
        fprintf(stderr, "b=%u capacity=%llu fpp=%g: measured FPP %g\n", b,
                (unsigned long long)capacity, fpp, measured);
    CHECK(measured <= fpp + 5 * sigma);
    cf_stats st;
    cf_get_stats(f, &st);
    cf_free(f);
    return st.bits_per_item;
}

/* Sized from capacity and a target FPP, a filter takes `capacity` distinct
 * items and meets its FPP, for every bucket size, from tight targets to
 * loose ones that ask for narrow fingerprints, up to ten million items. */
static void test_sized_filters_hold_their_capacity(void) {
    static const double fpps[] = {1e-4, 1e-3, 0.01, 0.03, 0.1, 0.2};
    static const uint64_t caps4[] = {1000, 10000, 100000, 1000000};
    static const uint64_t caps[] = {1000, 50000, 300000};
    static const unsigned sizes[] = {1, 2, 8};
    for (size_t j = 0; j < (quick() ? 2u : 4u); j++)
        for (size_t k = 0; k < 6; k++) sized_fill(4, caps4[j], fpps[k], j * 10 + k, 200000);
    if (!quick()) {
        sized_fill(4, 10000000, 0.2, 77, 200000);
        sized_fill(4, 10000000, 1e-4, 78, 1000000);
    }
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < (quick() ? 1u : 3u); j++)
            for (size_t k = 0; k < 6; k++)
                sized_fill(sizes[i], caps[j], fpps[k], i * 1000 + j * 100 + k, 100000);
}

/* The derived width follows the target: with the default bucket size it
 * is ceil(log2(2b / fpp)) (never below 5 bits) at any capacity, so a
 * million items cost 9.5 bits each at FPP 3%, 10.6 at 1%, 13.7 at 0.1%
 * (9, 10 and 13-bit fingerprints at load 0.95). */
static void test_widths_follow_the_target(void) {
    static const struct {
        double fpp, max_bits;
    } cases[] = {{0.03, 9.5}, {0.01, 10.6}, {0.001, 13.7}};
    for (size_t i = 0; i < (quick() ? 0u : 3u); i++) {
        double bits = sized_fill(4, 1000000, cases[i].fpp, 100 + i, 500000);
        printf("capacity 1M, FPP %g: %.2f bits/item (at most %.1f)\n", cases[i].fpp, bits,
               cases[i].max_bits);
        CHECK(bits <= cases[i].max_bits);
    }
    static const uint64_t capacities[] = {1000, 1000000, 1000000000, 100000000000ull};
    static const double fpps[] = {0.5, 0.2, 0.03, 0.01, 1e-3, 1e-6};
    for (size_t c = 0; c < 4; c++)
        for (size_t k = 0; k < 6; k++) {
            cf_config cfg;
            cf_config_init(&cfg);
            cfg.capacity = capacities[c];
            cfg.target_fpp = fpps[k];
            unsigned fbits, b, max_kicks;
            uint64_t nb;
            REQUIRE(cf__resolve_config(&cfg, &fbits, &b, &nb, &max_kicks) == CF_OK);
            unsigned want = (unsigned)ceil(log2(2.0 * b / fpps[k]));
            CHECK_EQ(fbits, want < 5 ? 5 : want);
        }
}

TEST_MAIN(TEST(test_default_max_load_holds), TEST(test_sized_filters_hold_their_capacity),
          TEST(test_widths_follow_the_target))
