/*
 * test_model.c -- the filter run side by side with an exact multiset, as
 * rax-test runs a hash table beside the radix tree.
 *
 * For many shapes (f, b, nb), random inserts, deletes and lookups go to both.
 * After every operation the filter must agree with the model where the model
 * is exact: no false negative, delete of a present item succeeds, count is an
 * upper bound, items == copies in the model, and an insert that reports
 * CF_E_FULL leaves the table byte-identical.  Each sequence runs twice, with
 * the SWAR bucket search and with the per-slot path, and the two tables must
 * end byte-identical.
 */
#include "test.h"

#include "cf_internal.h"

/* The exact model: key k in [0, universe) has count[k] copies inserted. */
typedef struct model {
    uint32_t *count;
    uint64_t universe;
    uint64_t total;
} model;

typedef struct shape {
    unsigned f, b;
    uint64_t nb;
    unsigned flags;
} shape;

static void check_no_false_negatives(const cf_filter *f, const model *m) {
    uint64_t missing = 0, undercount = 0;
    for (uint64_t k = 0; k < m->universe; k++) {
        if (m->count[k] == 0) continue;
        missing += !cf_contains(f, &k, sizeof k);
        undercount += cf_count(f, &k, sizeof k) < m->count[k];
    }
    CHECK_EQ(missing, 0);
    CHECK_EQ(undercount, 0);
    CHECK_EQ(f->items, m->total);
    CHECK_EQ(cf__count_occupied(f), m->total);
}

/* Inserts k, checking that a failure changes nothing. */
static cf_status model_insert(cf_filter *f, model *m, uint64_t k, uint8_t *snapshot) {
    memcpy(snapshot, f->table, f->table_bytes);
    uint64_t items = f->items;
    cf_status s = cf_insert(f, &k, sizeof k);
    if (s == CF_OK) {
        m->count[k]++;
        m->total++;
    } else {
        CHECK_STATUS(s, CF_E_FULL);
        CHECK(memcmp(snapshot, f->table, f->table_bytes) == 0);
        CHECK_EQ(f->items, items);
    }
    return s;
}

/* One random workload on one shape; returns the final table for comparison. */
static uint8_t *run_workload(shape sh, bool swar, uint64_t seed, size_t ops, size_t *bytes) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.fingerprint_bits = sh.f;
    cfg.bucket_size = sh.b;
    cfg.num_buckets = sh.nb;
    cfg.flags = sh.flags;
    cfg.seed = seed;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    if (!swar) f->swar = false; /* the per-slot path works for every layout */

    model m = {.universe = sh.nb * sh.b * 2 + 64};
    m.count = calloc(m.universe, sizeof *m.count);
    uint8_t *snapshot = malloc(f->table_bytes + 1);
    REQUIRE(m.count && snapshot);
    uint64_t rng = seed;

    /* Phase 1: mixed operations around half load. */
    for (size_t i = 0; i < ops; i++) {
        uint64_t k = test_rand(&rng) % m.universe;
        unsigned op = (unsigned)(test_rand(&rng) % 10);
        if (op < 5 && m.total < f->num_buckets * f->bucket_size / 2) {
            model_insert(f, &m, k, snapshot);
        } else if (op < 8) {
            if (m.count[k] > 0) {
                CHECK_STATUS(cf_delete(f, &k, sizeof k), CF_OK);
                m.count[k]--;
                m.total--;
            }
        } else if (m.count[k] > 0) {
            CHECK(cf_contains(f, &k, sizeof k));
        }
    }
    check_no_false_negatives(f, &m);

    /* Phase 2: fill past capacity until inserts keep failing. */
    unsigned failures = 0;
    for (uint64_t k = 0; k < m.universe && failures < 20; k++)
        failures += model_insert(f, &m, k, snapshot) != CF_OK;
    CHECK_GE(failures, 1);
    check_no_false_negatives(f, &m);

    /* Phase 3: the same key at most 2b times (fewer if its buckets are taken). */
    cf_clear(f);
    memset(m.count, 0, m.universe * sizeof *m.count);
    m.total = 0;
    uint64_t dup = 7;
    unsigned copies = 0;
    while (model_insert(f, &m, dup, snapshot) == CF_OK) copies++;
    CHECK_LE(copies, 2 * sh.b);
    CHECK_GE(copies, sh.b);
    CHECK_EQ(cf_count(f, &dup, sizeof dup), copies);
    for (unsigned c = 0; c < copies; c++) {
        CHECK_STATUS(cf_delete(f, &dup, sizeof dup), CF_OK);
        m.count[dup]--;
        m.total--;
    }
    CHECK_STATUS(cf_delete(f, &dup, sizeof dup), CF_E_NOT_FOUND);
    CHECK_EQ(f->items, 0);

    /* Phase 4: refill with the workload keys for the cross-path comparison. */
    for (uint64_t k = 0; k < m.universe / 2; k++) model_insert(f, &m, k, snapshot);
    check_no_false_negatives(f, &m);

    *bytes = f->table_bytes;
    uint8_t *table = malloc(f->table_bytes + 1);
    REQUIRE(table);
    memcpy(table, f->table, f->table_bytes);
    free(snapshot);
    free(m.count);
    cf_free(f);
    return table;
}

static void run_shape(shape sh, size_t ops) {
    uint64_t seed = sh.f * 1000003u + sh.b * 101u + sh.nb;
    size_t n1, n2;
    uint8_t *a = run_workload(sh, true, seed, ops, &n1);
    uint8_t *b = run_workload(sh, false, seed, ops, &n2);
    CHECK_EQ(n1, n2);
    if (memcmp(a, b, n1) != 0) {
        fprintf(stderr, "SWAR and per-slot tables differ for f=%u b=%u nb=%llu\n", sh.f, sh.b,
                (unsigned long long)sh.nb);
        CHECK(false);
    }
    free(a);
    free(b);
}

static void test_tiny_tables(void) {
    static const unsigned widths[] = {1, 2, 5, 7, 8, 12, 13, 16, 31, 32};
    static const unsigned sizes[] = {1, 2, 4, 8};
    static const uint64_t buckets[] = {1, 2, 3, 5};
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
        for (size_t s = 0; s < 4; s++)
            for (size_t n = 0; n < 4; n++)
                run_shape((shape){widths[w], sizes[s], buckets[n], 0}, 2000);
}

static void test_odd_and_prime_tables(void) {
    static const shape shapes[] = {
        {12, 4, 97, 0},  {12, 4, 1000, 0}, {8, 4, 1024, 0},  {7, 2, 4099, 0}, {13, 8, 313, 0},
        {16, 4, 509, 0}, {5, 1, 1021, 0},  {31, 2, 777, 0},  {32, 4, 255, 0}, {1, 4, 64, 0},
        {2, 8, 129, 0},  {9, 8, 2048, 0},  {24, 4, 3001, 0}, {12, 1, 8191, 0}, {3, 2, 600, 0},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) run_shape(shapes[i], 500000);
}

static void test_semisorted_tables(void) {
    static const shape shapes[] = {
        {5, 4, 1, CF_SEMI_SORT},     {5, 4, 3, CF_SEMI_SORT},    {8, 4, 2, CF_SEMI_SORT},
        {12, 4, 97, CF_SEMI_SORT},   {12, 4, 1000, CF_SEMI_SORT}, {16, 4, 509, CF_SEMI_SORT},
        {7, 4, 4099, CF_SEMI_SORT},  {13, 4, 2048, CF_SEMI_SORT},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) run_shape(shapes[i], 300000);
}

static int test_cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_alt_index_is_involution(void) {
    static const uint64_t buckets[] = {1, 2, 3, 7, 10, 97, 1000, 65536, 65537, 1000003,
                                       4294967311ull, (1ull << 62) + 5};
    static const unsigned widths[] = {1, 7, 12, 16, 32};
    uint64_t rng = 42, bad = 0;
    for (size_t n = 0; n < sizeof buckets / sizeof *buckets; n++)
        for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
            /* A handle without a table: enough for index arithmetic. */
            cf_filter *f;
            REQUIRE(cf__filter_alloc(NULL, buckets[n], 4, widths[w], 0, 500, &f) == CF_OK);
            uint64_t nb = buckets[n];
            /* Every bucket of small tables, random ones (and both ends) of large. */
            uint64_t probes = nb <= 70000 ? nb : 20000;
            for (uint64_t t = 0; t < probes; t++) {
                uint64_t i = nb <= 70000 ? t : t < 2 ? t * (nb - 1) : test_rand(&rng) % nb;
                uint32_t fp = cf__fingerprint(test_rand(&rng), widths[w]);
                uint64_t j = cf__alt_index(f, i, fp);
                bad += j >= nb || cf__alt_index(f, j, fp) != i;
            }
            cf_free(f);
        }
    CHECK_EQ(bad, 0);

    /* The 4095 12-bit fingerprints send bucket 0 to partners spread like
     * independent random choices: about n^2 / 2nb = 8.4 collide, and each
     * sixteenth of the table gets 256 +- 5 sigma (sigma = 15.5). */
    cf_filter *f;
    REQUIRE(cf__filter_alloc(NULL, 1000003, 4, 12, 0, 500, &f) == CF_OK);
    uint64_t *seen = calloc(4095, sizeof *seen);
    unsigned per_part[16] = {0};
    REQUIRE(seen != NULL);
    for (uint32_t fp = 1; fp <= 4095; fp++) {
        seen[fp - 1] = cf__alt_index(f, 0, fp);
        per_part[seen[fp - 1] * 16 / 1000003]++;
    }
    /* The reason for the mixed map: the step c(v + 1) - c(v) between
     * consecutive fingerprints' reflection points takes about as many values
     * as there are steps (a multiplicative map gives two or three). */
    uint64_t *steps = calloc(4094, sizeof *steps);
    REQUIRE(steps != NULL);
    for (size_t k = 0; k + 1 < 4095; k++)
        steps[k] = (seen[k + 1] + 1000003 - seen[k]) % 1000003;
    qsort(steps, 4094, sizeof *steps, test_cmp_u64);
    uint64_t distinct_steps = 1;
    for (size_t k = 1; k < 4094; k++) distinct_steps += steps[k] != steps[k - 1];
    CHECK_GE(distinct_steps, 4000);
    /* ... while map 1 (files before 0.2) has only a few distinct steps. */
    f->partner_map = CF__MAP_GOLDEN;
    cf__derive_layout(f);
    for (size_t k = 0; k + 1 < 4095; k++)
        steps[k] = (cf__alt_index(f, 0, (uint32_t)k + 2) + 1000003 - cf__alt_index(f, 0, (uint32_t)k + 1)) % 1000003;
    qsort(steps, 4094, sizeof *steps, test_cmp_u64);
    uint64_t golden_steps = 1;
    for (size_t k = 1; k < 4094; k++) golden_steps += steps[k] != steps[k - 1];
    CHECK_LE(golden_steps, 3);
    qsort(seen, 4095, sizeof *seen, test_cmp_u64);
    uint64_t distinct = 1;
    for (size_t k = 1; k < 4095; k++) distinct += seen[k] != seen[k - 1];
    CHECK_GE(distinct, 4095 - 30);
    for (int k = 0; k < 16; k++) {
        CHECK_GE(per_part[k], 256 - 78);
        CHECK_LE(per_part[k], 256 + 78);
    }
    free(steps);
    free(seen);
    cf_free(f);
}

static void test_fingerprint_range(void) {
    uint64_t rng = 7, bad = 0;
    for (unsigned f = 1; f <= 32; f++) {
        uint64_t max = ((uint64_t)1 << f) - 1;
        bad += cf__fingerprint(0, f) != 1 || cf__fingerprint(0xffffffffu, f) != max;
        for (int t = 0; t < 10000; t++) {
            uint32_t fp = cf__fingerprint(test_rand(&rng), f);
            bad += fp == 0 || fp > max;
        }
    }
    CHECK_EQ(bad, 0);
}

TEST_MAIN(TEST(test_alt_index_is_involution), TEST(test_fingerprint_range), TEST(test_tiny_tables),
          TEST(test_odd_and_prime_tables), TEST(test_semisorted_tables))
