/*
 * test_load.c -- the default max_load for each bucket size really holds:
 * with the default eviction budget, filling random keys into tables of
 * several sizes (powers of two or not) reaches at least cf_default_max_load(b)
 * before the first failed insert, and that failure loses nothing.
 */
#include "test.h"

#include "cuckoofilter.h"

static double fill_to_failure(unsigned b, uint64_t nb, uint64_t seed) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.bucket_size = b;
    cfg.num_buckets = nb;
    cfg.fingerprint_bits = 16;
    cfg.seed = seed;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    uint64_t n = 0;
    while (cf_insert(f, &n, sizeof n) == CF_OK) n++;
    uint64_t lost = 0;
    for (uint64_t k = 0; k < n; k++) lost += !cf_contains(f, &k, sizeof k);
    CHECK_EQ(lost, 0);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_EQ(st.items, n);
    CHECK_EQ(st.failed_inserts, 1);
    cf_free(f);
    return (double)n / (double)(nb * b);
}

static void test_default_max_load_holds(void) {
    static const unsigned sizes[] = {1, 2, 4, 8};
    static const uint64_t buckets[] = {4096, 10007, 65536};
    for (size_t i = 0; i < 4; i++) {
        double worst = 1.0;
        for (size_t j = 0; j < 3; j++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                double load = fill_to_failure(sizes[i], buckets[j] / sizes[i] * 4, seed);
                if (load < worst) worst = load;
            }
        printf("b=%u: lowest load at first failure %.4f (default max_load %.2f)\n", sizes[i],
               worst, cf_default_max_load(sizes[i]));
        CHECK(worst >= cf_default_max_load(sizes[i]));
    }
}

TEST_MAIN(TEST(test_default_max_load_holds))
