/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_params.c -- bad arguments get a clear status, never a crash or a
 * huge allocation; sizing keeps its promises; the status table's codes,
 * names and messages are distinct; the version is CMake's project version.
 */
#include <math.h>

#include "test.h"

#include "cuckoofilter.h"

static cf_status try_new(cf_config *cfg) {
    cf_filter *f = NULL;
    cf_status s = cf_new(cfg, &f);
    CHECK((s == CF_OK) == (f != NULL));
    cf_free(f);
    return s;
}

static void free_nothing(void *ctx, void *p) {
    (void)ctx;
    (void)p;
}

static void test_bad_configs(void) {
    cf_config cfg;
    cf_filter *f;
    CHECK_STATUS(cf_new(NULL, &f), CF_E_PARAM);
    cf_config_init(&cfg);
    CHECK_STATUS(cf_new(&cfg, NULL), CF_E_PARAM);
    CHECK_STATUS(try_new(&cfg), CF_E_PARAM); /* capacity 0, no num_buckets */

    static const double bad_fpp[] = {0.0, 1.0, -0.5, 2.0, NAN, 1e-12};
    for (size_t i = 0; i < sizeof bad_fpp / sizeof *bad_fpp; i++) {
        cf_config_init(&cfg);
        cfg.capacity = 100;
        cfg.target_fpp = bad_fpp[i];
        CHECK_STATUS(try_new(&cfg), CF_E_PARAM);
    }
    static const unsigned bad_b[] = {3, 5, 6, 7, 9, 16, 1000};
    for (size_t i = 0; i < sizeof bad_b / sizeof *bad_b; i++) {
        cf_config_init(&cfg);
        cfg.capacity = 100;
        cfg.bucket_size = bad_b[i];
        CHECK_STATUS(try_new(&cfg), CF_E_PARAM);
    }
    cf_config_init(&cfg);
    cfg.capacity = 100;
    cfg.fingerprint_bits = 33;
    CHECK_STATUS(try_new(&cfg), CF_E_PARAM);
    cfg.fingerprint_bits = 0;
    cfg.max_load = 1.5;
    CHECK_STATUS(try_new(&cfg), CF_E_PARAM);
    cfg.max_load = 0;
    cfg.flags = 0x80;
    CHECK_STATUS(try_new(&cfg), CF_E_PARAM);
    cfg.flags = 0;
    cfg.max_kicks = CF_MAX_KICKS_LIMIT + 1;
    CHECK_STATUS(try_new(&cfg), CF_E_PARAM);
    cfg.max_kicks = 0;
    cf_allocator half = {NULL, NULL, NULL, NULL, NULL};
    cfg.allocator = &half; /* empty: malloc/free */
    CHECK_STATUS(try_new(&cfg), CF_OK);
    half.free = free_nothing;
    CHECK_STATUS(try_new(&cfg), CF_E_PARAM);
    cf_bloom_config bc;
    cf_bloom_config_init(&bc);
    bc.capacity = 10;
    bc.allocator = &half;
    cf_bloom *bloom = (cf_bloom *)&bc;
    CHECK_STATUS(cf_bloom_new(&bc, &bloom), CF_E_PARAM);
    CHECK(bloom == NULL);
}

static void test_sizes_that_overflow(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.num_buckets = UINT64_MAX;
    CHECK_STATUS(try_new(&cfg), CF_E_TOO_LARGE);
    cfg.num_buckets = (UINT64_MAX / 8) + 1; /* slots overflow for b = 8 */
    cfg.bucket_size = 8;
    CHECK_STATUS(try_new(&cfg), CF_E_TOO_LARGE);
    cfg.num_buckets = (uint64_t)1 << 59; /* bits overflow at f = 32 */
    cfg.fingerprint_bits = 32;
    CHECK_STATUS(try_new(&cfg), CF_E_TOO_LARGE);
    cf_config_init(&cfg);
    cfg.capacity = UINT64_MAX;
    CHECK_STATUS(try_new(&cfg), CF_E_TOO_LARGE);
}

/* The width floor docs/C-API.md, "Sizing" documents for a table of nb buckets of b
 * slots, written from that statement (not from src/table/config.c): 5 bits for
 * b = 4 and 8; for b = 2, 6 bits up to 2^22 buckets, 7 up to 2^25, then 8;
 * for b = 1, max(8, ceil(log2(nb) / 2) + 3). */
static unsigned documented_floor(unsigned b, uint64_t nb) {
    if (b == 1) {
        unsigned w = (unsigned)ceil(log2((double)nb) / 2) + 3;
        return w < 8 ? 8 : w;
    }
    if (b == 2) return nb <= (1ull << 22) ? 6 : nb <= (1ull << 25) ? 7 : 8;
    return 5;
}

/* The width cf_config_resolve derives for nb buckets of b slots and a
 * target FPP. */
static unsigned derived_width(unsigned b, uint64_t nb, double fpp) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.bucket_size = b;
    cfg.num_buckets = nb;
    cfg.target_fpp = fpp;
    cf_shape sh;
    REQUIRE(cf_config_resolve(&cfg, &sh) == CF_OK);
    return sh.fingerprint_bits;
}

/* The floors at the bucket counts where they step: the loosest target
 * (which asks for fewer bits than any floor, except for b = 8, where every
 * target under 1 asks for 5) gets the documented floor; a target one bit
 * above it gets its own width, one bit below it the floor.  Asking
 * cf_config_resolve allocates nothing, so the tables can be huge. */
static void test_width_floors(void) {
    static const struct {
        unsigned b;
        uint64_t nb;
        unsigned floor_bits; /* as docs/C-API.md, "Sizing" states it */
    } cases[] = {
        {1, 1, 8},           {1, 1ull << 10, 8},        {1, (1ull << 10) + 1, 9},
        {1, 1ull << 11, 9},  {1, 1ull << 12, 9},        {1, (1ull << 12) + 1, 10},
        {1, 1ull << 20, 13}, {1, (1ull << 20) + 1, 14}, {1, (1ull << 40) + 1, 24},
        {2, 1, 6},           {2, 1ull << 22, 6},        {2, (1ull << 22) + 1, 7},
        {2, 1ull << 25, 7},  {2, (1ull << 25) + 1, 8},  {2, 1ull << 40, 8},
        {4, 1, 5},           {4, (1ull << 25) + 1, 5},  {4, 1ull << 40, 5},
        {8, 1, 5},           {8, (1ull << 25) + 1, 5},  {8, 1ull << 40, 5},
    };
    const double loosest = 0.999999;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned b = cases[i].b, fl = cases[i].floor_bits;
        uint64_t nb = cases[i].nb;
        CHECK_EQ(documented_floor(b, nb), fl);
        CHECK_LE((unsigned)ceil(log2(2.0 * b / loosest)), fl);
        CHECK_EQ(derived_width(b, nb, loosest), fl);
        /* 2b / 2^k is exact, so it asks for exactly k bits (for b = 8 and
         * k = 4 it is 1, not a target). */
        CHECK_EQ(derived_width(b, nb, 2.0 * b / ldexp(1, (int)fl + 1)), fl + 1);
        double below = 2.0 * b / ldexp(1, (int)fl - 1);
        if (below < 1) CHECK_EQ(derived_width(b, nb, below), fl);
    }
}

/* Sizing from capacity and target FPP, checked by what it promises rather
 * than by a copy of its formula: the buckets docs/C-API.md states, a width
 * whose FPP bound meets the target and is exactly the target's width
 * whenever that is above the documented floor, else the floor.  (That the
 * table then takes its capacity is test_load's subject.) */
static void test_sizing_properties(void) {
    static const double fpps[] = {0.9, 0.3, 0.1, 0.03, 0.01, 0.002, 0.0001, 1e-7};
    static const unsigned sizes[] = {1, 2, 4, 8};
    static const uint64_t capacities[] = {20011, 123457, 5000000};
    for (size_t c = 0; c < 3; c++) {
        for (size_t j = 0; j < 4; j++) {
            unsigned b = sizes[j], prev_bits = 0;
            for (size_t i = 0; i < sizeof fpps / sizeof *fpps; i++) {
                cf_config cfg;
                cf_config_init(&cfg);
                cfg.capacity = capacities[c];
                cfg.target_fpp = fpps[i];
                cfg.bucket_size = b;
                cf_filter *f;
                REQUIRE(cf_new(&cfg, &f) == CF_OK);
                cf_stats st;
                cf_get_stats(f, &st);
                double load = cf_default_max_load(b);
                CHECK_EQ(st.num_buckets, (uint64_t)ceil((double)capacities[c] / (b * load)));
                unsigned f_bits = st.fingerprint_bits;
                /* The bound 2b/2^f meets the target (guarantee 5). */
                CHECK(2.0 * b / ldexp(1, (int)f_bits) <= fpps[i]);
                CHECK(cf_theoretical_fpp(f_bits, b, 1.0) <= fpps[i]);
                /* Tighter targets never get less, and get exactly their
                 * own width above the floor. */
                unsigned floor_bits = documented_floor(b, st.num_buckets);
                unsigned from_fpp = (unsigned)ceil(log2(2.0 * b / fpps[i]));
                CHECK_EQ(f_bits, from_fpp > floor_bits ? from_fpp : floor_bits);
                CHECK_GE(f_bits, prev_bits);
                prev_bits = f_bits;
                CHECK_EQ(st.table_bytes, (st.slots * f_bits + 7) / 8);
                cf_free(f);
            }
        }
    }
}

static void test_article_shape(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.num_buckets = 65536;
    cfg.fingerprint_bits = 12;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_EQ(st.table_bytes, 65536 * 4 * 12 / 8); /* 393,216 B = 384 KiB */
    CHECK_EQ(st.slots, 262144);
    CHECK_EQ(st.bucket_size, 4);
    CHECK_EQ(st.max_kicks, 500);
    cf_free(f);
}

static void test_null_and_empty_keys(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 10;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    CHECK_STATUS(cf_insert(NULL, "a", 1), CF_E_PARAM);
    CHECK_STATUS(cf_insert(f, NULL, 3), CF_E_PARAM);
    CHECK_STATUS(cf_delete(f, NULL, 3), CF_E_PARAM);
    CHECK(!cf_contains(NULL, "a", 1));
    CHECK(!cf_contains(f, NULL, 1));
    CHECK_EQ(cf_count(NULL, "a", 1), 0);
    CHECK_STATUS(cf_insert(f, NULL, 0), CF_OK); /* the empty key is a key */
    CHECK(cf_contains(f, "", 0));
    CHECK_STATUS(cf_insert_unique(f, "", 0), CF_E_EXISTS);
    CHECK_STATUS(cf_delete(f, "", 0), CF_OK);
    CHECK_STATUS(cf_delete(f, "", 0), CF_E_NOT_FOUND);
    CHECK_EQ(cf_memory_usage(NULL), 0);
    cf_free(NULL);
    cf_bloom_free(NULL);
    cf_free(f);
}

static void test_hash_variants_agree(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 5000;
    cfg.seed = 77;
    cf_filter *a, *b;
    REQUIRE(cf_new(&cfg, &a) == CF_OK);
    REQUIRE(cf_new(&cfg, &b) == CF_OK);
    uint64_t hashes[4000];
    bool found[4000];
    for (uint64_t k = 0; k < 4000; k++) {
        hashes[k] = cf_hash(a, &k, sizeof k);
        if (k % 2 == 0) {
            CHECK_STATUS(cf_insert(a, &k, sizeof k), CF_OK);
            CHECK_STATUS(cf_insert_hash(b, hashes[k]), CF_OK);
        }
    }
    CHECK_EQ(cf_memory_usage(a), cf_memory_usage(b));
    size_t n = cf_contains_batch(a, hashes, 4000, found);
    size_t expect = 0, mismatches = 0;
    for (uint64_t k = 0; k < 4000; k++) {
        bool single = cf_contains(a, &k, sizeof k);
        expect += single;
        mismatches += single != found[k] || single != cf_contains_hash(b, hashes[k]);
        if (k % 2 == 0) CHECK(found[k]);
    }
    CHECK_EQ(n, expect);
    CHECK_EQ(cf_contains_batch(a, hashes, 4000, NULL), expect);
    CHECK_EQ(mismatches, 0);
    cf_free(a);
    cf_free(b);
}

/* cf_contains_batch has one pipeline per bucket layout (SWAR on whole
 * bytes, eight or four keys at a time with AVX-512 or AVX2 where the CPU
 * has it; SWAR at bit offsets; semi-sorted) and a general path (wide
 * buckets): each must answer like cf_contains_hash for batch sizes around
 * and between its chunk boundaries, with and without `out`, in tables of
 * any bucket count and of a power of two, near and far (nb below). */
static void test_batch_lookups_every_layout(void) {
    static const struct {
        unsigned f, b, flags;
        uint64_t nb;
    } layouts[] = {
        {12, 4, 0, 997},
        {8, 8, 0, 997},
        {7, 4, 0, 997},
        {13, 2, 0, 997},
        {3, 1, 0, 997},
        {12, 4, CF_SEMI_SORT, 997},
        {5, 4, CF_SEMI_SORT, 997},
        {16, 8, 0, 997},
        {32, 4, 0, 997},
        {16, 4, 0, 997},
        {10, 4, 0, 997},
        {8, 4, 0, 997},
        {12, 4, 0, 1024},
        {16, 4, 0, 1 << 10},
        {8, 1, 0, 997},
        {32, 2, 0, 1000},
        /* Past 2 MiB: buckets prefetched blocks ahead of their probes. */
        {12, 4, 0, 400000},
        {16, 4, 0, 1 << 19},
    };
    static const size_t sizes[] = {0, 1, 2, 47, 48, 49, 95, 96, 97, 143, 144, 145, 1000, 3001};
    enum { N = 3001 };
    static uint64_t hashes[N];
    static bool out[N];
    for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.fingerprint_bits = layouts[l].f;
        cfg.bucket_size = layouts[l].b;
        cfg.flags = layouts[l].flags;
        cfg.num_buckets = layouts[l].nb;
        cfg.seed = l;
        cf_filter *f;
        REQUIRE(cf_new(&cfg, &f) == CF_OK);
        for (uint64_t k = 0; k < N; k++) {
            hashes[k] = cf_hash(f, &k, sizeof k);
            if (k % 3 == 0) (void)cf_insert_hash(f, hashes[k]); /* some may not fit */
        }
        size_t mismatches = 0;
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            size_t n = sizes[z], expect = 0;
            memset(out, 0, sizeof out);
            size_t got = cf_contains_batch(f, hashes, n, out);
            for (size_t k = 0; k < n; k++) {
                bool single = cf_contains_hash(f, hashes[k]);
                expect += single;
                mismatches += out[k] != single;
            }
            mismatches += got != expect;
            mismatches += cf_contains_batch(f, hashes, n, NULL) != expect;
        }
        if (mismatches != 0)
            fprintf(stderr, "f=%u b=%u flags=%u: %zu mismatches\n", layouts[l].f, layouts[l].b,
                    layouts[l].flags, mismatches);
        CHECK_EQ(mismatches, 0);
        cf_free(f);
    }
}

static void test_insert_batch_matches_single_inserts(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.num_buckets = 1001;
    cfg.fingerprint_bits = 12;
    cf_filter *a, *b;
    REQUIRE(cf_new(&cfg, &a) == CF_OK);
    REQUIRE(cf_new(&cfg, &b) == CF_OK);
    enum { N = 5000 }; /* more than 1001 x 4 slots: the batch must stop */
    static uint64_t hashes[N];
    for (uint64_t k = 0; k < N; k++) hashes[k] = cf_hash(a, &k, sizeof k);
    size_t done = 0;
    CHECK_STATUS(cf_insert_batch(a, hashes, N, &done), CF_E_FULL);
    size_t single = 0;
    while (single < N && cf_insert_hash(b, hashes[single]) == CF_OK) single++;
    CHECK_EQ(done, single);
    CHECK_GE(done, 1001 * 4 * 95 / 100);
    size_t size, size_b;
    uint8_t *x = test_serialize(a, &size), *y = test_serialize(b, &size_b);
    CHECK(size == size_b && memcmp(x, y, size) == 0);
    CHECK_STATUS(cf_insert_batch(a, hashes, 0, &done), CF_OK);
    CHECK_EQ(done, 0);
    CHECK_STATUS(cf_insert_batch(NULL, hashes, 1, NULL), CF_E_PARAM);
    free(x);
    free(y);
    cf_free(a);
    cf_free(b);
}

static void test_seed_changes_layout_deterministically(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 2000;
    cf_filter *f[3];
    for (int i = 0; i < 3; i++) {
        cfg.seed = i < 2 ? 5 : 6;
        REQUIRE(cf_new(&cfg, &f[i]) == CF_OK);
        for (uint64_t k = 0; k < 1900; k++) REQUIRE(cf_insert(f[i], &k, sizeof k) == CF_OK);
    }
    size_t size[3];
    uint8_t *buf[3];
    for (int i = 0; i < 3; i++) buf[i] = test_serialize(f[i], &size[i]);
    CHECK(size[0] == size[1] && memcmp(buf[0], buf[1], size[0]) == 0);
    CHECK(size[0] == size[2] && memcmp(buf[0], buf[2], size[0]) != 0);
    for (int i = 0; i < 3; i++) {
        free(buf[i]);
        cf_free(f[i]);
    }
}

/* The status table's promises: success is 0 and every failure a distinct
 * negative code with a distinct name and message; unknown codes still get
 * a message and a name. */
static void test_status_table(void) {
    static const cf_status all[] = {
#define CF_VALUE_(name, value, msg) name,
        CF_STATUS_TABLE(CF_VALUE_)
#undef CF_VALUE_
    };
    size_t n = sizeof all / sizeof *all;
    CHECK_GE(n, 14);
    CHECK_EQ(all[0], CF_OK);
    CHECK_EQ(CF_OK, 0);
    const char *unknown_msg = cf_strerror((cf_status)12345);
    const char *unknown_name = cf_status_name((cf_status)12345);
    REQUIRE(unknown_msg != NULL && unknown_name != NULL);
    CHECK(cf_strerror((cf_status)-12345) != NULL && cf_status_name((cf_status)1) != NULL);
    for (size_t i = 0; i < n; i++) {
        const char *name = cf_status_name(all[i]), *msg = cf_strerror(all[i]);
        REQUIRE(name != NULL && msg != NULL);
        CHECK(strncmp(name, "CF_", 3) == 0);
        CHECK(msg[0] != '\0');
        CHECK(strcmp(msg, unknown_msg) != 0);
        CHECK(strcmp(name, unknown_name) != 0);
        if (i > 0) CHECK(all[i] < 0);
        for (size_t j = 0; j < i; j++) {
            CHECK(all[i] != all[j]);
            CHECK(strcmp(name, cf_status_name(all[j])) != 0);
            CHECK(strcmp(msg, cf_strerror(all[j])) != 0);
        }
    }
    CHECK(strcmp(cf_status_name(CF_E_FULL), "CF_E_FULL") == 0); /* the documented example */
}

/* One version source: CMake's project(VERSION) reaches the test as
 * CF_TEST_PROJECT_VERSION; the header's macros and the linked library must
 * both say the same. */
static void test_version(void) {
    CHECK(strcmp(cf_version_string(), CF_TEST_PROJECT_VERSION) == 0);
    CHECK(strcmp(CF_VERSION_STRING, CF_TEST_PROJECT_VERSION) == 0);
    char parts[32];
    snprintf(parts, sizeof parts, "%d.%d.%d", CF_VERSION_MAJOR, CF_VERSION_MINOR, CF_VERSION_PATCH);
    CHECK(strcmp(parts, CF_TEST_PROJECT_VERSION) == 0);
}

TEST_MAIN(TEST(test_bad_configs), TEST(test_sizes_that_overflow), TEST(test_width_floors),
          TEST(test_sizing_properties), TEST(test_article_shape), TEST(test_null_and_empty_keys),
          TEST(test_hash_variants_agree), TEST(test_batch_lookups_every_layout),
          TEST(test_insert_batch_matches_single_inserts),
          TEST(test_seed_changes_layout_deterministically), TEST(test_status_table),
          TEST(test_version))
