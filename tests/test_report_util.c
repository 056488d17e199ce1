/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_report_util.c -- the statistics and keys `cuckoo report` rests on:
 * the Wilson interval, the percentile, member / non-member keys that never
 * coincide, and the semi-sorted range the library accepts.  Their source
 * (experiment/, and cli_base/ it prints through) is compiled in here: its
 * libraries are built only with the tools, this test also without them.
 */
#define _POSIX_C_SOURCE 200809L /* as the tools are built: clock_gettime */

#include "cli_base.c"
#include "report_util.c"

#include "test.h"

static const double z95 = 1.959963984540054;

static void test_wilson_edges(void) {
    /* No hit: the interval starts at 0 and ends where a count of 0 stops
     * being surprising, z^2 / (n + z^2). */
    report_rate r = report_rate_of(0, 1000);
    CHECK(r.rate == 0 && r.low == 0);
    CHECK_DBL_NEAR(r.high, z95 * z95 / (1000 + z95 * z95), 1e-12);
    r = report_rate_of(1000, 1000);
    CHECK(r.rate == 1 && r.high == 1);
    CHECK_DBL_NEAR(r.low, 1 - z95 * z95 / (1000 + z95 * z95), 1e-12);
    r = report_rate_of(0, 0);
    CHECK(r.low == 0 && r.high == 1);
}

static void test_wilson_properties(void) {
    for (uint64_t n = 1; n <= 100000; n *= 10) {
        for (uint64_t k = 0; k <= n; k += n / 10 ? n / 10 : 1) {
            report_rate r = report_rate_of(k, n), m = report_rate_of(n - k, n);
            CHECK(r.low <= r.rate && r.rate <= r.high);
            CHECK(0 <= r.low && r.high <= 1);
            /* k hits out of n mirror n - k misses. */
            CHECK_DBL_NEAR(r.low, 1 - m.high, 1e-12);
            CHECK_DBL_NEAR(r.high, 1 - m.low, 1e-12);
        }
    }
    /* For many trials away from 0 and 1 it approaches p +- z sqrt(p(1-p)/n). */
    report_rate r = report_rate_of(30000, 1000000);
    double half = z95 * sqrt(0.03 * 0.97 / 1e6);
    CHECK_DBL_NEAR(r.low, 0.03 - half, half * 0.01);
    CHECK_DBL_NEAR(r.high, 0.03 + half, half * 0.01);
}

static void test_p99(void) {
    uint64_t h[8] = {0};
    h[0] = 99;
    h[5] = 1;
    CHECK_EQ(report_p99(h, 8), 0); /* 99 of 100 are 0 */
    h[0] = 98;
    h[3] = 1;
    CHECK_EQ(report_p99(h, 8), 3);
    h[0] = 0;
    h[3] = 0;
    CHECK_EQ(report_p99(h, 8), 5);
}

static int compare_keys(const void *a, const void *b) {
    return memcmp(a, b, 8);
}

static void test_keys_disjoint_and_deterministic(void) {
    enum { N = 1 << 15 };
    unsigned char(*keys)[8] = malloc(2 * N * sizeof *keys);
    REQUIRE(keys != NULL);
    for (uint64_t i = 0; i < N; i++) {
        report_key(2014, i, true, keys[i]);
        report_key(2014, i, false, keys[N + i]);
    }
    qsort(keys, 2 * N, sizeof *keys, compare_keys);
    size_t duplicates = 0;
    for (size_t i = 1; i < 2 * N; i++) duplicates += memcmp(keys[i - 1], keys[i], 8) == 0;
    CHECK_EQ(duplicates, 0);
    free(keys);

    unsigned char a[8], b[8];
    report_key(7, 12345, true, a);
    report_key(7, 12345, true, b);
    CHECK(memcmp(a, b, 8) == 0);
    report_key(8, 12345, true, b);
    CHECK(memcmp(a, b, 8) != 0);
    report_key(7, 12345, false, b);
    CHECK(memcmp(a, b, 8) != 0);
}

/* The report's semi-sorted range (bucket size 4, f = 5..16) is the one the
 * library accepts: it must neither skip widths nor try ones cf_new refuses. */
static void test_semi_range_is_the_library_s(void) {
    static const unsigned sizes[] = {1, 2, 4, 8};
    unsigned disagree = 0, supported = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (unsigned f = CF_MIN_FINGERPRINT_BITS; f <= CF_MAX_FINGERPRINT_BITS; f++) {
            cf_config cfg;
            cf_config_init(&cfg);
            cfg.flags = CF_SEMI_SORT;
            cfg.bucket_size = sizes[i];
            cfg.fingerprint_bits = f;
            cfg.num_buckets = 16;
            cf_filter *filter = NULL;
            bool ok = cf_new(&cfg, &filter) == CF_OK;
            if (ok) {
                cf_stats st;
                cf_get_stats(filter, &st);
                /* One bit less per slot, as the report's bits per item assume. */
                CHECK_EQ(st.bits_per_slot, f - 1);
                CHECK_EQ(st.table_bytes, (size_t)(16 * 4 * (f - 1) + 7) / 8);
            }
            cf_free(filter);
            disagree += ok != report_semi_supported(sizes[i], f);
            supported += ok;
        }
    }
    CHECK_EQ(disagree, 0);
    CHECK_EQ(supported, REPORT_SEMI_ROWS);
}

TEST_MAIN(TEST(test_wilson_edges), TEST(test_wilson_properties), TEST(test_p99),
          TEST(test_keys_disjoint_and_deterministic), TEST(test_semi_range_is_the_library_s))
