/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_api_surface.c -- the 1.0 regularisation of the public API: every
 * fallible call returns a status (also for NULL), the symmetric calls that
 * were missing exist and agree with their siblings, cf_map takes an
 * allocator like cf_load and cf_bloom_map, and the deprecated names still
 * do what their replacements do.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static cf_filter *new_filter(unsigned flags, unsigned mode) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 1000;
    cfg.flags = flags;
    cfg.growth_mode = mode;
    cf_filter *f = NULL;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    return f;
}

static void le_bytes(uint64_t v, uint8_t out[8]) {
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(v >> (8 * i));
}

static void test_stats_status(void) {
    cf_stats st;
    memset(&st, 0xff, sizeof st);
    CHECK_STATUS(cf_get_stats(NULL, &st), CF_E_PARAM);
    CHECK_EQ(st.items, 0); /* zeroed, not left as it was */
    cf_filter *f = new_filter(0, 0);
    CHECK_STATUS(cf_get_stats(f, NULL), CF_E_PARAM);
    REQUIRE(cf_insert(f, "x", 1) == CF_OK);
    CHECK_STATUS(cf_get_stats(f, &st), CF_OK);
    CHECK_EQ(st.items, 1);
    cf_free(f);

    cf_bloom_config bc;
    cf_bloom_config_init(&bc);
    bc.capacity = 100;
    cf_bloom *b = NULL;
    REQUIRE(cf_bloom_new(&bc, &b) == CF_OK);
    cf_bloom_stats bs;
    memset(&bs, 0xff, sizeof bs);
    CHECK_STATUS(cf_bloom_get_stats(NULL, &bs), CF_E_PARAM);
    CHECK_EQ(bs.items, 0);
    CHECK_STATUS(cf_bloom_get_stats(b, NULL), CF_E_PARAM);
    CHECK_STATUS(cf_bloom_get_stats(b, &bs), CF_OK);
    CHECK_EQ(bs.num_hashes, cf_bloom_optimal_k(bs.num_bits, 100));
    cf_bloom_free(b);
}

/* cf_insert_unique_u64 is cf_insert_unique on the key's 8 little-endian
 * bytes, for every kind. */
static void test_insert_unique_u64(void) {
    unsigned kinds[][2] = {
        {0, 0}, {CF_GROW, CF_GROWTH_CHAIN}, {CF_GROW, CF_GROWTH_INPLACE}, {CF_CONCURRENT, 0}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        cf_filter *a = new_filter(kinds[k][0], kinds[k][1]);
        cf_filter *b = new_filter(kinds[k][0], kinds[k][1]);
        uint64_t s = 7;
        for (int i = 0; i < 500; i++) {
            uint64_t key = test_rand(&s) % 300; /* repeats */
            uint8_t bytes[8];
            le_bytes(key, bytes);
            cf_status x = cf_insert_unique_u64(a, key), y = cf_insert_unique(b, bytes, 8);
            CHECK_STATUS(x, y);
            CHECK(x == CF_OK || x == CF_E_EXISTS);
            CHECK(cf_contains_u64(a, key));
        }
        CHECK_STATUS(cf_insert_unique_u64(NULL, 1), CF_E_PARAM);
        size_t na = cf_serialized_size(a), nb = cf_serialized_size(b);
        CHECK_EQ(na, nb);
        if (kinds[k][0] != CF_CONCURRENT) { /* a concurrent filter serializes its table too */
            uint8_t *ba = malloc(na), *bb = malloc(nb);
            REQUIRE(ba && bb);
            REQUIRE(cf_serialize(a, ba, na, NULL) == CF_OK &&
                    cf_serialize(b, bb, nb, NULL) == CF_OK);
            CHECK(memcmp(ba, bb, na) == 0); /* the same table, byte for byte */
            free(ba), free(bb);
        }
        cf_free(a), cf_free(b);
    }
}

static void test_bloom_u64(void) {
    cf_bloom_config bc;
    cf_bloom_config_init(&bc);
    bc.capacity = 1000;
    bc.seed = 3;
    cf_bloom *a = NULL, *b = NULL;
    REQUIRE(cf_bloom_new(&bc, &a) == CF_OK && cf_bloom_new(&bc, &b) == CF_OK);
    for (uint64_t key = 0; key < 1000; key += 3) {
        uint8_t bytes[8];
        le_bytes(key * 0x9e3779b97f4a7c15ull, bytes);
        CHECK_STATUS(cf_bloom_insert_u64(a, key * 0x9e3779b97f4a7c15ull), CF_OK);
        CHECK_STATUS(cf_bloom_insert(b, bytes, 8), CF_OK);
    }
    size_t n = cf_bloom_serialized_size(a);
    uint8_t *ba = malloc(n), *bb = malloc(n);
    REQUIRE(ba && bb);
    REQUIRE(cf_bloom_serialize(a, ba, n, NULL) == CF_OK &&
            cf_bloom_serialize(b, bb, n, NULL) == CF_OK);
    CHECK(memcmp(ba, bb, n) == 0);
    for (uint64_t key = 0; key < 1000; key += 3)
        CHECK(cf_bloom_contains_u64(b, key * 0x9e3779b97f4a7c15ull));
    CHECK_STATUS(cf_bloom_insert_u64(NULL, 1), CF_E_PARAM);
    CHECK(!cf_bloom_contains_u64(NULL, 1));
    free(ba), free(bb);
    cf_bloom_free(a), cf_bloom_free(b);
}

/* cf_map's handle comes from the allocator given, for every version. */
static void test_map_allocator(void) {
    char path[] = "/tmp/cf_api_surface_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    unsigned kinds[][2] = {{0, 0}, {CF_GROW, CF_GROWTH_CHAIN}, {CF_GROW, CF_GROWTH_INPLACE}};
    for (size_t k = 0; k < 3; k++) {
        cf_filter *f = new_filter(kinds[k][0], kinds[k][1]);
        REQUIRE(cf_insert(f, "kept", 4) == CF_OK);
        REQUIRE(cf_save(f, path) == CF_OK);
        cf_free(f);
        test_counting c = {0, 0, 0};
        cf_allocator a = {test_counting_alloc, test_counting_free, &c, NULL, NULL};
        cf_filter *m = NULL;
        CHECK_STATUS(cf_map(path, &a, true, &m), CF_OK);
        CHECK(c.live > 0); /* the handle is the allocator's */
        CHECK(m != NULL && cf_contains(m, "kept", 4));
        cf_free(m);
        CHECK_EQ(c.live, 0);
        /* Every allocation failing in turn: a status, no leak. */
        for (long at = 1; at <= c.calls; at++) {
            test_counting d = {0, at, 0};
            cf_allocator da = {test_counting_alloc, test_counting_free, &d, NULL, NULL};
            cf_filter *g = NULL;
            CHECK_STATUS(cf_map(path, &da, false, &g), CF_E_NOMEM);
            CHECK(g == NULL);
            CHECK_EQ(d.live, 0);
        }
        cf_allocator half = {test_counting_alloc, NULL, &c, NULL, NULL};
        cf_filter *h = NULL;
        CHECK_STATUS(cf_map(path, &half, false, &h), CF_E_PARAM);
    }
    unlink(path);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void test_deprecated_names(void) {
    char path[] = "/tmp/cf_api_surface_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    cf_file_lock *l = NULL;
    CHECK_STATUS(cf_lock_file(path, 0, NULL, &l), CF_OK);
    cf_file_lock *other = NULL;
    CHECK_STATUS(cf_file_lock_acquire(path, 0, NULL, &other), CF_E_LOCKED); /* the same lock */
    cf_unlock_file(l);
    CHECK_STATUS(cf_file_lock_acquire(path, 0, NULL, &other), CF_OK);
    cf_file_lock_release(other);
    unlink(path);

    cf_bloom_config bc;
    cf_bloom_config_init(&bc);
    bc.capacity = 100;
    cf_bloom *b = NULL;
    REQUIRE(cf_bloom_new(&bc, &b) == CF_OK);
    CHECK_STATUS(cf_bloom_add(b, "k", 1), CF_OK);
    CHECK(cf_bloom_contains(b, "k", 1));
    CHECK_STATUS(cf_bloom_add_hash(b, 42), CF_OK);
    CHECK(cf_bloom_contains_hash(b, 42));
    CHECK_STATUS(cf_bloom_add(NULL, "k", 1), CF_E_PARAM);
    cf_bloom_free(b);
}
#pragma GCC diagnostic pop

/* One name per kind, the library's. */
static void test_kind_names(void) {
    static const struct {
        unsigned flags, mode;
        const char *name;
    } kinds[] = {{0, 0, "plain"},
                 {CF_SEMI_SORT, 0, "plain"},
                 {CF_GROW, CF_GROWTH_CHAIN, "chain"},
                 {CF_GROW, CF_GROWTH_INPLACE, "in place"},
                 {CF_CONCURRENT, 0, "concurrent"}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        cf_filter *f = new_filter(kinds[k].flags, kinds[k].mode);
        CHECK(strcmp(cf_kind_name(f), kinds[k].name) == 0);
        cf_free(f);
    }
    CHECK(cf_kind_name(NULL) == NULL);
    cf_filter *f = new_filter(0, 0);
    cf_config cfg;
    cf_config_init(&cfg);
    REQUIRE(cf_make_growable(&f, &cfg) == CF_OK);
    CHECK(strcmp(cf_kind_name(f), "chain") == 0);
    cf_free(f);
}

/* cf_bloom_merge is the union (a filter given both key sets, byte for
 * byte but the count); cf_bloom_clear empties. */
static void test_bloom_merge_clear(void) {
    cf_bloom_config bc;
    cf_bloom_config_init(&bc);
    bc.capacity = 2000;
    bc.seed = 9;
    cf_bloom *a = NULL, *b = NULL, *both = NULL, *other = NULL;
    REQUIRE(cf_bloom_new(&bc, &a) == CF_OK && cf_bloom_new(&bc, &b) == CF_OK &&
            cf_bloom_new(&bc, &both) == CF_OK);
    for (uint64_t k = 0; k < 1000; k++) {
        REQUIRE(cf_bloom_insert_u64(k % 2 ? a : b, k) == CF_OK);
        REQUIRE(cf_bloom_insert_u64(both, k) == CF_OK);
    }
    CHECK_STATUS(cf_bloom_merge(a, b), CF_OK);
    size_t n = cf_bloom_serialized_size(a);
    uint8_t *x = malloc(n), *y = malloc(n);
    REQUIRE(x && y);
    REQUIRE(cf_bloom_serialize(a, x, n, NULL) == CF_OK &&
            cf_bloom_serialize(both, y, n, NULL) == CF_OK);
    CHECK(memcmp(x, y, n) == 0); /* the same bits, and the same count */
    for (uint64_t k = 0; k < 1000; k++) CHECK(cf_bloom_contains_u64(a, k));
    bc.seed = 10;
    REQUIRE(cf_bloom_new(&bc, &other) == CF_OK);
    CHECK_STATUS(cf_bloom_merge(a, other), CF_E_PARAM); /* another seed: other bits */
    CHECK_STATUS(cf_bloom_merge(a, a), CF_E_PARAM);
    CHECK_STATUS(cf_bloom_merge(NULL, a), CF_E_PARAM);
    CHECK_STATUS(cf_bloom_clear(a), CF_OK);
    cf_bloom_stats st;
    REQUIRE(cf_bloom_get_stats(a, &st) == CF_OK);
    CHECK_EQ(st.items, 0);
    for (uint64_t k = 0; k < 1000; k++) CHECK(!cf_bloom_contains_u64(a, k));
    CHECK_STATUS(cf_bloom_clear(NULL), CF_E_PARAM);
    free(x), free(y);
    cf_bloom_free(a), cf_bloom_free(b), cf_bloom_free(both), cf_bloom_free(other);
}

TEST_MAIN(TEST(test_stats_status), TEST(test_bloom_merge_clear), TEST(test_kind_names),
          TEST(test_insert_unique_u64), TEST(test_bloom_u64), TEST(test_map_allocator),
          TEST(test_deprecated_names))
