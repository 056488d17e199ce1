/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_serialize_range.c -- cf_serialize_range gives exactly the bytes of
 * cf_serialize, for any range and any chunking, and a change between chunks
 * makes the reassembled bytes fail cf_deserialize.
 */
#include "test.h"

#include "cuckoofilter.h"

static cf_filter *filled(unsigned bits, unsigned b, uint64_t n) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 3000;
    cfg.fingerprint_bits = bits;
    cfg.bucket_size = b;
    cfg.seed = 99;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    for (uint64_t k = 0; k < n; k++) REQUIRE(cf_insert(f, &k, sizeof k) == CF_OK);
    return f;
}

/* Every chunk size from 1 byte up reassembles the whole form byte for byte,
 * and single ranges at every boundary (header, table, trailer) agree. */
static void test_ranges_match_serialize(void) {
    static const unsigned shapes[][2] = {{8, 2}, {13, 4}, {32, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        cf_filter *f = filled(shapes[s][0], shapes[s][1], 1000);
        size_t n;
        uint8_t *whole = test_serialize(f, &n), *got = malloc(n);
        REQUIRE(got);
        static const size_t chunks[] = {1, 7, 63, 64, 65, 1000, 4096};
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            memset(got, 0, n);
            for (size_t at = 0; at < n; at += chunks[c]) {
                size_t len = n - at < chunks[c] ? n - at : chunks[c];
                CHECK_STATUS(cf_serialize_range(f, at, got + at, len), CF_OK);
            }
            CHECK(memcmp(got, whole, n) == 0);
        }
        size_t cuts[] = {0, 1, 63, 64, 65, n - 9, n - 8, n - 7, n - 1};
        for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
            for (size_t len = 0; len <= n - cuts[i] && len < 20; len++) {
                uint8_t buf[20];
                CHECK_STATUS(cf_serialize_range(f, cuts[i], buf, len), CF_OK);
                CHECK(memcmp(buf, whole + cuts[i], len) == 0);
            }
        }
        free(whole);
        free(got);
        cf_free(f);
    }
}

static void test_bad_ranges(void) {
    cf_filter *f = filled(8, 2, 10);
    size_t n = cf_serialized_size(f);
    uint8_t buf[16];
    CHECK_STATUS(cf_serialize_range(NULL, 0, buf, 1), CF_E_PARAM);
    CHECK_STATUS(cf_serialize_range(f, 0, NULL, 1), CF_E_PARAM);
    CHECK_STATUS(cf_serialize_range(f, 0, NULL, 0), CF_OK);
    CHECK_STATUS(cf_serialize_range(f, n, buf, 0), CF_OK);
    CHECK_STATUS(cf_serialize_range(f, n, buf, 1), CF_E_PARAM);
    CHECK_STATUS(cf_serialize_range(f, n - 4, buf, 5), CF_E_PARAM);
    CHECK_STATUS(cf_serialize_range(f, UINT64_MAX, buf, 2), CF_E_PARAM);
    cf_free(f);
}

/* A dump taken in two halves with an insert or a delete in between does not
 * load: the change is detectable wherever it lands. */
static void test_change_between_chunks_is_detected(void) {
    for (int op = 0; op < 2; op++) {
        for (uint64_t probe = 0; probe < 40; probe++) {
            cf_filter *f = filled(8, 2, 1000);
            size_t n = cf_serialized_size(f), half = n / 2;
            uint8_t *buf = malloc(n);
            REQUIRE(buf);
            REQUIRE(cf_serialize_range(f, 0, buf, half) == CF_OK);
            uint64_t k = op ? probe : 5000 + probe;
            REQUIRE((op ? cf_delete(f, &k, sizeof k) : cf_insert(f, &k, sizeof k)) == CF_OK);
            REQUIRE(cf_serialize_range(f, half, buf + half, n - half) == CF_OK);
            cf_filter *g = NULL;
            cf_status s = cf_deserialize(buf, n, NULL, &g);
            CHECK(s != CF_OK);
            CHECK(g == NULL);
            free(buf);
            cf_free(f);
        }
    }
}

TEST_MAIN(TEST(test_ranges_match_serialize), TEST(test_bad_ranges),
          TEST(test_change_between_chunks_is_detected))
