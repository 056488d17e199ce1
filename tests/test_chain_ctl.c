/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_chain_ctl.c -- cf_serialize_range on grown filters (version 2), and
 * the functions that steer a CF_GROW filter: cf_grow_add_table,
 * cf_grow_set_limits, cf_grow_append, cf_grow_trim.
 */
#include "test.h"

#include <unistd.h>

#include "cuckoofilter.h"

static cf_filter *grown(unsigned growth, uint64_t n) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.flags = CF_GROW;
    cfg.capacity = 100;
    cfg.target_fpp = 0.01;
    cfg.growth = growth;
    cfg.seed = 7;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    for (uint64_t k = 0; k < n; k++) REQUIRE(cf_insert(f, &k, sizeof k) == CF_OK);
    return f;
}

static unsigned tables_of(const cf_filter *f) {
    cf_stats st;
    cf_get_stats(f, &st);
    return st.tables;
}

/* Every chunking of a grown filter's form gives cf_serialize's bytes, and
 * a change between chunks makes the concatenation fail to load. */
static void test_range_of_grown_filter(void) {
    cf_filter *f = grown(2, 1500);
    REQUIRE(tables_of(f) >= 3);
    size_t n;
    uint8_t *whole = test_serialize(f, &n), *got = malloc(n);
    REQUIRE(got);
    static const size_t chunks[] = {1, 13, 64, 100, 4096, 1 << 20};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        memset(got, 0xA5, n);
        for (size_t at = 0; at < n; at += chunks[c]) {
            size_t len = n - at < chunks[c] ? n - at : chunks[c];
            CHECK_STATUS(cf_serialize_range(f, at, got + at, len), CF_OK);
        }
        CHECK(memcmp(got, whole, n) == 0);
    }
    uint8_t b[2];
    CHECK_STATUS(cf_serialize_range(f, n - 1, b, 2), CF_E_PARAM);
    /* A change between chunks inside the newest table's record (where
     * inserts go) is detected by that record's trailer.  A change to a
     * record read wholly after it would not be: the version-2 header holds
     * no item counts (the header says so). */
    cf_stats last;
    REQUIRE(cf_table_stats(f, tables_of(f) - 1, &last) == CF_OK);
    size_t split = n - (last.table_bytes + 72) / 2;
    REQUIRE(cf_serialize_range(f, 0, got, split) == CF_OK);
    uint64_t k = 999999;
    REQUIRE(cf_insert(f, &k, sizeof k) == CF_OK);
    REQUIRE(cf_serialized_size(f) == n); /* no table was added */
    REQUIRE(cf_serialize_range(f, split, got + split, n - split) == CF_OK);
    cf_filter *g = NULL;
    CHECK(cf_deserialize(got, n, NULL, &g) != CF_OK);
    CHECK(g == NULL);
    free(whole);
    free(got);
    cf_free(f);
}

static unsigned growth_limit_of(const cf_filter *f) {
    cf_stats st;
    cf_get_stats(f, &st);
    return st.growth_limit;
}

/* cf_stats.growth_limit names each limit that refuses a table (and only
 * then: cf_grow_add_table fails exactly when it is not CF_GROWTH_OPEN). */
static void test_add_table_and_limits(void) {
    cf_filter *f = grown(2, 10);
    CHECK_EQ(tables_of(f), 1);
    CHECK_EQ(growth_limit_of(f), CF_GROWTH_OPEN);
    CHECK_STATUS(cf_grow_add_table(f), CF_OK);
    CHECK_EQ(tables_of(f), 2);
    /* The table cap held by the handle. */
    CHECK_STATUS(cf_grow_set_limits(f, 3, 0), CF_OK);
    CHECK_EQ(growth_limit_of(f), CF_GROWTH_OPEN);
    CHECK_STATUS(cf_grow_add_table(f), CF_OK);
    CHECK_EQ(growth_limit_of(f), CF_GROWTH_LIMIT_TABLES);
    CHECK_STATUS(cf_grow_add_table(f), CF_E_FULL);
    CHECK_EQ(tables_of(f), 3);
    uint64_t k = 0;
    size_t ok = 0;
    cf_status s = CF_OK;
    for (k = 100; k < 100000 && s == CF_OK; k++) {
        s = cf_insert(f, &k, sizeof k);
        ok += s == CF_OK;
    }
    CHECK_STATUS(s, CF_E_FULL);
    CHECK(ok > 0); /* the capped filter filled its third table first */
    CHECK_EQ(tables_of(f), 3);
    /* max_bytes: not below the tables, and a limit at the tables stops growth. */
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_STATUS(cf_grow_set_limits(f, 0, st.table_bytes - 1), CF_E_PARAM);
    CHECK_STATUS(cf_grow_set_limits(f, CF_MAX_TABLES + 1, 0), CF_E_PARAM);
    CHECK_STATUS(cf_grow_set_limits(f, 0, st.table_bytes), CF_OK);
    CHECK_EQ(growth_limit_of(f), CF_GROWTH_LIMIT_BYTES);
    CHECK_STATUS(cf_grow_add_table(f), CF_E_FULL);
    CHECK_STATUS(cf_grow_set_limits(f, 0, 0), CF_OK);
    CHECK_EQ(growth_limit_of(f), CF_GROWTH_OPEN);
    CHECK_STATUS(cf_grow_add_table(f), CF_OK);
    CHECK_EQ(tables_of(f), 4);
    /* Not a grown filter. */
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 100;
    cf_filter *plain;
    REQUIRE(cf_new(&cfg, &plain) == CF_OK);
    CHECK_EQ(growth_limit_of(plain), CF_GROWTH_OPEN);
    CHECK_STATUS(cf_grow_add_table(plain), CF_E_PARAM);
    CHECK_STATUS(cf_grow_set_limits(plain, 1, 0), CF_E_PARAM);
    CHECK_STATUS(cf_grow_trim(plain, NULL), CF_E_PARAM);
    CHECK_STATUS(cf_grow_add_table(NULL), CF_E_PARAM);
    cf_free(plain);
    cf_free(f);
    /* A bound so small that the budget runs out before the table cap: the
     * chain stops when no width up to 32 bits fits what is left. */
    cf_config_init(&cfg);
    cfg.flags = CF_GROW;
    cfg.capacity = 100;
    cfg.target_fpp = 1e-7;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    for (;;) {
        unsigned limit = growth_limit_of(f);
        cf_status s = cf_grow_add_table(f);
        CHECK_EQ(s == CF_OK, limit == CF_GROWTH_OPEN);
        if (s != CF_OK) break;
    }
    CHECK(tables_of(f) < CF_MAX_TABLES);
    CHECK_EQ(growth_limit_of(f), CF_GROWTH_LIMIT_FPP);
    cf_stats st2;
    cf_get_stats(f, &st2);
    CHECK_EQ(st2.fingerprint_bits, CF_MAX_FINGERPRINT_BITS);
    cf_free(f);
}

/* One key's copies: cf_insert refuses past 2b in the newest table, an
 * added table takes 2b more. */
static void test_add_table_for_copies(void) {
    cf_filter *f = grown(2, 0);
    const char *dup = "same";
    int stored = 0;
    while (cf_insert(f, dup, 4) == CF_OK) stored++;
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_EQ((uint64_t)stored, 2 * (uint64_t)st.bucket_size);
    CHECK_STATUS(cf_grow_add_table(f), CF_OK);
    int more = 0;
    while (cf_insert(f, dup, 4) == CF_OK) more++;
    CHECK_EQ(more, stored);
    CHECK_EQ(cf_count(f, dup, 4), (size_t)(2 * stored));
    cf_free(f);
}

/* Tables built elsewhere: accepted when they fit the chain, and the result
 * round-trips through the version-2 form; trim frees empty newest tables. */
static void test_append_and_trim(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.num_buckets = 64;
    cfg.bucket_size = 2;
    cfg.fingerprint_bits = 8;
    cfg.seed = 3;
    cf_filter *f, *t1, *bad;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    cfg.num_buckets = 128;
    REQUIRE(cf_new(&cfg, &t1) == CF_OK);
    cfg.num_buckets = 100;
    REQUIRE(cf_new(&cfg, &bad) == CF_OK);
    for (uint64_t k = 0; k < 150; k++) REQUIRE(cf_insert(t1, &k, sizeof k) == CF_OK);
    cf_config gcfg;
    cf_config_init(&gcfg);
    gcfg.growth = 2;
    gcfg.target_fpp = 0.2;
    REQUIRE(cf_make_growable(&f, &gcfg) == CF_OK);
    CHECK_STATUS(cf_grow_append(f, bad), CF_E_PARAM); /* not growth times the buckets */
    /* A concurrent table (its counts live in its stripes), and any table
     * past the cap cf_grow_set_limits set, are refused. */
    cf_config ccfg = cfg;
    ccfg.num_buckets = 128;
    ccfg.flags = CF_CONCURRENT;
    cf_filter *conc;
    REQUIRE(cf_new(&ccfg, &conc) == CF_OK);
    CHECK_STATUS(cf_grow_append(f, conc), CF_E_PARAM);
    cf_free(conc);
    CHECK_STATUS(cf_grow_set_limits(f, 1, 0), CF_OK);
    CHECK_STATUS(cf_grow_append(f, t1), CF_E_PARAM);
    CHECK_STATUS(cf_grow_set_limits(f, 0, 0), CF_OK);
    CHECK_STATUS(cf_grow_append(f, t1), CF_OK);
    CHECK_EQ(tables_of(f), 2);
    for (uint64_t k = 0; k < 150; k++) CHECK(cf_contains(f, &k, sizeof k));
    size_t n;
    uint8_t *buf = test_serialize(f, &n);
    cf_filter *g;
    CHECK_STATUS(cf_deserialize(buf, n, NULL, &g), CF_OK);
    CHECK_EQ(tables_of(g), 2);
    cf_free(g);
    /* A mapped grown filter is read-only to every call here. */
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_chain_ctl.%ld.cf", (long)getpid());
    REQUIRE(cf_save(f, path) == CF_OK);
    REQUIRE(cf_map(path, NULL, true, &g) == CF_OK);
    CHECK_STATUS(cf_grow_set_limits(g, 0, 0), CF_E_READONLY);
    CHECK_STATUS(cf_grow_append(g, bad), CF_E_READONLY);
    CHECK_STATUS(cf_grow_add_table(g), CF_E_READONLY);
    CHECK_STATUS(cf_grow_trim(g, NULL), CF_E_READONLY);
    cf_free(g);
    remove(path);
    free(buf);
    /* The FPP bound: a table too wide for the rest of the budget. */
    cfg.num_buckets = 256;
    cfg.fingerprint_bits = 2;
    cf_filter *coarse;
    REQUIRE(cf_new(&cfg, &coarse) == CF_OK);
    CHECK_STATUS(cf_grow_append(f, coarse), CF_E_PARAM);
    cf_free(coarse);
    cf_free(bad);
    /* Trim: table 1 holds items, so nothing goes; after adding an empty
     * table, only that one goes. */
    unsigned dropped = 9;
    CHECK_STATUS(cf_grow_trim(f, &dropped), CF_OK);
    CHECK_EQ(dropped, 0u);
    REQUIRE(cf_grow_add_table(f) == CF_OK);
    CHECK_EQ(tables_of(f), 3);
    CHECK_STATUS(cf_grow_trim(f, &dropped), CF_OK);
    CHECK_EQ(dropped, 1u);
    CHECK_EQ(tables_of(f), 2);
    for (uint64_t k = 0; k < 150; k++) REQUIRE(cf_delete(f, &k, sizeof k) == CF_OK);
    CHECK_STATUS(cf_grow_trim(f, &dropped), CF_OK);
    CHECK_EQ(tables_of(f), 1);
    cf_free(f);
}

/* The bound cf_make_growable chooses for target_fpp 0 for a table of width
 * fbits, after the filter has grown under it to three tables. */
static double chosen_bound(unsigned fbits, unsigned b) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.num_buckets = 32;
    cfg.bucket_size = b;
    cfg.fingerprint_bits = fbits;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    cf_stats after;
    cf_config g;
    cf_config_init(&g);
    g.target_fpp = 0;
    REQUIRE(cf_make_growable(&f, &g) == CF_OK);
    for (uint64_t k = 0; tables_of(f) < 3; k++) REQUIRE(cf_insert(f, &k, sizeof k) == CF_OK);
    cf_get_stats(f, &after);
    CHECK(after.fpp_bound < after.target_fpp);
    cf_free(f);
    return after.target_fpp;
}

static void test_default_growth_bound(void) {
    /* The common case: four times; near 32 bits the floor; at 2 bits the
     * cap (chosen_bound also grows each filter to three tables). */
    CHECK(chosen_bound(12, 4) == 4 * cf_theoretical_fpp(12, 4, 1.0));
    CHECK(chosen_bound(30, 4) == (CF_MAX_TABLES + 4) * cf_theoretical_fpp(32, 4, 1.0));
    CHECK(chosen_bound(2, 4) == (1 + cf_theoretical_fpp(2, 4, 1.0)) / 2);
}

TEST_MAIN(TEST(test_range_of_grown_filter), TEST(test_add_table_and_limits),
          TEST(test_add_table_for_copies), TEST(test_append_and_trim),
          TEST(test_default_growth_bound))
