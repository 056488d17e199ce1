/*
 * test_load.c -- the default max_load for each bucket size really holds:
 * with the default eviction budget, tables of many sizes (powers of two,
 * primes, and other sizes that are neither)
 * reach at least cf_default_max_load(b) before the first failed insert, that
 * failure loses nothing, and a filter sized from capacity + target FPP holds
 * its capacity for every bucket size, however loose the FPP.
 */
#include "test.h"

#include "cf_internal.h"

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
        const uint64_t buckets[] = {16384 / b, 10007 * 4 / b, 4097 / b, 12289 / b, 20002 / b, 9 * 1027 / b};
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

/* Sized from capacity and a target FPP, a filter takes `capacity` distinct
 * items, even when a loose FPP asks for narrow fingerprints. */
static void test_sized_filters_hold_their_capacity(void) {
    static const unsigned sizes[] = {1, 2, 4, 8};
    static const uint64_t capacities[] = {1000, 50000, 300000};
    static const double fpps[] = {0.5, 0.2, 0.05, 0.01, 0.001};
    unsigned short_runs = 0;
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < (quick() ? 1u : 3u); j++)
            for (size_t k = 0; k < (quick() ? 5u : 5u * 3); k++) { /* 5 FPPs x 3 seeds */
                cf_config cfg;
                cf_config_init(&cfg);
                cfg.bucket_size = sizes[i];
                cfg.capacity = capacities[j];
                cfg.target_fpp = fpps[k % 5];
                cfg.seed = i * 1000 + j * 100 + k;
                cf_filter *f;
                REQUIRE(cf_new(&cfg, &f) == CF_OK);
                uint64_t n = 0;
                while (n < capacities[j] && cf_insert(f, &n, sizeof n) == CF_OK) n++;
                if (n < capacities[j]) {
                    fprintf(stderr, "b=%u capacity=%llu fpp=%g: full after %llu items\n", sizes[i],
                            (unsigned long long)capacities[j], fpps[k % 5], (unsigned long long)n);
                    short_runs++;
                }
                cf_free(f);
            }
    CHECK_EQ(short_runs, 0);
}

/* Large tables: the width floors stop growing (config.c measured where),
 * so a loose target at a billion items costs no more than 10 or 11 bits. */
static void test_floor_caps_for_large_tables(void) {
    static const struct { unsigned b, want; } cases[] = {{2, 10}, {4, 10}, {8, 11}};
    for (size_t i = 0; i < 3; i++) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.bucket_size = cases[i].b;
        cfg.capacity = 1000000000;
        cfg.target_fpp = 0.3; /* asks for only a few bits */
        unsigned fbits, b, max_kicks;
        uint64_t nb;
        REQUIRE(cf__resolve_config(&cfg, &fbits, &b, &nb, &max_kicks) == CF_OK);
        CHECK_EQ(fbits, cases[i].want);
    }
}

TEST_MAIN(TEST(test_default_max_load_holds), TEST(test_sized_filters_hold_their_capacity),
          TEST(test_floor_caps_for_large_tables))
