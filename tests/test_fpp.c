/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_fpp.c -- measured false-positive rates against theory.
 *
 * The number of false positives among Q independent non-member queries is
 * Binomial(Q, p).  A test passes when the count lies within z standard
 * deviations of Q*p, with z = 5: a correct filter fails such a check with
 * probability below 1e-6, while a wrong formula or a biased hash (off by
 * 20% or more at these Q) fails it.  Seeds are fixed, so runs are repeatable.
 */
#include <math.h>

#include "test.h"

#include "cuckoofilter.h"

#define Z 5.0

static void check_binomial(const char *what, uint64_t hits, uint64_t q, double p) {
    double mean = q * p, sd = sqrt(q * p * (1 - p));
    double lo = mean - Z * sd, hi = mean + Z * sd;
    if (!(hits >= lo && hits <= hi)) {
        fprintf(stderr, "%s: %llu false positives of %llu, expected %.1f in [%.1f, %.1f]\n", what,
                (unsigned long long)hits, (unsigned long long)q, mean, lo, hi);
        CHECK(false);
    }
}

static void cuckoo_case(unsigned f, unsigned b, uint64_t nb, double load, uint64_t q) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.fingerprint_bits = f;
    cfg.bucket_size = b;
    cfg.num_buckets = nb;
    cfg.seed = 1234 + f;
    cf_filter *flt;
    REQUIRE(cf_new(&cfg, &flt) == CF_OK);
    uint64_t n = (uint64_t)(load * nb * b);
    for (uint64_t k = 0; k < n; k++) REQUIRE(cf_insert(flt, &k, sizeof k) == CF_OK);
    cf_stats st;
    cf_get_stats(flt, &st);
    CHECK_EQ(st.items, n);
    uint64_t hits = 0;
    for (uint64_t k = n; k < n + q; k++) hits += cf_contains(flt, &k, sizeof k);
    char what[64];
    snprintf(what, sizeof what, "cuckoo f=%u b=%u", f, b);
    check_binomial(what, hits, q, cf_theoretical_fpp(f, b, st.load_factor));
    CHECK_DBL_NEAR(st.expected_fpp, cf_theoretical_fpp(f, b, st.load_factor), 1e-15);
    /* The simple bound of the article holds too. */
    CHECK(hits <=
          q * (2.0 * b / ldexp(1.0, (int)f)) * 1.1 + Z * sqrt(q * 2.0 * b / ldexp(1.0, (int)f)));
    cf_free(flt);
}

static void test_cuckoo_fpp(void) {
    cuckoo_case(6, 4, 3001, 0.95, 200000);
    cuckoo_case(8, 4, 16384, 0.95, 400000);
    cuckoo_case(12, 4, 16384, 0.95, 1000000);
    cuckoo_case(8, 2, 10007, 0.80, 400000);
    cuckoo_case(6, 8, 2000, 0.95, 200000);
    cuckoo_case(10, 1, 20011, 0.40, 400000);
}

static void bloom_case(uint64_t bits, uint64_t n, uint64_t q) {
    cf_bloom_config cfg;
    cf_bloom_config_init(&cfg);
    cfg.num_bits = bits;
    cfg.capacity = n;
    cfg.seed = 99;
    cf_bloom *b;
    REQUIRE(cf_bloom_new(&cfg, &b) == CF_OK);
    for (uint64_t k = 0; k < n; k++) cf_bloom_insert(b, &k, sizeof k);
    uint64_t fn = 0;
    for (uint64_t k = 0; k < n; k++) fn += !cf_bloom_contains(b, &k, sizeof k);
    CHECK_EQ(fn, 0);
    cf_bloom_stats st;
    cf_bloom_get_stats(b, &st);
    CHECK_EQ(st.num_hashes, cf_bloom_optimal_k(bits, n));
    uint64_t hits = 0;
    for (uint64_t k = n; k < n + q; k++) hits += cf_bloom_contains(b, &k, sizeof k);
    check_binomial("bloom", hits, q, st.expected_fpp);
    cf_bloom_free(b);
}

static void test_bloom_fpp(void) {
    /* 8.42, 12.63 and 16.84 bits per item: the article's comparison points. */
    bloom_case(65536ull * 4 * 8, 249036, 500000);
    bloom_case(65536ull * 4 * 12, 249036, 1000000);
    bloom_case(100003, 10000, 400000);
}

static void test_bloom_from_capacity(void) {
    cf_bloom_config cfg;
    cf_bloom_config_init(&cfg);
    cfg.capacity = 50000;
    cfg.target_fpp = 0.01;
    cf_bloom *b;
    REQUIRE(cf_bloom_new(&cfg, &b) == CF_OK);
    cf_bloom_stats st;
    cf_bloom_get_stats(b, &st);
    /* m = n ln(1/p) / ln(2)^2 and k = m/n ln 2 for the optimum. */
    CHECK_DBL_NEAR((double)st.num_bits, 50000 * -log(0.01) / (log(2) * log(2)), 1.0);
    CHECK_EQ(st.num_hashes, 7);
    for (uint64_t k = 0; k < 50000; k++) cf_bloom_insert(b, &k, sizeof k);
    cf_bloom_get_stats(b, &st);
    CHECK_DBL_NEAR(st.expected_fpp, 0.01, 0.0005);
    cf_bloom_free(b);
}

TEST_MAIN(TEST(test_cuckoo_fpp), TEST(test_bloom_fpp), TEST(test_bloom_from_capacity))
