/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_semisort.c -- semi-sorted buckets: the shared code table, one bit
 * less per item, the same false-positive rate as plain buckets of the same
 * width, and files that reject non-canonical buckets.
 * (tests/test_model.c runs semi-sorted filters against the exact model.)
 */
#include <math.h>

#include "test.h"

#include "kind/handle.h"
#include "table/bucket.h"

static void test_code_table(void) {
    unsigned bad = 0, seen_max = 0;
    for (unsigned code = 0; code < CF__SEMISORT_CODES; code++) {
        unsigned p = cf__semisort_decode[code];
        unsigned p0 = p & 15, p1 = (p >> 4) & 15, p2 = (p >> 8) & 15, p3 = p >> 12;
        bad += !(p0 <= p1 && p1 <= p2 && p2 <= p3);
        bad += cf__semisort_encode(p) != code;
        if (code > seen_max) seen_max = code;
    }
    /* Every sorted multiset encodes to a code whose entry gives it back. */
    for (unsigned p = 0; p < 65536; p++) {
        unsigned p0 = p & 15, p1 = (p >> 4) & 15, p2 = (p >> 8) & 15, p3 = p >> 12;
        if (!(p0 <= p1 && p1 <= p2 && p2 <= p3)) continue;
        unsigned code = cf__semisort_encode(p);
        bad += code >= CF__SEMISORT_CODES || cf__semisort_decode[code] != p;
    }
    for (unsigned code = CF__SEMISORT_CODES; code < 4096; code++)
        bad += cf__semisort_decode[code] != 0;
    CHECK_EQ(bad, 0);
    CHECK_EQ(seen_max, 3875);
}

/* The prefix-matching search agrees with decoding all four and comparing,
 * on random canonical buckets and on values present, absent, and empty. */
static void test_find_matches_decoding(void) {
    static const unsigned widths[] = {5, 6, 9, 12, 13, 16};
    uint64_t rng = 11, bad = 0;
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.num_buckets = 64;
        cfg.fingerprint_bits = widths[w];
        cfg.flags = CF_SEMI_SORT;
        cf_filter *f;
        REQUIRE(cf_new(&cfg, &f) == CF_OK);
        uint32_t max = (1u << widths[w]) - 1;
        for (int t = 0; t < 20000; t++) {
            uint64_t bucket = test_rand(&rng) % 64;
            uint32_t fp[4];
            for (int k = 0; k < 4; k++) {
                uint64_t r = test_rand(&rng);
                /* Small values, shared prefixes and empties are the hard cases. */
                fp[k] = r % 4 == 0   ? 0
                        : r % 4 == 1 ? (uint32_t)(r >> 8) % 8
                                     : (uint32_t)(r >> 8) & max;
            }
            if (t % 3 == 0) fp[1] = fp[0] ^ 1; /* same prefix, other suffix */
            cf__semisort_write(&f->t, bucket, fp);
            uint32_t stored[4];
            cf__semisort_read(&f->t, bucket, stored);
            uint32_t probe = t % 2 ? stored[test_rand(&rng) % 4] : (uint32_t)test_rand(&rng) & max;
            int expect = -1;
            for (int k = 3; k >= 0; k--)
                if (stored[k] == probe) expect = k;
            bad += cf__semisort_find(&f->t, bucket, probe) != expect;
            bad += cf__bucket_count(&f->t, bucket, probe) !=
                   (unsigned)((stored[0] == probe) + (stored[1] == probe) + (stored[2] == probe) +
                              (stored[3] == probe));
        }
        cf_free(f);
    }
    CHECK_EQ(bad, 0);
}

static cf_filter *filled(unsigned f, unsigned flags, uint64_t nb, double load) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.fingerprint_bits = f;
    cfg.num_buckets = nb;
    cfg.flags = flags;
    cfg.seed = 3;
    cf_filter *flt;
    REQUIRE(cf_new(&cfg, &flt) == CF_OK);
    uint64_t n = (uint64_t)(load * nb * 4);
    for (uint64_t k = 0; k < n; k++) REQUIRE(cf_insert(flt, &k, sizeof k) == CF_OK);
    return flt;
}

static void test_one_bit_less_same_fpp(void) {
    cf_filter *plain = filled(12, 0, 16384, 0.95), *semi = filled(12, CF_SEMI_SORT, 16384, 0.95);
    cf_stats ps, ss;
    cf_get_stats(plain, &ps);
    cf_get_stats(semi, &ss);
    CHECK_EQ(ss.bits_per_slot, 11);
    CHECK_EQ(ss.table_bytes, 16384 * 44 / 8);
    CHECK_DBL_NEAR(ps.bits_per_item - ss.bits_per_item, 1.0 / 0.95, 0.01);
    CHECK(ss.bits_per_item <= 11.6); /* the target at FPP ~0.19% */

    /* Both false-positive counts within 5 sigma of the same expectation. */
    uint64_t q = 1000000, hp = 0, hs = 0;
    for (uint64_t k = 1u << 30; k < (1u << 30) + q; k++) {
        hp += cf_contains(plain, &k, sizeof k);
        hs += cf_contains(semi, &k, sizeof k);
    }
    double mean = q * ps.expected_fpp, sd = sqrt(mean);
    CHECK(fabs(hp - mean) <= 5 * sd);
    CHECK(fabs(hs - mean) <= 5 * sd);
    cf_free(plain);
    cf_free(semi);
}

static void test_parameters(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 1000;
    cfg.flags = CF_SEMI_SORT;
    cf_filter *f = NULL;
    static const unsigned ok_widths[] = {5, 9, 16}, bad_widths[] = {1, 4, 17, 32};
    for (int i = 0; i < 3; i++) {
        cfg.fingerprint_bits = ok_widths[i];
        CHECK_STATUS(cf_new(&cfg, &f), CF_OK);
        cf_free(f);
    }
    for (int i = 0; i < 4; i++) {
        cfg.fingerprint_bits = bad_widths[i];
        CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    }
    cfg.fingerprint_bits = 12;
    cfg.bucket_size = 2;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    cfg.bucket_size = 4;
    cfg.flags = CF_SEMI_SORT | 2;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
}

static void test_serialized_round_trip_and_canonical_form(void) {
    cf_filter *f = filled(13, CF_SEMI_SORT, 1001, 0.9);
    size_t size;
    uint8_t *buf = test_serialize(f, &size), *again = malloc(size);
    REQUIRE(again);
    cf_filter *g;
    CHECK_STATUS(cf_deserialize(buf, size, NULL, &g), CF_OK);
    REQUIRE(g != NULL);
    REQUIRE(cf_serialize(g, again, size, NULL) == CF_OK);
    CHECK(memcmp(buf, again, size) == 0);
    uint64_t lost = 0;
    for (uint64_t k = 0; k < (uint64_t)(0.9 * 1001 * 4); k++) lost += !cf_contains(g, &k, sizeof k);
    CHECK_EQ(lost, 0);
    cf_free(g);

    /* A code the encoder never produces, or an unsorted bucket, is corrupt
     * even under a valid checksum. */
    uint64_t w = cf__bucket_word(&f->t, 7);
    cf__bucket_store_word(&f->t, 7, (w & ~(uint64_t)0xfff) | 4000);
    REQUIRE(cf_serialize(f, buf, size, NULL) == CF_OK);
    CHECK_STATUS(cf_deserialize(buf, size, NULL, &g), CF_E_CORRUPT);
    CHECK(g == NULL);
    cf__bucket_store_word(&f->t, 7, w); /* repair bucket 7 */
    /* A full bucket rewritten with four nonzero fingerprints in descending
     * order: same item count, valid code, but not canonical. */
    uint64_t full = 0;
    uint32_t fp[4] = {0, 0, 0, 0};
    for (; full < 1001; full++) {
        cf__semisort_read(&f->t, full, fp);
        if (fp[0] != 0) break;
    }
    REQUIRE(full < 1001);
    unsigned s = 13 - 4;                               /* suffix bits */
    uint64_t descending = cf__semisort_encode(0x1111); /* prefixes 1, 1, 1, 1 */
    for (unsigned k = 0; k < 4; k++)
        descending |= (uint64_t)(4 - k) << (CF__SEMISORT_CODE_BITS + k * s);
    cf__bucket_store_word(&f->t, full, descending);
    REQUIRE(cf_serialize(f, buf, size, NULL) == CF_OK);
    CHECK_STATUS(cf_deserialize(buf, size, NULL, &g), CF_E_CORRUPT);
    CHECK(g == NULL);
    free(buf);
    free(again);
    cf_free(f);
}

TEST_MAIN(TEST(test_code_table), TEST(test_find_matches_decoding), TEST(test_one_bit_less_same_fpp),
          TEST(test_parameters), TEST(test_serialized_round_trip_and_canonical_form))
