/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_chain.c -- filters that grow (CF_GROW), run beside an exact model.
 *
 * The claims: no false negatives however far a filter grows (and after
 * deletes), counts are upper bounds, a refused insert (max_bytes, or an
 * allocation failure while adding a table) leaves the filter's bytes
 * unchanged, the sum of the tables' full-load FPPs stays below the target
 * and the measured FPP under the union bound, the serialized form
 * round-trips through memory, files and mappings, and every allocation
 * failure comes back as CF_E_NOMEM with nothing leaked.
 *
 * `test_chain --long` runs the full case: 1,000 items at 1% fed
 * 10,000,000 keys (ctest label "long"); the default run feeds 500,000.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <unistd.h>

#include "test.h"

#include "cuckoofilter.h"

typedef struct buf {
    uint8_t *p;
    size_t n;
} buf;

static buf ser(const cf_filter *f) {
    buf b;
    b.p = test_serialize(f, &b.n);
    return b;
}

static bool same(buf a, buf b) {
    return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

static cf_config grow_config(uint64_t capacity, double fpp, unsigned growth) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.flags = CF_GROW;
    cfg.capacity = capacity;
    cfg.target_fpp = fpp;
    cfg.growth = growth;
    return cfg;
}

static cf_stats stats_of(const cf_filter *f) {
    cf_stats st;
    cf_get_stats(f, &st);
    return st;
}

/* ---- the model ---- */

typedef test_model model;

static void check_model(const cf_filter *f, const model *m) {
    test_model_all_found(f, m);
    /* Ambiguous deletes keep copies, so the filter may hold more. */
    CHECK_GE(stats_of(f).items, m->total);
}

typedef struct grow_shape {
    unsigned b, growth, flags;
    uint64_t capacity;
    double fpp;
    uint64_t max_bytes;
} grow_shape;

/* Random inserts (a third of them repeats), deletes of present keys and
 * lookups; the universe is large enough to make the filter grow several
 * times.  An insert refused at max_bytes must leave the bytes unchanged. */
static void run_model(grow_shape sh, uint64_t seed) {
    cf_config cfg = grow_config(sh.capacity, sh.fpp, sh.growth);
    cfg.bucket_size = sh.b;
    cfg.flags |= sh.flags;
    cfg.max_bytes = sh.max_bytes;
    cfg.seed = seed;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    model m = {.universe = sh.capacity * 40};
    m.count = calloc(m.universe, sizeof *m.count);
    REQUIRE(m.count != NULL);
    uint64_t rng = seed, fulls = 0;
    for (size_t i = 0; i < sh.capacity * 30; i++) {
        uint64_t r = test_rand(&rng), k = r % m.universe;
        unsigned op = (unsigned)(r >> 60);
        if (op < 11) {
            buf before = fulls < 8 ? ser(f) : (buf){NULL, 0};
            cf_status s = cf_insert(f, &k, sizeof k);
            if (s == CF_OK) {
                m.count[k]++;
                m.total++;
            } else {
                CHECK_STATUS(s, CF_E_FULL);
                /* Refused at max_bytes, or for a key whose copies fill its buckets. */
                CHECK(sh.max_bytes != 0 || cf_count(f, &k, sizeof k) >= sh.b);
                if (before.p != NULL) {
                    buf after = ser(f);
                    /* Only the refusal counter moves. */
                    CHECK_EQ(after.n, before.n);
                    CHECK(memcmp(after.p + 64, before.p + 64, after.n - 64) == 0);
                    free(after.p);
                }
                fulls++;
            }
            free(before.p);
        } else if (op < 14) {
            if (m.count[k] == 0) continue;
            CHECK_STATUS(cf_delete(f, &k, sizeof k), CF_OK);
            m.count[k]--;
            m.total--;
        } else if (m.count[k] != 0) {
            CHECK(cf_contains(f, &k, sizeof k));
        }
    }
    check_model(f, &m);
    cf_stats st = stats_of(f);
    CHECK_GE(st.tables, 2);
    CHECK(st.fpp_bound < sh.fpp);
    CHECK(st.expected_fpp <= st.fpp_bound);
    CHECK_EQ(st.failed_inserts, fulls);
    if (sh.max_bytes != 0) {
        CHECK_LE(st.table_bytes, sh.max_bytes);
        CHECK_GE(fulls, 1);
    }
    /* Round trip: same bytes, same answers. */
    buf b = ser(f);
    cf_filter *g;
    REQUIRE(cf_deserialize(b.p, b.n, NULL, &g) == CF_OK);
    buf b2 = ser(g);
    CHECK(same(b, b2));
    check_model(g, &m);
    /* The rebuilt filter keeps growing as the original would. */
    for (uint64_t k = m.universe; k < m.universe + sh.capacity * 4; k++) {
        cf_status s1 = cf_insert(f, &k, sizeof k), s2 = cf_insert(g, &k, sizeof k);
        CHECK_EQ(s1, s2);
    }
    buf c1 = ser(f), c2 = ser(g);
    CHECK(same(c1, c2));
    free(b.p), free(b2.p), free(c1.p), free(c2.p);
    free(m.count);
    cf_free(f), cf_free(g);
}

static void test_model_shapes(void) {
    static const grow_shape shapes[] = {
        {4, 2, 0, 200, 0.01, 0},
        {2, 2, 0, 150, 0.02, 0},
        {8, 3, 0, 300, 0.001, 0},
        {4, 1, 0, 100, 0.05, 0},            /* equal tables (EXPANSION 1) */
        {4, 2, CF_SEMI_SORT, 200, 0.01, 0}, /* semi-sorted while widths allow */
        {4, 2, 0, 200, 0.01, 3000},         /* stops at max_bytes */
        {1, 2, 0, 100, 0.03, 0},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) run_model(shapes[i], 17 + i);
}

/* ---- the FPP budget and the case ---- */

static void fill_and_measure(uint64_t n) {
    cf_config cfg = grow_config(1000, 0.01, 2);
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    for (uint64_t k = 0; k < n; k++) REQUIRE(cf_insert(f, &k, sizeof k) == CF_OK);
    uint64_t missing = 0;
    for (uint64_t k = 0; k < n; k++) missing += !cf_contains(f, &k, sizeof k);
    CHECK_EQ(missing, 0);
    cf_stats st = stats_of(f);
    CHECK_EQ(st.items, n);
    CHECK(st.fpp_bound < 0.01);
    CHECK(st.bits_per_item <= 30.0);
    /* Measured over as many absent keys: under the union bound at the loads
     * now, with room for sampling noise (4 standard deviations). */
    uint64_t fp = 0, probes = n < 2000000 ? 2000000 : n;
    for (uint64_t k = n; k < n + probes; k++) fp += cf_contains(f, &k, sizeof k);
    double measured = (double)fp / (double)probes;
    double slack = 4.0 * sqrt(st.expected_fpp / (double)probes);
    printf("  %" PRIu64 " keys: %u tables, %.2f bits/item, FPP %.5f (now <= %.5f, ever < %.5f)\n",
           n, st.tables, st.bits_per_item, measured, st.expected_fpp, st.fpp_bound);
    CHECK(measured <= st.expected_fpp + slack);
    /* The tables' stats add up to the filter's. */
    uint64_t items = 0;
    double bound = 0.0;
    for (unsigned k = 0; k < st.tables; k++) {
        cf_stats t;
        REQUIRE(cf_table_stats(f, k, &t) == CF_OK);
        items += t.items;
        bound += cf_theoretical_fpp(t.fingerprint_bits, t.bucket_size, 1.0);
        CHECK_EQ(t.tables, 1);
    }
    CHECK_EQ(items, st.items);
    CHECK_DBL_NEAR(bound, st.fpp_bound, 1e-12);
    cf_stats t;
    CHECK_STATUS(cf_table_stats(f, st.tables, &t), CF_E_PARAM);
    /* The file round-trips: load and map give the same bytes and answers. */
    char path[64];
    snprintf(path, sizeof path, "test_grow_%ld.cf", (long)getpid());
    REQUIRE(cf_save(f, path) == CF_OK);
    cf_filter *l, *m;
    REQUIRE(cf_load(path, NULL, &l) == CF_OK);
    REQUIRE(cf_map(path, NULL, true, &m) == CF_OK);
    buf a = ser(f), b = ser(l), c = ser(m);
    CHECK(same(a, b) && same(a, c));
    uint64_t disagree = 0;
    for (uint64_t k = 0; k < 2 * n; k += 97)
        disagree += cf_contains(m, &k, sizeof k) != cf_contains(f, &k, sizeof k);
    CHECK_EQ(disagree, 0);
    CHECK(stats_of(m).read_only);
    uint64_t k = 0;
    CHECK_STATUS(cf_insert(m, &k, sizeof k), CF_E_READONLY);
    CHECK_STATUS(cf_delete(m, &k, sizeof k), CF_E_READONLY);
    unlink(path);
    free(a.p), free(b.p), free(c.p);
    cf_free(f), cf_free(l), cf_free(m);
}

static void test_half_million_keys(void) {
    fill_and_measure(500000);
}

static void test_ten_million_keys(void) {
    fill_and_measure(10000000);
}

/* Equal tables (growth 1) stop at CF_MAX_TABLES or at 32-bit widths; the
 * budget holds all the way. */
static void test_budget_to_the_end(void) {
    cf_config cfg = grow_config(16, 0.01, 1);
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    cf_status s = CF_OK;
    uint64_t k = 0;
    for (; k < 100000 && s == CF_OK; k++) s = cf_insert(f, &k, sizeof k);
    CHECK_STATUS(s, CF_E_FULL);
    cf_stats st = stats_of(f);
    CHECK(st.tables == CF_MAX_TABLES || st.fingerprint_bits >= 30);
    CHECK(st.fpp_bound < 0.01);
    CHECK_EQ(st.failed_inserts, 1);
    double spent = 0.0;
    for (unsigned t = 0; t < st.tables; t++) {
        cf_stats ts;
        REQUIRE(cf_table_stats(f, t, &ts) == CF_OK);
        double fpp = cf_theoretical_fpp(ts.fingerprint_bits, ts.bucket_size, 1.0);
        /* Each table within a quarter of what the ones before it left. */
        CHECK(fpp <= (0.01 - spent) / 4 || t == 0);
        spent += fpp;
    }
    for (uint64_t j = 0; j + 1 < k; j++) REQUIRE(cf_contains(f, &j, sizeof j));
    cf_free(f);
}

/* ---- deletes ---- */

/* A chain where "x" has a copy in table 0 and one in table 1 (inserted
 * before and after the filter grew), so that a delete of x cannot tell
 * which copy is its own; *keys are the integer keys that made it grow. */
static cf_filter *two_tables_of(const char *x, const cf_allocator *a, uint64_t *keys) {
    cf_config cfg = grow_config(100, 0.01, 2);
    cfg.allocator = a;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    REQUIRE(cf_insert(f, x, strlen(x)) == CF_OK);
    uint64_t k = 0;
    for (; stats_of(f).tables < 2; k++) REQUIRE(cf_insert(f, &k, sizeof k) == CF_OK);
    REQUIRE(cf_insert(f, x, strlen(x)) == CF_OK);
    REQUIRE(cf_count(f, x, strlen(x)) == 2);
    *keys = k;
    return f;
}

static void test_delete_rules(void) {
    const char *x = "inserted-before-growth";
    uint64_t k;
    cf_filter *f = two_tables_of(x, NULL, &k);
    uint64_t items = stats_of(f).items;
    /* Ambiguous: the delete is owed, both copies stay (a false positive)
     * and the file says so (version 8). */
    CHECK_STATUS(cf_delete(f, x, strlen(x)), CF_OK);
    CHECK_EQ(cf_count(f, x, strlen(x)), 2);
    CHECK_EQ(stats_of(f).items, items);
    CHECK(cf_contains(f, x, strlen(x)));
    CHECK_EQ(stats_of(f).format_version, 8);
    /* Inserting x again takes the owed delete back: no third copy. */
    CHECK_STATUS(cf_insert(f, x, strlen(x)), CF_OK);
    CHECK_EQ(cf_count(f, x, strlen(x)), 2);
    CHECK_EQ(stats_of(f).format_version, 2);
    /* Both copies deleted: as many deletes owed as copies, so every copy
     * is x's and both go. */
    CHECK_STATUS(cf_delete(f, x, strlen(x)), CF_OK);
    CHECK_STATUS(cf_delete(f, x, strlen(x)), CF_OK);
    CHECK_EQ(cf_count(f, x, strlen(x)), 0);
    CHECK(!cf_contains(f, x, strlen(x)));
    CHECK_EQ(stats_of(f).items, items - 2);
    CHECK_EQ(stats_of(f).format_version, 2);
    CHECK_STATUS(cf_delete(f, x, strlen(x)), CF_E_NOT_FOUND);
    /* A key in one table only is removed from it. */
    const char *y = "after-growth";
    REQUIRE(cf_insert(f, y, strlen(y)) == CF_OK);
    size_t before = cf_count(f, y, strlen(y));
    CHECK_STATUS(cf_delete(f, y, strlen(y)), CF_OK);
    if (before == 1) CHECK(!cf_contains(f, y, strlen(y)));
    CHECK_EQ(cf_count(f, y, strlen(y)), before - 1);
    /* Every key inserted before is still there. */
    for (uint64_t j = 0; j < k; j++) CHECK(cf_contains(f, &j, sizeof j));
    const char *z = "never-inserted-key";
    if (!cf_contains(f, z, strlen(z))) CHECK_STATUS(cf_delete(f, z, strlen(z)), CF_E_NOT_FOUND);
    /* cf_clear empties every table and the ledger, and keeps the tables. */
    unsigned tables = stats_of(f).tables;
    CHECK_STATUS(cf_clear(f), CF_OK);
    CHECK_EQ(stats_of(f).items, 0);
    CHECK_EQ(stats_of(f).tables, tables);
    cf_free(f);
}

/* An owed delete travels with the filter: memory, files, mappings and
 * cf_merge; the loaded filter takes it back as the original does, and its
 * bytes are the original's. */
static void test_owed_deletes_travel(void) {
    const char *x = "inserted-before-growth";
    uint64_t k;
    cf_filter *f = two_tables_of(x, NULL, &k);
    REQUIRE(cf_delete(f, x, strlen(x)) == CF_OK);
    buf b = ser(f);
    CHECK_EQ(b.p[8], 8);
    CHECK_EQ(b.n, cf_serialized_size(f));
    cf_filter *g = NULL, *l = NULL, *m = NULL;
    REQUIRE(cf_deserialize(b.p, b.n, NULL, &g) == CF_OK);
    buf bg = ser(g);
    CHECK(same(b, bg));
    char path[64];
    snprintf(path, sizeof path, "test_owed_%ld.cf", (long)getpid());
    REQUIRE(cf_save(f, path) == CF_OK);
    REQUIRE(cf_load(path, NULL, &l) == CF_OK);
    REQUIRE(cf_map(path, NULL, true, &m) == CF_OK);
    buf bl = ser(l), bm = ser(m);
    CHECK(same(b, bl) && same(b, bm));
    /* Any range of the form is the form's bytes (the ledger included). */
    uint8_t piece[40];
    for (size_t at = 0; at + sizeof piece <= b.n; at += 17) {
        REQUIRE(cf_serialize_range(f, at, piece, sizeof piece) == CF_OK);
        CHECK(memcmp(piece, b.p + at, sizeof piece) == 0);
    }
    /* A damaged ledger is refused, never half read. */
    for (size_t at = b.n - 24; at < b.n; at += 7) {
        b.p[at] ^= 0x10;
        cf_filter *bad = NULL;
        cf_status s = cf_deserialize(b.p, b.n, NULL, &bad);
        CHECK(s == CF_E_CHECKSUM || s == CF_E_CORRUPT);
        CHECK(bad == NULL);
        b.p[at] ^= 0x10;
    }
    cf_filter *cut = NULL;
    CHECK_STATUS(cf_deserialize(b.p, b.n - 1, NULL, &cut), CF_E_TRUNCATED);
    CHECK(cut == NULL);
    /* The loaded filter and the original answer alike from here on. */
    REQUIRE(cf_insert(f, x, strlen(x)) == CF_OK);
    REQUIRE(cf_insert(g, x, strlen(x)) == CF_OK);
    CHECK_EQ(cf_count(g, x, strlen(x)), 2);
    buf af = ser(f), ag = ser(g);
    CHECK(same(af, ag));
    CHECK_STATUS(cf_insert(m, x, strlen(x)), CF_E_READONLY);
    /* Merging: dst owes what both owed, so nothing is counted twice.  Two
     * sparse chains of two tables, x in each table of each, one delete of
     * x owed by each: of x's four copies two are deleted ones. */
    cf_filter *d = NULL, *s2 = NULL;
    cf_config cfg = grow_config(100, 0.01, 2);
    REQUIRE(cf_new(&cfg, &d) == CF_OK && cf_new(&cfg, &s2) == CF_OK);
    for (int side = 0; side < 2; side++) {
        cf_filter *t = side ? s2 : d;
        REQUIRE(cf_insert(t, x, strlen(x)) == CF_OK && cf_grow_add_table(t) == CF_OK);
        REQUIRE(cf_insert(t, x, strlen(x)) == CF_OK && cf_delete(t, x, strlen(x)) == CF_OK);
        REQUIRE(stats_of(t).format_version == 8);
    }
    REQUIRE(cf_merge(d, s2) == CF_OK);
    CHECK_EQ(cf_count(d, x, strlen(x)), 4);
    CHECK_STATUS(cf_delete(d, x, strlen(x)), CF_OK); /* owes 3 of 4 */
    CHECK_EQ(cf_count(d, x, strlen(x)), 4);
    CHECK_STATUS(cf_delete(d, x, strlen(x)), CF_OK); /* owes 4 of 4: all go */
    CHECK_EQ(cf_count(d, x, strlen(x)), 0);
    CHECK_STATUS(cf_delete(d, x, strlen(x)), CF_E_NOT_FOUND);
    unlink(path);
    free(b.p), free(bg.p), free(bl.p), free(bm.p), free(af.p), free(ag.p);
    cf_free(f), cf_free(g), cf_free(l), cf_free(m), cf_free(d), cf_free(s2);
}

/* A delete that must owe but cannot allocate the ledger says so and
 * changes nothing (the first CF__PENDING_SMALL owed keys need no
 * allocation: nine keys with a copy in each of two tables are owed). */
static void test_owed_delete_nomem(void) {
    test_counting c = {0, 0, 0};
    cf_allocator a = {test_counting_alloc, test_counting_free, &c, NULL, NULL};
    cf_config cfg = grow_config(100, 0.01, 2);
    cfg.allocator = &a;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    uint64_t keys[9];
    for (unsigned i = 0; i < 9; i++) {
        keys[i] = 1000 + i;
        REQUIRE(cf_insert(f, &keys[i], sizeof keys[i]) == CF_OK);
    }
    REQUIRE(cf_grow_add_table(f) == CF_OK);
    for (unsigned i = 0; i < 9; i++) REQUIRE(cf_insert(f, &keys[i], sizeof keys[i]) == CF_OK);
    size_t memory = cf_memory_usage(f);
    for (unsigned i = 0; i < 8; i++) REQUIRE(cf_delete(f, &keys[i], sizeof keys[i]) == CF_OK);
    CHECK_EQ(cf_memory_usage(f), memory); /* eight owed: held inside the chain */
    buf before = ser(f);
    c.fail_at = c.calls + 1;
    CHECK_STATUS(cf_delete(f, &keys[8], sizeof keys[8]), CF_E_NOMEM);
    buf after = ser(f);
    CHECK(same(before, after));
    c.fail_at = 0;
    CHECK_STATUS(cf_delete(f, &keys[8], sizeof keys[8]), CF_OK);
    CHECK_LT(memory, cf_memory_usage(f));
    /* Taken back, every one: the array goes and the memory is as before. */
    for (unsigned i = 0; i < 9; i++) REQUIRE(cf_insert(f, &keys[i], sizeof keys[i]) == CF_OK);
    CHECK_EQ(cf_memory_usage(f), memory);
    for (unsigned i = 0; i < 9; i++) CHECK_EQ(cf_count(f, &keys[i], sizeof keys[i]), 2);
    free(before.p), free(after.p);
    cf_free(f);
    CHECK_EQ(c.live, 0);
}

/* Issue 48's bounds: churn of a bounded set of live keys keeps a grown
 * filter's memory flat.  `cycles` delete-all / insert-all cycles of n keys
 * into a filter created for `capacity`: no refused insert, the memory
 * after the last cycle is the memory after the first, and after deleting
 * every key at most 1% of n copies are left. */
static void churn(uint64_t capacity, uint64_t n, unsigned cycles) {
    cf_config cfg = grow_config(capacity, 0.01, 2);
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    for (uint64_t j = 0; j < n; j++) REQUIRE(cf_insert(f, &j, sizeof j) == CF_OK);
    size_t first = 0;
    unsigned tables = 0;
    for (unsigned c = 0; c < cycles; c++) {
        for (uint64_t j = 0; j < n; j++) REQUIRE(cf_delete(f, &j, sizeof j) == CF_OK);
        for (uint64_t j = 0; j < n; j++) REQUIRE(cf_insert(f, &j, sizeof j) == CF_OK);
        if (c == 0) first = cf_memory_usage(f), tables = stats_of(f).tables;
    }
    CHECK_EQ(cf_memory_usage(f), first);
    CHECK_EQ(stats_of(f).tables, tables);
    CHECK_EQ(stats_of(f).failed_inserts, 0);
    for (uint64_t j = 0; j < n; j++) CHECK(cf_contains(f, &j, sizeof j));
    for (uint64_t j = 0; j < n; j++) REQUIRE(cf_delete(f, &j, sizeof j) == CF_OK);
    CHECK_LE(stats_of(f).items * 100, n);
    cf_free(f);
}

static void test_churn_keeps_memory_flat(void) {
    bool quick = getenv("CF_TEST_QUICK") != NULL;
    churn(1000, 4000, quick ? 20 : 200);
    churn(1000, 65536, quick ? 2 : 20);
}

/* The full case for n = 65,536 (label long). */
static void test_churn_65536_long(void) {
    churn(1000, 65536, 200);
}

/* 100 keys added and deleted 1,000 times each on a grown filter: no
 * refusal, no growth. */
static void test_add_delete_pairs(void) {
    cf_config cfg = grow_config(1000, 0.01, 2);
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    for (uint64_t j = 0; j < 4000; j++) REQUIRE(cf_insert(f, &j, sizeof j) == CF_OK);
    size_t memory = cf_memory_usage(f);
    unsigned tables = stats_of(f).tables;
    uint64_t items = stats_of(f).items;
    for (unsigned r = 0; r < 1000; r++)
        for (uint64_t j = 100000; j < 100100; j++) {
            REQUIRE(cf_insert(f, &j, sizeof j) == CF_OK);
            REQUIRE(cf_delete(f, &j, sizeof j) == CF_OK);
        }
    CHECK_EQ(cf_memory_usage(f), memory);
    CHECK_EQ(stats_of(f).tables, tables);
    CHECK_LE(stats_of(f).items, items + 100);
    for (uint64_t j = 0; j < 4000; j++) CHECK(cf_contains(f, &j, sizeof j));
    cf_free(f);
}

/* Copies of one key fill its buckets in the newest table, then CF_E_FULL:
 * no table is added for them. */
static void test_copies_do_not_grow(void) {
    cf_config cfg = grow_config(1000, 0.01, 2);
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    unsigned copies = 0;
    while (cf_insert(f, "same", 4) == CF_OK) copies++;
    CHECK_EQ(copies, 2 * CF_DEFAULT_BUCKET_SIZE);
    buf before = ser(f);
    CHECK_STATUS(cf_insert(f, "same", 4), CF_E_FULL);
    buf after = ser(f);
    CHECK(memcmp(before.p + 64, after.p + 64, before.n - 64) == 0);
    CHECK_EQ(stats_of(f).tables, 1);
    CHECK_EQ(stats_of(f).failed_inserts, 2);
    free(before.p), free(after.p);
    cf_free(f);
}

/* ---- parameters ---- */

static void test_params(void) {
    cf_filter *f = (cf_filter *)1;
    cf_config cfg = grow_config(1000, 0.01, CF_MAX_GROWTH + 1);
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    CHECK(f == NULL);
    cfg = grow_config(1000, 0.01, 2);
    cfg.flags |= 2u; /* CF_CONCURRENT, or any flag not yet known */
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    cfg = grow_config(1000, 0.01, 2);
    cfg.fingerprint_bits = 3; /* 8 / 7 > 1%: no budget left */
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    cfg = grow_config(1000, 0.01, 2);
    cfg.max_bytes = 100;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    cfg = grow_config(1000, 1.0, 2);
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    /* growth 0 means the default, as the other zero fields do. */
    cfg = grow_config(1000, 0.01, 0);
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    CHECK_EQ(stats_of(f).growth, CF_DEFAULT_GROWTH);
    CHECK_EQ(stats_of(f).tables, 1);
    CHECK_DBL_NEAR(stats_of(f).target_fpp, 0.01, 0);
    cf_stats st;
    CHECK_STATUS(cf_table_stats(f, 1, &st), CF_E_PARAM);
    CHECK_STATUS(cf_table_stats(NULL, 0, &st), CF_E_PARAM);
    cf_free(f);
    /* A single table reports itself as table 0. */
    cf_config_init(&cfg);
    cfg.capacity = 1000;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    CHECK_STATUS(cf_table_stats(f, 0, &st), CF_OK);
    CHECK_EQ(st.tables, 1);
    CHECK_EQ(st.growth, 0);
    CHECK_STATUS(cf_table_stats(f, 1, &st), CF_E_PARAM);
    cf_free(f);
}

/* Semi-sorted tables give way to plain ones once the width passes 16. */
static void test_semisort_to_plain(void) {
    cf_config cfg = grow_config(100, 6e-4, 2);
    cfg.flags |= CF_SEMI_SORT;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    for (uint64_t k = 0; k < 2000; k++) REQUIRE(cf_insert(f, &k, sizeof k) == CF_OK);
    cf_stats st = stats_of(f);
    REQUIRE(st.tables >= 3);
    unsigned semi = 0, plain = 0;
    for (unsigned t = 0; t < st.tables; t++) {
        cf_stats ts;
        REQUIRE(cf_table_stats(f, t, &ts) == CF_OK);
        if (ts.flags & CF_SEMI_SORT) {
            semi++;
            CHECK_LE(ts.fingerprint_bits, 16);
        } else {
            plain++;
            CHECK_LT(16, ts.fingerprint_bits);
        }
    }
    CHECK_GE(semi, 1);
    CHECK_GE(plain, 1);
    buf b = ser(f);
    cf_filter *g;
    REQUIRE(cf_deserialize(b.p, b.n, NULL, &g) == CF_OK);
    for (uint64_t k = 0; k < 2000; k++) CHECK(cf_contains(g, &k, sizeof k));
    free(b.p);
    cf_free(f), cf_free(g);
}

/* Batches answer as single calls do, across tables (a key found in a newer
 * table is not looked up in the older ones). */
static void test_batches(void) {
    cf_config cfg = grow_config(300, 0.01, 2);
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    uint64_t h[3000];
    for (uint64_t k = 0; k < 3000; k++) h[k] = cf_hash(f, &k, sizeof k);
    size_t inserted;
    CHECK_STATUS(cf_insert_batch(f, h, 2000, &inserted), CF_OK);
    CHECK_EQ(inserted, 2000);
    CHECK_GE(stats_of(f).tables, 3);
    bool out[3000];
    size_t found = cf_contains_batch(f, h, 3000, out);
    size_t single = 0;
    for (size_t k = 0; k < 3000; k++) {
        CHECK_EQ(out[k], cf_contains_hash(f, h[k]));
        single += out[k];
        if (k < 2000) CHECK(out[k]);
    }
    CHECK_EQ(found, single);
    CHECK_EQ(cf_contains_batch(f, h, 3000, NULL), single);
    /* The same tables as single inserts make, and the same counts. */
    cf_filter *g;
    REQUIRE(cf_new(&cfg, &g) == CF_OK);
    for (size_t k = 0; k < 2000; k++) CHECK_STATUS(cf_insert_hash(g, h[k]), CF_OK);
    size_t fs, gs;
    uint8_t *fb = test_serialize(f, &fs), *gb = test_serialize(g, &gs);
    CHECK(fs == gs && memcmp(fb, gb, fs) == 0);
    CHECK_EQ(stats_of(f).failed_inserts, stats_of(g).failed_inserts);
    CHECK_EQ(stats_of(f).tables, stats_of(g).tables);
    free(fb), free(gb);
    cf_free(g);
    size_t tail = 0; /* a short batch of present and absent keys */
    for (size_t k = 1990; k < 2010; k++) tail += cf_contains_hash(f, h[k]);
    CHECK_EQ(cf_contains_batch(f, h + 1990, 20, NULL), tail);
    CHECK_GE(tail, 10);
    CHECK_STATUS(cf_insert_unique_hash(f, h[0]), CF_E_EXISTS);
    cf_free(f);
}

/* ---- allocation failures ---- */

/* Grows a filter through several tables, round-trips it through memory and
 * a file; any allocation may fail. */
static cf_status grow_workload(test_counting *c, const char *path) {
    cf_allocator a = {test_counting_alloc, test_counting_free, c, NULL, NULL};
    cf_config cfg = grow_config(50, 0.01, 2);
    cfg.allocator = &a;
    cf_filter *f;
    cf_status s = cf_new(&cfg, &f);
    if (s != CF_OK) {
        CHECK(f == NULL);
        return s;
    }
    for (uint64_t k = 0; k < 1000; k++) {
        buf before = ser(f);
        s = cf_insert(f, &k, sizeof k);
        if (s == CF_OK) {
            free(before.p);
            continue;
        }
        CHECK_STATUS(s, CF_E_NOMEM);
        buf after = ser(f);
        CHECK(same(before, after));
        for (uint64_t j = 0; j < k; j++) CHECK(cf_contains(f, &j, sizeof j));
        free(before.p), free(after.p);
        cf_free(f);
        return s;
    }
    buf b = ser(f);
    cf_filter *g = NULL, *l = NULL;
    s = cf_deserialize(b.p, b.n, &a, &g);
    if (s == CF_OK) s = cf_save(f, path);
    if (s == CF_OK) s = cf_load(path, &a, &l);
    if (s == CF_OK) {
        buf bl = ser(l);
        CHECK(same(b, bl));
        free(bl.p);
    } else {
        CHECK_STATUS(s, CF_E_NOMEM);
    }
    free(b.p);
    cf_free(f), cf_free(g), cf_free(l);
    return s;
}

static void test_alloc_failures(void) {
    char path[64];
    snprintf(path, sizeof path, "test_grow_alloc_%ld.cf", (long)getpid());
    test_counting c = {0, 0, 0};
    REQUIRE(grow_workload(&c, path) == CF_OK);
    long total = c.calls;
    CHECK_GE(total, 8);
    CHECK_EQ(c.live, 0);
    for (long n = 1; n <= total; n++) {
        test_counting d = {0, n, 0};
        CHECK_STATUS(grow_workload(&d, path), CF_E_NOMEM);
        CHECK_EQ(d.live, 0);
    }
    unlink(path);
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--long") == 0) {
        static const test_case longs[] = {TEST(test_ten_million_keys), TEST(test_churn_65536_long)};
        return test_run_all(longs, 2);
    }
    static const test_case tests[] = {
        TEST(test_model_shapes),
        TEST(test_half_million_keys),
        TEST(test_budget_to_the_end),
        TEST(test_delete_rules),
        TEST(test_owed_deletes_travel),
        TEST(test_owed_delete_nomem),
        TEST(test_churn_keeps_memory_flat),
        TEST(test_add_delete_pairs),
        TEST(test_params),
        TEST(test_semisort_to_plain),
        TEST(test_batches),
        TEST(test_alloc_failures),
        TEST(test_copies_do_not_grow),
    };
    return test_run_all(tests, sizeof tests / sizeof tests[0]);
}
