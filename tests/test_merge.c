/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_merge.c -- cf_merge: a filter built in parts and merged holds every
 * item and answers every key as the filter built from all items does;
 * shapes that differ are refused; a merge that cannot fit, or cannot
 * allocate its copy, leaves dst byte for byte as it was.
 */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "cuckoofilter.h"

static cf_config shape(uint64_t capacity, unsigned b, unsigned flags) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = capacity;
    cfg.bucket_size = b;
    cfg.flags = flags;
    cfg.seed = 42;
    return cfg;
}

static cf_filter *make(const cf_config *cfg) {
    cf_filter *f = NULL;
    REQUIRE(cf_new(cfg, &f) == CF_OK);
    return f;
}

/* Inserts keys [from, to), each as 8 bytes; requires every insert to work. */
static void fill(cf_filter *f, uint64_t from, uint64_t to) {
    for (uint64_t k = from; k < to; k++) REQUIRE(cf_insert(f, &k, sizeof k) == CF_OK);
}

static void check_unchanged(const cf_filter *f, const uint8_t *before, size_t n) {
    size_t m;
    uint8_t *now = test_serialize(f, &m);
    CHECK_EQ(m, n);
    CHECK(memcmp(now, before, n) == 0);
    free(now);
}

/* Three parts merged into the first answer like one filter of all keys, for
 * each layout (bucket sizes, semi-sorted) at a high final load. */
static void test_parts_merge_like_one_build(void) {
    static const struct {
        unsigned b, flags;
    } layouts[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {4, CF_SEMI_SORT}};
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        const uint64_t n = 3000;
        cf_config cfg = shape(n, layouts[l].b, layouts[l].flags);
        cf_filter *whole = make(&cfg), *part[3];
        fill(whole, 0, n);
        for (int p = 0; p < 3; p++) {
            part[p] = make(&cfg);
            fill(part[p], p * n / 3, (p + 1) * n / 3);
        }
        CHECK_STATUS(cf_merge(part[0], part[1]), CF_OK);
        CHECK_STATUS(cf_merge(part[0], part[2]), CF_OK);
        cf_stats a, b;
        cf_get_stats(part[0], &a);
        cf_get_stats(whole, &b);
        CHECK_EQ(a.items, n);
        CHECK_EQ(a.items, b.items);
        for (uint64_t k = 0; k < n; k++) CHECK(cf_contains(part[0], &k, sizeof k));
        /* Non-members too: the same false positives, key for key. */
        uint64_t agree = 0, probes = 200000;
        for (uint64_t k = n; k < n + probes; k++)
            agree += cf_contains(part[0], &k, sizeof k) == cf_contains(whole, &k, sizeof k);
        CHECK_EQ(agree, probes);
        /* Counts agree too, and deleting every key empties the merged filter. */
        for (uint64_t k = 0; k < n; k++)
            CHECK_EQ(cf_count(part[0], &k, sizeof k), cf_count(whole, &k, sizeof k));
        for (uint64_t k = 0; k < n; k++) CHECK_STATUS(cf_delete(part[0], &k, sizeof k), CF_OK);
        cf_get_stats(part[0], &a);
        CHECK_EQ(a.items, 0);
        for (int p = 0; p < 3; p++) cf_free(part[p]);
        cf_free(whole);
    }
}

/* A mapped (read-only) filter can be the source, not the destination. */
static void test_mapped_source(void) {
    cf_config cfg = shape(500, 4, 0);
    cf_filter *a = make(&cfg), *b = make(&cfg), *m = NULL;
    fill(a, 0, 200);
    fill(b, 200, 400);
    const char *path = "test_merge.tmp.cf";
    REQUIRE(cf_save(b, path) == CF_OK);
    REQUIRE(cf_map(path, NULL, true, &m) == CF_OK);
    CHECK_STATUS(cf_merge(m, a), CF_E_READONLY);
    CHECK_STATUS(cf_merge(a, m), CF_OK);
    for (uint64_t k = 0; k < 400; k++) CHECK(cf_contains(a, &k, sizeof k));
    cf_free(m);
    remove(path);
    cf_free(a);
    cf_free(b);
}

/* Every parameter that places fingerprints must match; max_kicks need not. */
static void test_shapes_must_match(void) {
    cf_config base = shape(1000, 4, 0);
    base.fingerprint_bits = 12;
    cf_filter *dst = make(&base);
    fill(dst, 0, 10);
    size_t n;
    uint8_t *before = test_serialize(dst, &n);
    cf_config other[5];
    for (int i = 0; i < 5; i++) other[i] = base;
    other[0].capacity = 2000;
    other[1].bucket_size = 2;
    other[2].fingerprint_bits = 13;
    other[3].seed = 43;
    other[4].flags = CF_SEMI_SORT;
    for (int i = 0; i < 5; i++) {
        cf_filter *src = make(&other[i]);
        fill(src, 100, 110);
        CHECK_STATUS(cf_merge(dst, src), CF_E_PARAM);
        check_unchanged(dst, before, n);
        cf_free(src);
    }
    cf_config kicks = base;
    kicks.max_kicks = 7;
    cf_filter *src = make(&kicks);
    fill(src, 100, 110);
    CHECK_STATUS(cf_merge(dst, src), CF_OK);
    CHECK_STATUS(cf_merge(dst, dst), CF_E_PARAM);
    CHECK_STATUS(cf_merge(NULL, src), CF_E_PARAM);
    CHECK_STATUS(cf_merge(dst, NULL), CF_E_PARAM);
    /* Concurrent filters, and a grown with a plain one, are refused either
     * way round, and nothing changes. */
    static const unsigned special[] = {CF_GROW, CF_CONCURRENT};
    uint8_t *after_ok = test_serialize(dst, &n);
    for (int i = 0; i < 2; i++) {
        cf_config c = base;
        c.flags = special[i];
        c.fingerprint_bits = 0; /* CF_GROW derives its widths from the target */
        c.target_fpp = 0.01;
        cf_filter *g = make(&c);
        fill(g, 200, 210);
        CHECK_STATUS(cf_merge(dst, g), CF_E_PARAM);
        CHECK_STATUS(cf_merge(g, dst), CF_E_PARAM);
        check_unchanged(dst, after_ok, n);
        cf_free(g);
    }
    free(after_ok);
    cf_free(src);
    cf_free(dst);
    free(before);
}

/* When dst cannot take every fingerprint: CF_E_FULL, and dst exactly as it
 * was, both when the count alone rules it out and when the table fills
 * halfway through the merge (after evictions). */
static void test_full_changes_nothing(void) {
    cf_config cfg = shape(1000, 4, 0);
    cf_filter *dst = make(&cfg), *src = make(&cfg);
    cf_stats st;
    cf_get_stats(dst, &st);
    /* dst at the default load; src with more than the slots left free. */
    uint64_t k = 0;
    while (cf_insert(dst, &k, sizeof k) == CF_OK) k++;
    cf_get_stats(dst, &st);
    uint64_t free_slots = st.slots - st.items;
    uint64_t j = 1000000;
    for (uint64_t i = 0; i < free_slots + 1; i++, j++)
        REQUIRE(cf_insert(src, &j, sizeof j) == CF_OK);
    size_t n;
    uint8_t *before = test_serialize(dst, &n);
    CHECK_STATUS(cf_merge(dst, src), CF_E_FULL); /* by the count */
    check_unchanged(dst, before, n);
    free(before);
    cf_free(src);

    /* Fewer fingerprints than free slots, but not all can be placed (dst
     * may move at most one bucket's worth per insert and ends near full):
     * the merge fails after placing some, and is undone. */
    cf_config tight = cfg;
    tight.max_kicks = 1;
    cf_filter *dst2 = make(&tight), *src2 = make(&cfg);
    cf_get_stats(dst2, &st);
    uint64_t a = st.slots / 2;
    fill(dst2, 0, a);
    fill(src2, 5000000, 5000000 + st.slots * 45 / 100);
    cf_stats s1, s2;
    cf_get_stats(dst2, &s1);
    cf_get_stats(src2, &s2);
    REQUIRE(s1.items + s2.items <= s1.slots); /* passes the count check */
    before = test_serialize(dst2, &n);
    CHECK_STATUS(cf_merge(dst2, src2), CF_E_FULL);
    check_unchanged(dst2, before, n);
    cf_stats after;
    cf_get_stats(dst2, &after);
    CHECK_EQ(after.total_kicks, s1.total_kicks);
    CHECK_EQ(after.failed_inserts, s1.failed_inserts);
    for (uint64_t i = 0; i < a; i++) CHECK(cf_contains(dst2, &i, sizeof i));
    free(before);
    cf_free(src2);
    cf_free(dst2);
    cf_free(dst);
}

static void test_allocation_failure_changes_nothing(void) {
    test_counting c = {0, 0, 0};
    cf_allocator al = {test_counting_alloc, test_counting_free, &c, NULL, NULL};
    cf_config cfg = shape(1000, 4, 0);
    cfg.allocator = &al;
    cf_filter *dst = make(&cfg), *src = make(&cfg);
    fill(dst, 0, 300);
    fill(src, 300, 600);
    size_t n;
    uint8_t *before = test_serialize(dst, &n);
    c.fail_at = c.calls + 1; /* the merge's first allocation, its copy of dst */
    CHECK_STATUS(cf_merge(dst, src), CF_E_NOMEM);
    check_unchanged(dst, before, n);
    CHECK_STATUS(cf_merge(dst, src), CF_OK);
    for (uint64_t k = 0; k < 600; k++) CHECK(cf_contains(dst, &k, sizeof k));
    free(before);
    cf_free(src);
    cf_free(dst);
    CHECK_EQ(c.live, 0);
}

/* Grown filters built apart (same first table, growth and target) merge
 * table by table: a part that grew further gives dst the tables it lacks,
 * and the merged filter holds every key, counts them all and keeps its FPP
 * bound.  Fingerprints cannot move between tables without their keys, so
 * when a table of dst cannot take the same table of src's fingerprints the
 * merge fails with CF_E_FULL and dst is exactly as it was, as it is when a
 * table it needs would pass max_bytes. */
static cf_filter *grown(uint64_t max_bytes) {
    cf_config c;
    cf_config_init(&c);
    c.flags = CF_GROW;
    c.capacity = 1000;
    c.target_fpp = 0.01;
    c.seed = 5;
    c.max_bytes = max_bytes;
    return make(&c);
}

static void test_grown_filters_merge(void) {
    cf_filter *dst = grown(0), *wide = grown(0), *full = grown(0);
    fill(dst, 0, 400);    /* table 0, under half full */
    fill(wide, 400, 900); /* under half of table 0 ... */
    cf_stats s;
    cf_get_stats(wide, &s);
    CHECK_EQ(s.tables, 1);
    CHECK_STATUS(cf_merge(dst, wide), CF_OK);
    cf_get_stats(dst, &s);
    CHECK_EQ(s.items, 900);
    fill(full, 0, 3000); /* grown to more tables, table 0 full */
    cf_stats sf;
    cf_get_stats(full, &sf);
    CHECK(sf.tables >= 2);
    size_t n;
    uint8_t *before = test_serialize(dst, &n);
    CHECK_STATUS(cf_merge(dst, full), CF_E_FULL);
    check_unchanged(dst, before, n);
    free(before);
    /* An empty grown filter takes a grown one whole, tables included. */
    cf_filter *empty = grown(0);
    CHECK_STATUS(cf_merge(empty, full), CF_OK);
    cf_stats se;
    cf_get_stats(empty, &se);
    CHECK_EQ(se.items, sf.items);
    CHECK_EQ(se.tables, sf.tables);
    CHECK(se.fpp_bound < 0.01);
    uint64_t missing = 0, hits = 0;
    for (uint64_t k = 0; k < 3000; k++) missing += !cf_contains(empty, &k, sizeof k);
    CHECK_EQ(missing, 0);
    for (uint64_t k = 1000000; k < 1200000; k++) hits += cf_contains(empty, &k, sizeof k);
    CHECK(hits < 0.01 * 200000);
    /* Another growth does not merge; nor does a table dst may not add. */
    cf_config other;
    cf_config_init(&other);
    other.flags = CF_GROW, other.capacity = 1000, other.target_fpp = 0.01, other.seed = 5;
    other.growth = 3;
    cf_filter *g3 = make(&other);
    fill(g3, 0, 10);
    before = test_serialize(dst, &n);
    CHECK_STATUS(cf_merge(dst, g3), CF_E_PARAM);
    check_unchanged(dst, before, n);
    free(before);
    cf_stats t0;
    REQUIRE(cf_table_stats(dst, 0, &t0) == CF_OK);
    cf_filter *small = grown(t0.table_bytes);
    before = test_serialize(small, &n);
    CHECK_STATUS(cf_merge(small, full), CF_E_FULL);
    check_unchanged(small, before, n);
    free(before);
    cf_free(small), cf_free(g3), cf_free(empty), cf_free(full), cf_free(wide), cf_free(dst);
}

TEST_MAIN(TEST(test_parts_merge_like_one_build), TEST(test_grown_filters_merge),
          TEST(test_mapped_source), TEST(test_shapes_must_match), TEST(test_full_changes_nothing),
          TEST(test_allocation_failure_changes_nothing))
