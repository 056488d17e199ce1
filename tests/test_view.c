/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* The inline lookups (cuckoofilter_inline.h) and the 64-bit integer keys
 * answer exactly as the library's lookups on the same keys, on every shape:
 * bucket sizes 1, 2, 4, 8 with every width, powers of two and other bucket
 * counts (one bucket too), semi-sorted tables, the old partner map of
 * legacy files, and read-only mapped files. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include "test.h"

#include <cuckoofilter_inline.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void le_bytes(uint64_t x, uint8_t out[8]) {
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(x >> (8 * i));
}

/* Every lookup form agrees on n present keys (inserted as 8-byte keys)
 * seed, seed + 1, ... and as many absent ones (m more when n is 0), and the
 * present ones are all found. */
static void check_agree(const cf_filter *f, uint64_t seed, uint64_t n, uint64_t m) {
    cf_view v;
    REQUIRE(cf_view_init(&v, f) == CF_OK);
    uint64_t bad = 0, missing = 0;
    for (uint64_t k = 0; k < 2 * n + m; k++) {
        uint64_t key = k < n ? seed + k : (seed + k) ^ 0x5555555555555555ull;
        uint8_t b[8];
        le_bytes(key, b);
        uint64_t h = cf_hash(f, b, 8);
        bool want = cf_contains(f, b, 8);
        missing += k < n && !want;
        bad += cf_contains_hash(f, h) != want;
        bad += cf_contains_u64(f, key) != want;
        bad += cf_view_contains_hash(&v, h) != want;
        bad += cf_view_contains_u64(&v, key) != want;
        bad += cf_view_contains(&v, b, 8) != want;
        bad += cf_count_u64(f, key) != cf_count(f, b, 8);
        /* other lengths: through cf_hash */
        size_t len = (size_t)(k % 21);
        bad += cf_view_contains(&v, b, len < 8 ? len : 8) != cf_contains(f, b, len < 8 ? len : 8);
        uint8_t longer[20];
        memset(longer, (int)k, sizeof longer);
        bad += cf_view_contains(&v, longer, len) != cf_contains(f, longer, len);
    }
    CHECK_EQ(missing, 0);
    CHECK_EQ(bad, 0);
}

/* Fills a filter of the shape to ~90% with keys seed, seed + 1, ...; half
 * inserted as bytes, half as integers. */
static uint64_t fill(cf_filter *f, uint64_t seed) {
    cf_stats st;
    cf_get_stats(f, &st);
    uint64_t n = st.slots * 9 / 10, stored = 0;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t key = seed + k;
        uint8_t b[8];
        le_bytes(key, b);
        cf_status s = k % 2 ? cf_insert_u64(f, key) : cf_insert(f, b, 8);
        if (s != CF_OK) break;
        stored++;
    }
    return stored;
}

static void test_every_shape(void) {
    static const unsigned sizes[] = {1, 2, 4, 8};
    static const uint64_t buckets[] = {1, 2, 3, 64, 100, 1024, 1031};
    uint64_t shapes = 0;
    for (size_t bi = 0; bi < 4; bi++)
        for (unsigned fb = 1; fb <= 32; fb++)
            for (size_t ni = 0; ni < sizeof buckets / sizeof buckets[0]; ni++)
                for (int semi = 0; semi < 2; semi++) {
                    cf_config cfg;
                    cf_config_init(&cfg);
                    cfg.bucket_size = sizes[bi];
                    cfg.fingerprint_bits = fb;
                    cfg.num_buckets = buckets[ni];
                    cfg.seed = fb * 131 + ni;
                    if (semi) cfg.flags |= CF_SEMI_SORT;
                    cf_filter *f;
                    if (cf_new(&cfg, &f) != CF_OK) continue; /* not a valid shape */
                    uint64_t n = fill(f, cfg.seed << 20);
                    check_agree(f, cfg.seed << 20, n, 0);
                    cf_free(f);
                    shapes++;
                }
    /* b=1,2,4,8 x f=1..32 x 7 sizes, less the widths b*f > 64 cannot hold:
     * enough that every layout (bytes, bits, call) was seen. */
    CHECK_GE(shapes, 600);
}

static void test_layouts_chosen(void) {
    struct {
        unsigned b, f;
        uint64_t nb;
        unsigned flags, layout, shift;
    } cases[] = {
        {4, 12, 1024, 0, CF_VIEW_BYTES, 54}, /* 6-byte buckets, 2^10 */
        {4, 12, 1000, 0, CF_VIEW_BYTES, 0},
        {4, 16, 64, 0, CF_VIEW_BYTES, 58}, /* 64-bit buckets       */
        {4, 13, 64, 0, CF_VIEW_BITS, 58},
        {8, 7, 3, 0, CF_VIEW_BYTES, 0},   /* 56 bits              */
        {4, 15, 64, 0, CF_VIEW_CALL, 58}, /* 60 bits at bit offsets */
        {4, 12, 64, CF_SEMI_SORT, CF_VIEW_CALL, 58},
        {4, 12, 1, 0, CF_VIEW_BYTES, 0}, /* one bucket: no shift */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.bucket_size = cases[i].b;
        cfg.fingerprint_bits = cases[i].f;
        cfg.num_buckets = cases[i].nb;
        cfg.flags = cases[i].flags;
        cf_filter *f;
        REQUIRE(cf_new(&cfg, &f) == CF_OK);
        cf_view v;
        CHECK_STATUS(cf_view_init(&v, f), CF_OK);
        CHECK_EQ(v.layout_, cases[i].layout);
        CHECK_EQ(v.index_shift_, cases[i].shift);
        cf_free(f);
    }
}

/* A key added as bytes is found, counted and deleted as an integer, and the
 * other way round; both ways give the same table bytes. */
static void test_u64_is_the_bytes(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 5000;
    cfg.target_fpp = 0.01;
    cfg.seed = 7;
    cf_filter *a, *b;
    REQUIRE(cf_new(&cfg, &a) == CF_OK && cf_new(&cfg, &b) == CF_OK);
    for (uint64_t k = 0; k < 5000; k++) {
        uint64_t key = k * 0x9e3779b97f4a7c15ull;
        uint8_t bytes[8];
        le_bytes(key, bytes);
        CHECK_STATUS(cf_insert_u64(a, key), CF_OK);
        CHECK_STATUS(cf_insert(b, bytes, 8), CF_OK);
        CHECK_EQ(cf_hash(a, bytes, 8), cf_hash(b, bytes, 8));
    }
    size_t na, nb;
    uint8_t *sa = test_serialize(a, &na), *sb = test_serialize(b, &nb);
    CHECK(na == nb && memcmp(sa, sb, na) == 0);
    free(sa);
    free(sb);
    for (uint64_t k = 0; k < 5000; k += 2) {
        uint64_t key = k * 0x9e3779b97f4a7c15ull;
        uint8_t bytes[8];
        le_bytes(key, bytes);
        CHECK(cf_contains(a, bytes, 8));
        CHECK(cf_count_u64(b, key) >= 1);
        CHECK_STATUS(cf_delete_u64(b, key), CF_OK);
        CHECK_STATUS(cf_delete(a, bytes, 8), CF_OK);
    }
    sa = test_serialize(a, &na);
    sb = test_serialize(b, &nb);
    CHECK(na == nb && memcmp(sa, sb, na) == 0);
    free(sa);
    free(sb);
    CHECK_STATUS(cf_insert_u64(NULL, 1), CF_E_PARAM);
    CHECK_STATUS(cf_delete_u64(NULL, 1), CF_E_PARAM);
    CHECK(!cf_contains_u64(NULL, 1));
    CHECK_EQ(cf_count_u64(NULL, 1), 0);
    cf_free(a);
    cf_free(b);
}

/* Grown filters take integer keys too (the same hash), and have no view. */
static void test_grown_and_concurrent(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 100;
    cfg.target_fpp = 0.01;
    cfg.flags = CF_GROW;
    cf_filter *g;
    REQUIRE(cf_new(&cfg, &g) == CF_OK);
    for (uint64_t k = 0; k < 2000; k++) CHECK_STATUS(cf_insert_u64(g, k), CF_OK);
    uint64_t missing = 0;
    for (uint64_t k = 0; k < 2000; k++) {
        uint8_t bytes[8];
        le_bytes(k, bytes);
        missing += !cf_contains(g, bytes, 8) + !cf_contains_u64(g, k);
    }
    CHECK_EQ(missing, 0);
    cf_view v;
    CHECK_STATUS(cf_view_init(&v, g), CF_E_PARAM);
    cf_free(g);

    cfg.flags = CF_CONCURRENT;
    cf_filter *c;
    REQUIRE(cf_new(&cfg, &c) == CF_OK);
    CHECK_STATUS(cf_insert_u64(c, 42), CF_OK);
    CHECK(cf_contains_u64(c, 42));
    CHECK_STATUS(cf_view_init(&v, c), CF_E_PARAM);
    cf_free(c);

    CHECK_STATUS(cf_view_init(&v, NULL), CF_E_PARAM);
    CHECK_STATUS(cf_view_init_abi(&v, NULL, CF_VIEW_ABI + 1, sizeof v), CF_E_VERSION);
    CHECK_STATUS(cf_view_init_abi(&v, NULL, CF_VIEW_ABI, sizeof v - 8), CF_E_VERSION);
}

/* Legacy files keep their partner map (hash_id 1); a mapped file is read
 * in place; both through the view too. */
static void test_legacy_and_mapped(void) {
    cf_filter *f;
    REQUIRE(cf_load("data/legacy/article_f12_b4_nb100.cf", NULL, &f) == CF_OK);
    cf_view v;
    CHECK_STATUS(cf_view_init(&v, f), CF_OK);
    CHECK_EQ(v.alt_mul_, 1); /* the old map */
    check_agree(f, 0, 0, 600);
    uint64_t n = fill(f, 1u << 30); /* inserts through the old map too */
    check_agree(f, 1u << 30, n, 0);

    char path[] = "/tmp/cf_test_view_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    REQUIRE(cf_save(f, path) == CF_OK);
    cf_filter *m;
    REQUIRE(cf_map(path, NULL, true, &m) == CF_OK);
    check_agree(m, 1u << 30, n, 0);
    cf_free(m);
    unlink(path);
    cf_free(f);
}

TEST_MAIN(TEST(test_every_shape), TEST(test_layouts_chosen), TEST(test_u64_is_the_bytes),
          TEST(test_grown_and_concurrent), TEST(test_legacy_and_mapped))
