/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_formulas.c -- every formula a comment states (the public header's
 * cf_stats and Bloom contracts, the table layout in cf_internal.h, the file
 * layout in cf_format.h) is recomputed here from the comment's own words and
 * compared with what the library reports, over plain and semi-sorted shapes
 * of odd sizes.  A comment that drifts from the code fails here.
 */
#include <math.h>

#include "test.h"

#include "cuckoofilter.h"

typedef struct shape {
    unsigned f, b;
    uint64_t nb;
    unsigned flags;
} shape;

static const shape shapes[] = {
    {12, 4, 1000, 0},
    {7, 2, 13, 0},
    {1, 1, 1, 0},
    {32, 8, 5, 0},
    {13, 8, 313, 0},
    {9, 4, 50, CF_SEMI_SORT},
    {5, 4, 7, CF_SEMI_SORT},
    {16, 4, 1030, CF_SEMI_SORT},
    {11, 4, 3, CF_SEMI_SORT},
};

static cf_filter *make(shape sh, uint64_t items) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.fingerprint_bits = sh.f;
    cfg.bucket_size = sh.b;
    cfg.num_buckets = sh.nb;
    cfg.flags = sh.flags;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    for (uint64_t k = 0; k < items; k++) (void)cf_insert(f, &k, sizeof k);
    return f;
}

/* cf_stats: slots, bits_per_slot, table_bytes, load_factor, bits_per_item and
 * expected_fpp as their comments define them. */
static void test_stats_formulas(void) {
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        shape sh = shapes[i];
        cf_filter *f = make(sh, (sh.nb * sh.b + 1) / 2);
        cf_stats st;
        cf_get_stats(f, &st);
        bool semi = (sh.flags & CF_SEMI_SORT) != 0;
        uint64_t bucket_bits = semi ? 4 * (uint64_t)sh.f - 4 : (uint64_t)sh.b * sh.f;
        CHECK_EQ(st.slots, sh.nb * sh.b);
        CHECK_EQ(st.bits_per_slot, semi ? sh.f - 1 : sh.f);
        CHECK_EQ(st.table_bytes, (sh.nb * bucket_bits + 7) / 8);
        CHECK(st.items > 0);
        CHECK_DBL_NEAR(st.load_factor, (double)st.items / (double)st.slots, 1e-15);
        CHECK_DBL_NEAR(st.bits_per_item, (double)(sh.nb * bucket_bits) / (double)st.items, 1e-9);
        /* 1 - (1 - 1/(2^f - 1))^(2b * load), evaluated the plain way. */
        double fpp = 1.0 - pow(1.0 - 1.0 / (pow(2.0, sh.f) - 1.0), 2.0 * sh.b * st.load_factor);
        CHECK_DBL_NEAR(st.expected_fpp, fpp, fpp * 1e-6 + 1e-15);
        CHECK_DBL_NEAR(cf_theoretical_fpp(sh.f, sh.b, 1.0),
                       1.0 - pow(1.0 - 1.0 / (pow(2.0, sh.f) - 1.0), 2.0 * sh.b), 1e-12);
        /* Guarantee 5's simple bound. */
        CHECK(cf_theoretical_fpp(sh.f, sh.b, 1.0) <= 2.0 * sh.b / pow(2.0, sh.f));
        /* cf_format.h: header (64) + table (T) + checksum (8). */
        CHECK_EQ(cf_serialized_size(f), 64 + st.table_bytes + 8);
        cf_free(f);
    }
}

/* The Bloom filter's contracts: num_bits, the optimal k, expected_fpp. */
static void test_bloom_formulas(void) {
    static const struct {
        uint64_t n;
        double p;
    } cases[] = {{1000, 0.01}, {777, 0.001}, {5, 0.3}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cf_bloom_config cfg;
        cf_bloom_config_init(&cfg);
        cfg.capacity = cases[i].n;
        cfg.target_fpp = cases[i].p;
        cf_bloom *b;
        REQUIRE(cf_bloom_new(&cfg, &b) == CF_OK);
        cf_bloom_stats st;
        cf_bloom_get_stats(b, &st);
        double m = ceil(-(double)cases[i].n * log(cases[i].p) / (log(2.0) * log(2.0)));
        CHECK_DBL_NEAR((double)st.num_bits, m, 1.0);
        double k = round((double)st.num_bits / (double)cases[i].n * log(2.0));
        CHECK_EQ(st.num_hashes, k < 1 ? 1 : (unsigned)k);
        CHECK_EQ(cf_bloom_optimal_k(st.num_bits, cases[i].n), st.num_hashes);
        for (uint64_t key = 0; key < cases[i].n; key++) cf_bloom_insert(b, &key, sizeof key);
        cf_bloom_get_stats(b, &st);
        double kk = st.num_hashes;
        double fpp = pow(1.0 - exp(-kk * (double)st.items / (double)st.num_bits), kk);
        CHECK_DBL_NEAR(st.expected_fpp, fpp, fpp * 1e-9);
        CHECK_DBL_NEAR(st.bits_per_item, (double)st.num_bits / (double)st.items, 1e-9);
        cf_bloom_free(b);
    }
    CHECK_EQ(cf_bloom_optimal_k(1000, 1000000), 1); /* max(1, ...) */
}

TEST_MAIN(TEST(test_stats_formulas), TEST(test_bloom_formulas))
