/* SPDX-License-Identifier: Apache-2.0 OR MIT */
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
 * end byte-identical (layouts with no SWAR path run once); and the SWAR
 * run again with the table balanced (cf__table.balance, as SWAR tables
 * past 32 MiB are), whose inserts fill the emptier bucket.  And every table,
 * SWAR or not, is read back by an independent decoder written from
 * docs/FORMAT.md alone (bit by bit; semi-sorted codes by enumerating the
 * quadruples): the library's bucket search must agree with it for every
 * bucket, and every stored key's fingerprint must sit where the format says.
 */
#include "test.h"

#include "kind/handle.h"
#include "table/batch_x86.h"
#include "table/bucket.h"

/* ---- the independent decoder: docs/FORMAT.md, nothing from src/ ---- */

static uint64_t ref_bits(const uint8_t *table, uint64_t bit, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++, bit++)
        v |= (uint64_t)((table[bit >> 3] >> (bit & 7)) & 1) << i;
    return v;
}

/* Code -> prefixes p0 | p1 << 4 | p2 << 8 | p3 << 12: the sorted quadruples
 * in colexicographic order (by p3, then p2, p1, p0). */
static uint16_t ref_codes[3876];

static void ref_build_codes(void) {
    static bool built;
    if (built) return;
    built = true;
    unsigned n = 0;
    for (unsigned p3 = 0; p3 < 16; p3++)
        for (unsigned p2 = 0; p2 <= p3; p2++)
            for (unsigned p1 = 0; p1 <= p2; p1++)
                for (unsigned p0 = 0; p0 <= p1; p0++)
                    ref_codes[n++] = (uint16_t)(p0 | p1 << 4 | p2 << 8 | p3 << 12);
    REQUIRE(n == 3876);
}

/* Bucket i's fingerprints in slot order (ascending when semi-sorted). */
static void ref_bucket(const cf_filter *f, uint64_t i, uint32_t fp[CF_MAX_BUCKET_SIZE]) {
    unsigned w = f->t.fp_bits, b = f->t.bucket_size;
    if (f->t.flags & CF_SEMI_SORT) {
        ref_build_codes();
        uint64_t base = i * (4 * w - 4);
        uint64_t code = ref_bits(f->t.table, base, 12);
        REQUIRE(code < 3876);
        for (unsigned k = 0; k < 4; k++)
            fp[k] = (uint32_t)(((ref_codes[code] >> (4 * k)) & 15u) << (w - 4) |
                               ref_bits(f->t.table, base + 12 + k * (w - 4), w - 4));
        return;
    }
    for (unsigned s = 0; s < b; s++) fp[s] = (uint32_t)ref_bits(f->t.table, (i * b + s) * w, w);
}

/* The library's search (SWAR, semi-sorted or per-slot, whichever f uses)
 * against the decoder, bucket by bucket: the first slot holding 0, each
 * stored value and a few random ones; the occupied count; and every key of
 * the model found by the decoder in one of its two buckets. */
static void check_against_reference(const cf_filter *f, const uint32_t *model_count,
                                    uint64_t universe, uint64_t seed) {
    uint64_t rng = seed, occupied = 0, disagree = 0, missing = 0;
    uint32_t fp[CF_MAX_BUCKET_SIZE];
    for (uint64_t i = 0; i < f->t.num_buckets; i++) {
        ref_bucket(f, i, fp);
        uint32_t probes[CF_MAX_BUCKET_SIZE + 3];
        unsigned np = 0;
        for (unsigned s = 0; s < f->t.bucket_size; s++) {
            occupied += fp[s] != 0;
            probes[np++] = fp[s];
        }
        probes[np++] = 0;
        for (int r = 0; r < 2; r++) probes[np++] = (uint32_t)(test_rand(&rng) & f->t.fp_mask);
        for (unsigned p = 0; p < np; p++) {
            int want = -1;
            for (unsigned s = 0; s < f->t.bucket_size && want < 0; s++)
                if (fp[s] == probes[p]) want = (int)s;
            disagree += cf__bucket_find(&f->t, i, probes[p]) != want;
            disagree += cf__bucket_has(&f->t, i, probes[p]) != (want >= 0);
        }
    }
    for (uint64_t k = 0; k < universe; k++) {
        if (model_count[k] == 0) continue;
        uint64_t h = cf_hash(f, &k, sizeof k);
        uint32_t v = cf__fingerprint(h, f->t.fp_bits);
        uint64_t i1 = cf__index1(h, f->t.num_buckets), i2 = cf__alt_index(&f->t, i1, v);
        unsigned copies = 0;
        for (int side = 0; side < 2; side++) {
            if (side == 1 && i2 == i1) break;
            ref_bucket(f, side == 0 ? i1 : i2, fp);
            for (unsigned s = 0; s < f->t.bucket_size; s++) copies += fp[s] == v;
        }
        missing += copies < model_count[k];
    }
    CHECK_EQ(disagree, 0);
    CHECK_EQ(missing, 0);
    CHECK_EQ(occupied, f->t.items);
}

typedef test_model model; /* test.h */

typedef struct shape {
    unsigned f, b;
    uint64_t nb;
    unsigned flags;
} shape;

static void check_no_false_negatives(const cf_filter *f, const model *m) {
    test_model_all_found(f, m);
    CHECK_EQ(f->t.items, m->total);
    CHECK_EQ(cf__count_occupied(&f->t), m->total);
}

/* Inserts k, checking that a failure changes nothing. */
static cf_status model_insert(cf_filter *f, model *m, uint64_t k, uint8_t *snapshot) {
    memcpy(snapshot, f->t.table, f->t.table_bytes);
    uint64_t items = f->t.items;
    cf_status s = cf_insert(f, &k, sizeof k);
    if (s == CF_OK) {
        m->count[k]++;
        m->total++;
    } else {
        CHECK_STATUS(s, CF_E_FULL);
        CHECK(memcmp(snapshot, f->t.table, f->t.table_bytes) == 0);
        CHECK_EQ(f->t.items, items);
    }
    return s;
}

/* run_workload's tables balanced (run_shape's second pass). */
static bool force_balance;

/* One random workload on one shape; returns the final table for comparison
 * and tells whether the layout has a SWAR path. */
static uint8_t *run_workload(shape sh, bool swar, uint64_t seed, size_t ops, size_t *bytes,
                             bool *has_swar) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.fingerprint_bits = sh.f;
    cfg.bucket_size = sh.b;
    cfg.num_buckets = sh.nb;
    cfg.flags = sh.flags;
    cfg.seed = seed;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    *has_swar = f->t.swar;
    if (force_balance) f->t.balance = f->t.swar;
    if (!swar) { /* the per-slot path works for every layout */
        f->t.swar = false;
        f->t.addr = CF__ADDR_OTHER; /* the kernels of the other addressings are SWAR */
    }

    model m = {.universe = sh.nb * sh.b * 2 + 64};
    m.count = calloc(m.universe, sizeof *m.count);
    uint8_t *snapshot = malloc(f->t.table_bytes + 1);
    REQUIRE(m.count && snapshot);
    uint64_t rng = seed;

    /* Phase 1: mixed operations around half load. */
    for (size_t i = 0; i < ops; i++) {
        uint64_t k = test_rand(&rng) % m.universe;
        unsigned op = (unsigned)(test_rand(&rng) % 10);
        if (op < 5 && m.total < f->t.num_buckets * f->t.bucket_size / 2) {
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
    check_against_reference(f, m.count, m.universe, seed);

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
    CHECK_EQ(f->t.items, 0);

    /* Phase 4: refill with the workload keys for the cross-path comparison. */
    for (uint64_t k = 0; k < m.universe / 2; k++) model_insert(f, &m, k, snapshot);
    check_no_false_negatives(f, &m);
    check_against_reference(f, m.count, m.universe, seed + 1);

    *bytes = f->t.table_bytes;
    uint8_t *table = malloc(f->t.table_bytes + 1);
    REQUIRE(table);
    memcpy(table, f->t.table, f->t.table_bytes);
    free(snapshot);
    free(m.count);
    cf_free(f);
    return table;
}

/* CF_TEST_QUICK=1 (the memcheck run, tests/CMakeLists.txt): a tenth of the
 * random operations per shape, so valgrind finishes in under a minute; the
 * shapes, the fills and the checks are the same. */
static bool quick(void) {
    const char *q = getenv("CF_TEST_QUICK");
    return q != NULL && strcmp(q, "1") == 0;
}

static void run_shape(shape sh, size_t ops) {
    if (quick()) ops /= 10;
    uint64_t seed = sh.f * 1000003u + sh.b * 101u + sh.nb;
    for (int balanced = 0; balanced < 2; balanced++) {
        force_balance = balanced;
        size_t n1, n2;
        bool has_swar;
        uint8_t *a = run_workload(sh, true, seed, ops, &n1, &has_swar);
        /* One path only (balanced tables are SWAR): the reference decoder
         * checked it. */
        if (!has_swar || balanced) {
            free(a);
            continue;
        }
        uint8_t *b = run_workload(sh, false, seed, ops, &n2, &has_swar);
        CHECK_EQ(n1, n2);
        if (memcmp(a, b, n1) != 0) {
            fprintf(stderr, "SWAR and per-slot tables differ for f=%u b=%u nb=%llu\n", sh.f, sh.b,
                    (unsigned long long)sh.nb);
            CHECK(false);
        }
        free(a);
        free(b);
    }
    force_balance = false;
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
        {12, 4, 97, 0},  {12, 4, 1000, 0}, {8, 4, 1024, 0},  {7, 2, 4099, 0},  {13, 8, 313, 0},
        {16, 4, 509, 0}, {5, 1, 1021, 0},  {31, 2, 777, 0},  {32, 4, 255, 0},  {1, 4, 64, 0},
        {2, 8, 129, 0},  {9, 8, 2048, 0},  {24, 4, 3001, 0}, {12, 1, 8191, 0}, {3, 2, 600, 0},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) run_shape(shapes[i], 500000);
}

static void test_semisorted_tables(void) {
    static const shape shapes[] = {
        {5, 4, 1, CF_SEMI_SORT},    {5, 4, 3, CF_SEMI_SORT},     {8, 4, 2, CF_SEMI_SORT},
        {12, 4, 97, CF_SEMI_SORT},  {12, 4, 1000, CF_SEMI_SORT}, {16, 4, 509, CF_SEMI_SORT},
        {7, 4, 4099, CF_SEMI_SORT}, {13, 4, 2048, CF_SEMI_SORT},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) run_shape(shapes[i], 300000);
}

static int test_cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_alt_index_is_involution(void) {
    static const uint64_t buckets[] = {
        1, 2, 3, 7, 10, 97, 1000, 65536, 65537, 1000003, 4294967311ull, (1ull << 62) + 5};
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
                uint64_t j = cf__alt_index(&f->t, i, fp);
                bad += j >= nb || cf__alt_index(&f->t, j, fp) != i;
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
        seen[fp - 1] = cf__alt_index(&f->t, 0, fp);
        per_part[seen[fp - 1] * 16 / 1000003]++;
    }
    /* The reason for the mixed map: the step c(v + 1) - c(v) between
     * consecutive fingerprints' reflection points takes about as many values
     * as there are steps (a multiplicative map gives two or three). */
    uint64_t *steps = calloc(4094, sizeof *steps);
    REQUIRE(steps != NULL);
    for (size_t k = 0; k + 1 < 4095; k++) steps[k] = (seen[k + 1] + 1000003 - seen[k]) % 1000003;
    qsort(steps, 4094, sizeof *steps, test_cmp_u64);
    uint64_t distinct_steps = 1;
    for (size_t k = 1; k < 4094; k++) distinct_steps += steps[k] != steps[k - 1];
    CHECK_GE(distinct_steps, 4000);
    /* ... while map 1 (files before 0.2) has only a few distinct steps. */
    f->t.partner_map = CF__MAP_GOLDEN;
    cf__derive_layout(&f->t);
    for (size_t k = 0; k + 1 < 4095; k++)
        steps[k] = (cf__alt_index(&f->t, 0, (uint32_t)k + 2) + 1000003 -
                    cf__alt_index(&f->t, 0, (uint32_t)k + 1)) %
                   1000003;
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

/* The decoder itself, on a table written through the accessors with known
 * values: a failure here is the decoder's (or the accessors') fault. */
static void test_reference_decoder(void) {
    static const shape shapes[] = {{12, 4, 5, 0},           {7, 8, 3, 0},  {13, 4, 4, CF_SEMI_SORT},
                                   {5, 4, 2, CF_SEMI_SORT}, {32, 2, 3, 0}, {1, 1, 9, 0}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        cf_filter *f;
        REQUIRE(cf__filter_alloc(NULL, shapes[i].nb, shapes[i].b, shapes[i].f, shapes[i].flags, 500,
                                 &f) == CF_OK);
        REQUIRE(cf__table_bytes(shapes[i].nb, shapes[i].b, shapes[i].f, shapes[i].flags,
                                &f->t.table_bytes) == CF_OK);
        f->t.table = calloc(f->t.table_bytes + CF__TABLE_PAD, 1);
        REQUIRE(f->t.table != NULL);
        uint64_t rng = i, bad = 0;
        uint32_t *want = calloc(f->t.num_buckets * f->t.bucket_size, sizeof *want);
        REQUIRE(want != NULL);
        for (uint64_t bk = 0; bk < f->t.num_buckets; bk++) {
            uint32_t *w = want + bk * f->t.bucket_size;
            for (unsigned s = 0; s < f->t.bucket_size; s++)
                w[s] = (uint32_t)(test_rand(&rng) & f->t.fp_mask);
            if (f->t.semi_sort)
                cf__semisort_write(&f->t, bk, w); /* sorts w in place: slot order is sorted order */
            else
                for (unsigned s = 0; s < f->t.bucket_size; s++)
                    cf__packed_slot_set(&f->t, bk, s, w[s]);
        }
        /* Read back after every bucket was written: neighbours must not clobber. */
        for (uint64_t bk = 0; bk < f->t.num_buckets; bk++) {
            uint32_t ref[CF_MAX_BUCKET_SIZE], lib[CF_MAX_BUCKET_SIZE];
            ref_bucket(f, bk, ref);
            cf__bucket_read(&f->t, bk, lib);
            for (unsigned s = 0; s < f->t.bucket_size; s++) {
                bad += ref[s] != want[bk * f->t.bucket_size + s];
                bad += lib[s] != want[bk * f->t.bucket_size + s];
            }
        }
        CHECK_EQ(bad, 0);
        free(want);
        free(f->t.table);
        f->t.table = NULL;
        cf_free(f);
    }
    /* Fixed points of the code: the first, the second, the last quadruple. */
    ref_build_codes();
    CHECK_EQ(ref_codes[0], 0x0000);
    CHECK_EQ(ref_codes[1], 0x1000);
    CHECK_EQ(ref_codes[3875], 0xffff);
}

/* A table beyond the caches (f->far) prefetches and reads the eviction
 * search's children ahead; one that fits reads them as it goes; and a far
 * one filled by cf_insert_batch also prefetches each key's first search
 * level before its insert (batch.c).  Filled with the same keys to 95%,
 * all must end byte-identical: the read-ahead only reads, and the search
 * finds the same paths. */
static void test_far_tables_search_alike(void) {
    /* Just past the near limit: a power of two of buckets (12-bit slots),
     * and an odd count of buckets at bit offsets (9-bit slots). */
    uint64_t pow2 = 1;
    while (pow2 * 4 * 12 <= CF__NEAR_BYTES * 8) pow2 <<= 1;
    const shape shapes[] = {{12, 4, pow2, 0}, {9, 4, CF__NEAR_BYTES * 8 / 36 + 1001, 0}};
    size_t nshapes = quick() ? 1 : sizeof shapes / sizeof *shapes;
    for (size_t i = 0; i < nshapes; i++) {
        uint8_t *tables[3] = {NULL, NULL, NULL};
        size_t bytes = 0;
        for (int near = 0; near < 3; near++) { /* 2: far, by cf_insert_batch */
            cf_config cfg;
            cf_config_init(&cfg);
            cfg.fingerprint_bits = shapes[i].f;
            cfg.bucket_size = shapes[i].b;
            cfg.num_buckets = shapes[i].nb;
            cf_filter *f;
            REQUIRE(cf_new(&cfg, &f) == CF_OK);
            CHECK(f->t.far);
            if (near == 1) f->t.far = false;
            uint64_t n = shapes[i].nb * shapes[i].b * 95 / 100, failed = 0;
            if (near == 2) {
                enum { CHUNK = 4096 };
                static uint64_t hashes[CHUNK];
                for (uint64_t k = 0; k < n; k += CHUNK) {
                    size_t m = n - k < CHUNK ? (size_t)(n - k) : CHUNK, done = 0;
                    for (size_t j = 0; j < m; j++) {
                        uint64_t key = (k + j) * 0x9e3779b97f4a7c15ull;
                        hashes[j] = cf_hash(f, &key, sizeof key);
                    }
                    failed += cf_insert_batch(f, hashes, m, &done) != CF_OK;
                    failed += done != m;
                }
            }
            for (uint64_t k = 0; k < n && near < 2; k++)
                failed += cf_insert_u64(f, k * 0x9e3779b97f4a7c15ull) != CF_OK;
            CHECK_EQ(failed, 0);
            cf_stats st;
            cf_get_stats(f, &st);
            CHECK(st.total_kicks > 0); /* the search ran */
            bytes = f->t.table_bytes;
            tables[near] = malloc(bytes);
            REQUIRE(tables[near] != NULL);
            memcpy(tables[near], f->t.table, bytes);
            cf_free(f);
        }
        CHECK(memcmp(tables[0], tables[1], bytes) == 0);
        CHECK(memcmp(tables[0], tables[2], bytes) == 0);
        free(tables[0]);
        free(tables[1]);
        free(tables[2]);
    }
}

/* Every batch kernel this CPU runs (batch_x86.c: 8 keys with AVX-512, 4
 * with AVX2), not only the widest that cf_contains_batch picks, answers as
 * single lookups: byte-aligned layouts of any bucket count and of a power
 * of two, near and far (the prefetch ring), with and without `out`, and
 * with an expiring kind's lane mask (a keep that clears each lane's top
 * bits, fingerprints taken from fewer bits).  Where no kernel runs (other
 * CPUs, CF_NO_SIMD), there is nothing to test here; test_params tests the
 * portable pipeline through the public call. */
static void test_batch_kernels_agree(void) {
#if CF__HAVE_BATCH_X86
    static const shape shapes[] = {{12, 4, 997, 0},    {8, 8, 1000, 0},    {16, 4, 1024, 0},
                                   {10, 4, 999, 0},    {8, 1, 997, 0},     {32, 2, 1001, 0},
                                   {12, 4, 400000, 0}, {16, 4, 1 << 19, 0}};
    enum { N = 4000 };
    static uint64_t hashes[N];
    static bool out[N];
    unsigned kernels = 0;
    for (unsigned width = 4; width <= 8; width += 4) {
        if (!cf__batch_x86_runs(width)) continue;
        kernels++;
        for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
            cf_config cfg;
            cf_config_init(&cfg);
            cfg.fingerprint_bits = shapes[i].f;
            cfg.bucket_size = shapes[i].b;
            cfg.num_buckets = shapes[i].nb;
            cfg.seed = i;
            cf_filter *f;
            REQUIRE(cf_new(&cfg, &f) == CF_OK);
            REQUIRE(cf__batch_x86_suits(&f->t));
            for (uint64_t k = 0; k < N; k++) {
                hashes[k] = cf_hash(f, &k, sizeof k);
                if (k % 3 == 0) (void)cf_insert_hash(f, hashes[k]);
            }
            /* keep: every lane's top bit cleared (a stamp's place), the
             * fingerprint from one bit fewer, as cf__batch_lanes takes. */
            uint64_t half_mask = f->t.fp_mask >> 1, keep = f->t.lane_ones * half_mask;
            size_t mismatches = 0;
            for (int far = 0; far < 2; far++) {
                bool was = f->t.far;
                f->t.far = far;
                for (size_t n = 0; n <= N; n += n < 64 ? width : 1000 * width / 4) {
                    memset(out, 0, sizeof out);
                    size_t got =
                        cf__batch_x86(&f->t, width, hashes, n, out, f->t.fp_mask, ~(uint64_t)0);
                    size_t masked = cf__batch_x86(&f->t, width, hashes, n, NULL, half_mask, keep);
                    size_t expect = 0, expect_masked = 0;
                    for (size_t k = 0; k < n; k++) {
                        bool single = cf_contains_hash(f, hashes[k]);
                        expect += single;
                        mismatches += out[k] != single;
                        cf__slots p = cf__locate(&(cf__table){.fp_mask = half_mask,
                                                              .num_buckets = f->t.num_buckets,
                                                              .alt_xmask = f->t.alt_xmask,
                                                              .alt_mul = f->t.alt_mul},
                                                 hashes[k]);
                        uint64_t v = f->t.lane_ones * p.fp;
                        uint64_t w1 = (cf__bucket_bits_at(&f->t, p.i1) ^ v) & keep;
                        uint64_t w2 = (cf__bucket_bits_at(&f->t, p.i2) ^ v) & keep;
                        expect_masked +=
                            (cf__zero_lanes(&f->t, w1) | cf__zero_lanes(&f->t, w2)) != 0;
                    }
                    mismatches += (got != expect) + (masked != expect_masked);
                }
                f->t.far = was;
            }
            if (mismatches != 0)
                fprintf(stderr, "width %u, f=%u b=%u nb=%llu: %zu mismatches\n", width, shapes[i].f,
                        shapes[i].b, (unsigned long long)shapes[i].nb, mismatches);
            CHECK_EQ(mismatches, 0);
            cf_free(f);
        }
    }
    /* This project's machines have both; say so where a kernel was not run. */
    if (kernels < 2)
        fprintf(stderr, "test_batch_kernels_agree: %u of 2 kernels run here\n", kernels);
#endif
}

/* A table of four 12-bit slots a bucket, as the new tests below use. */
static cf_filter *new_12x4(uint64_t nb, unsigned flags) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.fingerprint_bits = 12;
    cfg.bucket_size = 4;
    cfg.num_buckets = nb;
    cfg.flags = flags;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    return f;
}

/* Where an insert puts its fingerprint when both buckets have room: a
 * table fills i1 first; a balanced one (cf__table.balance, forced here on a
 * small table) the bucket whose first free slot is earlier, i1 on a tie.  Each insert path
 * is asked: single, unique, batch, traced, the concurrent kind, and the
 * out-of-line insert that WebAssembly's kernels call (kernel.h's
 * CF__BALANCE_INLINE). */
static void test_balanced_placement(void) {
    enum { SINGLE, UNIQUE, BATCH, TRACED, CONCURRENT, OUT_OF_LINE, PATHS };
    for (int balanced = 0; balanced < 2; balanced++)
        for (int path = 0; path < PATHS; path++)
            for (unsigned in1 = 0; in1 <= 4; in1++)
                for (unsigned in2 = 0; in2 <= 4; in2++) {
                    if (in1 + in2 == 8) continue; /* both full: the search's case */
                    cf_filter *f = new_12x4(1024, path == CONCURRENT ? CF_CONCURRENT : 0);
                    f->t.balance = balanced == 1;
                    uint64_t h = 0x0123456789abcdefull;
                    cf__slots p = cf__locate(&f->t, h);
                    while (p.i1 == p.i2) p = cf__locate(&f->t, h += 0x9e3779b97f4a7c15ull);
                    /* Other fingerprints in the first slots of each bucket. */
                    for (unsigned s = 0; s < in1; s++) cf__slot_set(&f->t, p.i1, s, 1 + s);
                    for (unsigned s = 0; s < in2; s++) cf__slot_set(&f->t, p.i2, s, 1 + s);
                    size_t done = 0;
                    cf_move moves[4];
                    size_t nmoves = 0;
                    cf_status st = path == UNIQUE   ? cf_insert_unique_hash(f, h)
                                   : path == BATCH  ? cf_insert_batch(f, &h, 1, &done)
                                   : path == TRACED ? cf_insert_traced_hash(f, h, moves, 4, &nmoves)
                                   : path == OUT_OF_LINE ? cf__insert_balanced_hash(&f->t, h)
                                                         : cf_insert_hash(f, h);
                    CHECK_STATUS(st, CF_OK);
                    bool second = in1 == 4 || (balanced && in2 < in1);
                    uint64_t bucket = second ? p.i2 : p.i1;
                    unsigned slot = second ? in2 : in1;
                    if (cf__slot_get(&f->t, bucket, slot) != p.fp)
                        fprintf(stderr, "balanced %d path %d: %u and %u slots taken\n", balanced,
                                path, in1, in2);
                    CHECK_EQ(cf__slot_get(&f->t, bucket, slot), p.fp);
                    cf_free(f);
                }
}

/* Which tables balance: SWAR ones past CF__BALANCE_BYTES. */
static void test_balance_limit(void) {
    uint64_t at = CF__BALANCE_BYTES * 8 / 48; /* 12-bit slots, four a bucket */
    const struct {
        uint64_t nb;
        unsigned flags;
        bool balance;
    } cases[] = {
        {at, 0, false}, {at + 1, 0, true}, {1024, 0, false}, {at + 1, CF_SEMI_SORT, false}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cf_filter *f = new_12x4(cases[i].nb, cases[i].flags);
        CHECK_EQ(f->t.balance, cases[i].balance);
        cf_free(f);
    }
}

/* Balanced, a table filled to 95% needs fewer moves: the reason it is. */
static void test_balance_moves_less(void) {
    uint64_t pow2 = 1;
    while (pow2 * 4 * 12 <= CF__NEAR_BYTES * 8) pow2 <<= 1;
    uint64_t kicks[2];
    for (int balanced = 0; balanced < 2; balanced++) {
        cf_filter *f = new_12x4(pow2, 0);
        f->t.balance = balanced;
        uint64_t n = pow2 * 4 * 95 / 100, failed = 0;
        for (uint64_t k = 0; k < n; k++)
            failed += cf_insert_u64(f, k * 0x9e3779b97f4a7c15ull) != CF_OK;
        CHECK_EQ(failed, 0);
        kicks[balanced] = f->t.total_kicks;
        cf_free(f);
    }
    /* Measured: a third fewer (docs/BENCHMARKS.md, "Balanced buckets"). */
    CHECK_LE(kicks[1] * 4, kicks[0] * 3);
}

TEST_MAIN(TEST(test_reference_decoder), TEST(test_far_tables_search_alike),
          TEST(test_balanced_placement), TEST(test_balance_limit), TEST(test_balance_moves_less),
          TEST(test_alt_index_is_involution), TEST(test_fingerprint_range), TEST(test_tiny_tables),
          TEST(test_odd_and_prime_tables), TEST(test_semisorted_tables),
          TEST(test_batch_kernels_agree))
