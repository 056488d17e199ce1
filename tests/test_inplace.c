/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_inplace.c -- CF_GROW with CF_GROWTH_INPLACE: no false negatives
 * through many doublings (fingerprints used up included), FPP under the
 * target, deletes, copies, limits, allocation failures, determinism, and
 * the table's own invariants (src/kind/inplace.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "test.h"

#include <unistd.h>

#include "format/inplace_format.h"
#include "kind/inplace_x86.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "test_golden_files.h"

/* The configuration of the in-place filters below (seed 7). */
static cf_config inplace_config(uint64_t capacity, double fpp) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = capacity;
    cfg.target_fpp = fpp;
    cfg.flags = CF_GROW;
    cfg.growth_mode = CF_GROWTH_INPLACE;
    cfg.seed = 7;
    return cfg;
}

static cf_filter *new_inplace(uint64_t capacity, double fpp, const cf_allocator *a) {
    cf_config cfg = inplace_config(capacity, fpp);
    cfg.allocator = a;
    cf_filter *f = NULL;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    return f;
}

/* The table's bits [bit, bit + n), one at a time (independent of the
 * library's word reads). */
static uint64_t bits_of(const uint8_t *table, uint64_t bit, unsigned n) {
    uint64_t v = 0;
    for (unsigned b = 0; b < n; b++)
        v |= (uint64_t)((table[(bit + b) / 8] >> ((bit + b) % 8)) & 1) << b;
    return v;
}

/* Every slot empty or with its marker leaving at least the tag; entries and
 * weight as the filter counts them. */
static void check_table(const cf_filter *f) {
    const cf__inplace *ip = cf__inplace_of(f);
    uint64_t entries = 0, weight = 0;
    unsigned w = ip->w, bucket_bits = 4 * w;
    for (uint64_t i = 0; i < f->t.num_buckets * CF__INPLACE_SLOTS; i++) {
        uint64_t v = bits_of(f->t.table, i / 4 * bucket_bits + i % 4 * w, w);
        if (v == 0) continue;
        unsigned len = ip->w - 1 - (unsigned)__builtin_ctzll(v);
        CHECK(len >= ip->tag_bits);
        entries++;
        weight += (uint64_t)1 << (ip->w - 1 - len);
    }
    CHECK_EQ(entries, ip->entries);
    CHECK_EQ(weight, ip->weight);
    CHECK_EQ(f->t.num_buckets, (uint64_t)1 << ip->level);
    CHECK_EQ(f->t.table_bytes, f->t.num_buckets * bucket_bits / 8);
}

static unsigned cf__get_le16(const uint8_t *p) {
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static void cf__put_le32(uint8_t *p, uint32_t v) {
    for (unsigned i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void cf__put_le64(uint8_t *p, uint64_t v) {
    for (unsigned i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Sets the table's bits [bit, bit + n) to v, one at a time. */
static void put_bits(uint8_t *table, uint64_t bit, unsigned n, uint64_t v) {
    for (unsigned b = 0; b < n; b++) {
        uint8_t m = (uint8_t)(1u << ((bit + b) % 8));
        table[(bit + b) / 8] = (uint8_t)((table[(bit + b) / 8] & ~m) | (((v >> b) & 1) ? m : 0));
    }
}

/* The lane semantics, one slot: nonzero and equal to q above its marker. */
static bool lane_matches(uint64_t v, uint64_t q) {
    return v != 0 && ((v ^ q) >> (__builtin_ctzll(v) + 1)) == 0;
}

/* A slot of width w: empty, or an entry of tag t, 0..E index bits and its
 * marker, where E = w - 1 - tb; one in eight any W bits (what a corrupt
 * table could hold: a marker in the tag, or the top bit). */
static uint64_t random_slot(unsigned w, unsigned tb, uint64_t *seed) {
    uint64_t r = test_rand(seed);
    if (r % 4 == 0) return 0;
    if (r % 8 == 1) {
        unsigned marker = (unsigned)(r >> 58) % w;
        return ((r >> 8) << (marker + 1) | (uint64_t)1 << marker) & ((1ull << w) - 1);
    }
    unsigned e_max = w - 1 - tb, len = (unsigned)(r >> 8) % (e_max + 1);
    uint64_t t = (r >> 16) & ((1u << tb) - 1), e = (r >> 32) & ((1ull << len) - 1);
    return t << (w - tb) | e << (w - tb - len) | (uint64_t)1 << (w - 1 - tb - len);
}

/* A query string for a bucket: half the time one that agrees with slot v
 * above its marker (when v is an entry), with the rest random. */
static uint64_t random_query(unsigned w, uint64_t v, uint64_t *seed) {
    uint64_t r = test_rand(seed), q = (r & ((1ull << (w - 1)) - 1)) << 1;
    if (v == 0 || (r >> 63)) return q;
    uint64_t above = ~(((uint64_t)2 << __builtin_ctzll(v)) - 1);
    return (v & above) | (q & ~above);
}

/* The two-bucket probe (SIMD or scalar, whichever this build compiled)
 * against the lane semantics, on random buckets (empty lanes, entries of
 * every length, neighbours' bits around a 60-bit bucket) and queries that
 * match about half the time. */
static void test_probe_matches_lanes(void) {
    static const unsigned widths[] = {15, 16, 32};
    uint64_t seed = 11;
    for (size_t wi = 0; wi < 3; wi++) {
        unsigned w = widths[wi], tb = w == 32 ? CF__INPLACE_TAG32 : CF__INPLACE_TAG_NARROW;
        size_t hits = 0, trials = 20000;
        for (size_t trial = 0; trial < trials; trial++) {
            uint8_t table[4 * 16 + 16] = {0};
            uint64_t slot[4][4];
            for (uint64_t i = 0; i < 4; i++)
                for (unsigned s = 0; s < 4; s++) {
                    slot[i][s] = random_slot(w, tb, &seed);
                    put_bits(table, cf__inplace_bucket_bit(w, i) + s * w, w, slot[i][s]);
                }
            for (size_t b = 4 * 4 * w / 8; b < sizeof table; b++)
                table[b] = (uint8_t)test_rand(&seed);
            uint64_t r = test_rand(&seed);
            cf__inplace_loc l = {r % 4, (r >> 8) % 4, 0, 0};
            l.q1 = random_query(w, slot[l.i1][(r >> 16) % 4], &seed);
            l.q2 = random_query(w, slot[l.i2][(r >> 24) % 4], &seed);
            bool want = false;
            for (unsigned s = 0; s < 4; s++)
                want |= lane_matches(slot[l.i1][s], l.q1) || lane_matches(slot[l.i2][s], l.q2);
            bool got =
                w == 32 ? cf__inplace_probe32(table, l) : cf__inplace_probe_narrow(table, l, w);
            CHECK_EQ(got, want);
            hits += want;
        }
        /* Both outcomes exercised. */
        CHECK(hits > trials / 4 && hits < trials * 3 / 4);
    }
}

static uint64_t *keys_of(size_t n, uint64_t seed) {
    uint64_t *k = malloc(n * sizeof *k);
    REQUIRE(k != NULL);
    for (size_t i = 0; i < n; i++) k[i] = test_rand(&seed);
    return k;
}

static size_t count_found(const cf_filter *f, const uint64_t *k, size_t n) {
    size_t found = 0;
    for (size_t i = 0; i < n; i++) found += cf_contains(f, &k[i], sizeof k[i]);
    return found;
}

/* Grown from 4 buckets over 14 doublings: entries of the first generations
 * use up their 9 index bits and are copied into both halves. */
static void grows_without_losing(unsigned w, double fpp, size_t n) {
    cf_filter *f = new_inplace(16, fpp, NULL);
    uint64_t *in = keys_of(n, 1), *out = keys_of(n, 2);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_EQ(st.bits_per_slot, w);
    CHECK_EQ(st.growth_mode, CF_GROWTH_INPLACE);
    for (size_t i = 0; i < n; i++) {
        REQUIRE(cf_insert(f, &in[i], sizeof in[i]) == CF_OK);
        if ((i & (i + 1)) == 0) CHECK_EQ(count_found(f, in, i + 1), i + 1);
    }
    CHECK_EQ(count_found(f, in, n), n);
    check_table(f);
    cf_get_stats(f, &st);
    CHECK_EQ(st.items, n);
    CHECK_GE(st.doublings, 12);
    CHECK_EQ(st.tables, 1);
    CHECK(st.fpp_bound < fpp);
    CHECK(st.expected_fpp <= st.fpp_bound);
    /* The four-at-once probe and the slot-by-slot count agree. */
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ(cf_contains(f, &out[i], sizeof out[i]), cf_count(f, &out[i], sizeof out[i]) > 0);
        CHECK(cf_count(f, &in[i], sizeof in[i]) >= 1);
    }
    double measured = (double)count_found(f, out, n) / (double)n;
    CHECK(measured <= fpp);
    /* Within 3 sigma + a little of what the filter expects. */
    CHECK(measured <= st.expected_fpp * 1.3 + 3e-4);
    cf_free(f);
    free(in), free(out);
}

static void test_grows_15(void) {
    grows_without_losing(15, 0.01, 200000);
}

static void test_grows_16(void) {
    grows_without_losing(16, 0.004, 100000);
}

static void test_grows_32(void) {
    grows_without_losing(32, 0.001, 100000);
}

/* A doubling keeps every key and the expected FPP (S doubles with nb). */
static void test_double_keeps_fpp(void) {
    cf_filter *f = new_inplace(1000, 0.01, NULL);
    uint64_t *in = keys_of(900, 3);
    for (size_t i = 0; i < 900; i++) REQUIRE(cf_insert(f, &in[i], sizeof in[i]) == CF_OK);
    for (int d = 0; d < 12; d++) {
        cf_stats a, b;
        cf_get_stats(f, &a);
        REQUIRE(cf__inplace_double(f) == CF_OK);
        cf_get_stats(f, &b);
        CHECK_EQ(b.num_buckets, 2 * a.num_buckets);
        CHECK_DBL_NEAR(b.expected_fpp, a.expected_fpp, 1e-15);
        CHECK_EQ(count_found(f, in, 900), 900);
        check_table(f);
    }
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK(st.load_factor > 900.0 / (double)st.slots); /* used-up entries were copied */
    cf_free(f);
    free(in);
}

static void test_deletes(void) {
    size_t n = 60000;
    cf_filter *f = new_inplace(100, 0.01, NULL);
    uint64_t *in = keys_of(n, 4);
    for (size_t i = 0; i < n; i++) REQUIRE(cf_insert(f, &in[i], sizeof in[i]) == CF_OK);
    for (size_t i = 0; i < n; i += 2) CHECK_STATUS(cf_delete(f, &in[i], sizeof in[i]), CF_OK);
    size_t gone_found = 0;
    for (size_t i = 0; i < n; i++) {
        bool found = cf_contains(f, &in[i], sizeof in[i]);
        if (i % 2)
            CHECK(found);
        else
            gone_found += found;
    }
    /* Deleted keys answer like absent ones (false positives, plus the rare
     * copy of a used-up entry left in the other half). */
    CHECK(gone_found <= n / 2 / 50);
    check_table(f);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_EQ(st.items, n / 2);
    for (size_t i = 1; i < n; i += 2) CHECK_STATUS(cf_delete(f, &in[i], sizeof in[i]), CF_OK);
    cf_get_stats(f, &st);
    CHECK_EQ(st.items, 0);
    CHECK(st.load_factor < 0.01);
    cf_free(f);
    free(in);
}

/* One key's copies fill its two buckets: CF_E_FULL, and no doubling. */
static void test_copies(void) {
    cf_filter *f = new_inplace(1000, 0.01, NULL);
    uint64_t key = 42;
    unsigned stored = 0;
    while (cf_insert(f, &key, sizeof key) == CF_OK) stored++;
    CHECK(stored == 4 || stored == 8);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_EQ(st.doublings, 0);
    CHECK_EQ(st.failed_inserts, 1);
    CHECK_EQ(cf_count(f, &key, sizeof key), stored);
    for (unsigned i = 0; i < stored; i++) CHECK_STATUS(cf_delete(f, &key, sizeof key), CF_OK);
    CHECK_STATUS(cf_delete(f, &key, sizeof key), CF_E_NOT_FOUND);
    CHECK(!cf_contains(f, &key, sizeof key));
    CHECK_STATUS(cf_insert_unique(f, &key, sizeof key), CF_OK);
    CHECK_STATUS(cf_insert_unique(f, &key, sizeof key), CF_E_EXISTS);
    cf_free(f);
}

static void test_max_bytes(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 100;
    cfg.target_fpp = 0.01;
    cfg.flags = CF_GROW;
    cfg.growth_mode = CF_GROWTH_INPLACE;
    cfg.max_bytes = 7680; /* 1024 buckets of 60 bits */
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    uint64_t *in = keys_of(10000, 5);
    size_t n = 0;
    cf_status s;
    while ((s = cf_insert(f, &in[n], sizeof in[n])) == CF_OK) n++;
    CHECK_STATUS(s, CF_E_FULL);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_EQ(st.table_bytes, 7680);
    CHECK_EQ(st.growth_limit, CF_GROWTH_LIMIT_BYTES);
    CHECK(n > 3800); /* over 93% of 4096 slots */
    CHECK_EQ(count_found(f, in, n), n);
    check_table(f);
    cf_free(f);
    free(in);
}

/* Every allocation a doubling makes fails in turn (a custom allocator:
 * alloc, copy, free): CF_E_NOMEM, and the filter is as it was (same table
 * bytes, every key found). */
static void test_alloc_failures(void) {
    for (long fail = 1; fail < 12; fail++) {
        test_counting c = {0, 0, 0};
        cf_allocator a = {test_counting_alloc, test_counting_free, &c, NULL, NULL};
        cf_filter *f = new_inplace(16, 0.01, &a);
        uint64_t *in = keys_of(4000, 6);
        c.fail_at = c.calls + fail;
        size_t n = 0;
        cf_status s = CF_OK;
        uint8_t *before = NULL;
        size_t before_bytes = 0;
        for (; n < 4000; n++) {
            /* A copy of the table before each insert, to compare after a failure. */
            free(before);
            before_bytes = f->t.table_bytes;
            before = malloc(before_bytes);
            REQUIRE(before != NULL);
            memcpy(before, f->t.table, before_bytes);
            if ((s = cf_insert(f, &in[n], sizeof in[n])) != CF_OK) break;
        }
        /* Either an allocation failed, or the doublings made fewer calls. */
        CHECK(n < 4000 || c.calls < c.fail_at);
        if (n < 4000) {
            CHECK_STATUS(s, CF_E_NOMEM);
            CHECK_EQ(f->t.table_bytes, before_bytes);
            CHECK(memcmp(before, f->t.table, before_bytes) == 0);
            CHECK_EQ(count_found(f, in, n), n);
            c.fail_at = 0;
            for (; n < 4000; n++) REQUIRE(cf_insert(f, &in[n], sizeof in[n]) == CF_OK);
        }
        CHECK_EQ(count_found(f, in, 4000), 4000);
        check_table(f);
        free(before);
        cf_free(f);
        CHECK_EQ(c.live, 0);
        free(in);
    }
    /* Creation itself: the handle, the state, the table. */
    for (long fail = 1; fail <= 3; fail++) {
        test_counting c = {0, fail, 0};
        cf_allocator a = {test_counting_alloc, test_counting_free, &c, NULL, NULL};
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.capacity = 100;
        cfg.target_fpp = 0.01;
        cfg.flags = CF_GROW;
        cfg.growth_mode = CF_GROWTH_INPLACE;
        cfg.allocator = &a;
        cf_filter *f = (cf_filter *)&c;
        CHECK_STATUS(cf_new(&cfg, &f), CF_E_NOMEM);
        CHECK(f == NULL);
        CHECK_EQ(c.live, 0);
    }
}

/* cf_serialize_range gives cf_serialize's bytes for every chunking and at
 * every boundary (header, table, trailer); a range past the end is refused. */
static void test_range(void) {
    static const double fpp_of_width[] = {0.01, 0.004, 0.001}; /* 15, 16, 32 bits */
    for (unsigned wi = 0; wi < 3; wi++) {
        cf_filter *f = new_inplace(10, fpp_of_width[wi], NULL);
        uint64_t *in = keys_of(5000, 21);
        for (size_t i = 0; i < 5000; i++) REQUIRE(cf_insert(f, &in[i], sizeof in[i]) == CF_OK);
        size_t n;
        uint8_t *whole = test_serialize(f, &n), *got = malloc(n);
        REQUIRE(got != NULL);
        static const size_t chunks[] = {1, 7, 127, 128, 129, 4096, 1 << 20};
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            memset(got, 0, n);
            for (size_t at = 0; at < n; at += chunks[c]) {
                size_t len = n - at < chunks[c] ? n - at : chunks[c];
                CHECK_STATUS(cf_serialize_range(f, at, got + at, len), CF_OK);
            }
            CHECK(memcmp(got, whole, n) == 0);
        }
        size_t cuts[] = {0, 1, 127, 128, 129, n - 9, n - 8, n - 7, n - 1};
        for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
            for (size_t len = 0; len <= n - cuts[i] && len < 20; len++) {
                uint8_t buf[20];
                CHECK_STATUS(cf_serialize_range(f, cuts[i], buf, len), CF_OK);
                CHECK(memcmp(buf, whole + cuts[i], len) == 0);
            }
        uint8_t buf[8];
        CHECK_STATUS(cf_serialize_range(f, n, buf, 0), CF_OK);
        CHECK_STATUS(cf_serialize_range(f, n, buf, 1), CF_E_PARAM);
        CHECK_STATUS(cf_serialize_range(f, n - 4, buf, 5), CF_E_PARAM);
        CHECK_STATUS(cf_serialize_range(f, UINT64_MAX, buf, 2), CF_E_PARAM);
        free(whole), free(got), free(in);
        cf_free(f);
    }
}

/* A form read in two halves with a write between them (an insert that
 * doubles or not, a delete) does not load. */
static void test_range_across_a_change(void) {
    for (int op = 0; op < 3; op++) {
        for (uint64_t probe = 0; probe < 20; probe++) {
            cf_filter *f = new_inplace(10, 0.01, NULL);
            uint64_t *in = keys_of(2000, 22 + probe);
            size_t k = 0;
            /* op 2: fill up to just before a doubling, so the write doubles. */
            cf_stats st;
            cf_get_stats(f, &st);
            uint64_t before = st.doublings;
            for (; k < 1000; k++) REQUIRE(cf_insert(f, &in[k], sizeof in[k]) == CF_OK);
            size_t n = cf_serialized_size(f), half = n / 2;
            uint8_t *buf = malloc(n);
            REQUIRE(buf != NULL);
            REQUIRE(cf_serialize_range(f, 0, buf, half) == CF_OK);
            if (op == 0) REQUIRE(cf_insert(f, &in[k], sizeof in[k]) == CF_OK);
            if (op == 1) REQUIRE(cf_delete(f, &in[probe], sizeof in[probe]) == CF_OK);
            if (op == 2) {
                cf_get_stats(f, &st);
                before = st.doublings;
                while (st.doublings == before && k < 2000) {
                    REQUIRE(cf_insert(f, &in[k], sizeof in[k]) == CF_OK);
                    k++;
                    cf_get_stats(f, &st);
                }
                REQUIRE(st.doublings > before);
            }
            /* Same length unless the table doubled: then the tail cannot fit. */
            if (cf_serialized_size(f) == n) {
                REQUIRE(cf_serialize_range(f, half, buf + half, n - half) == CF_OK);
                cf_filter *g = NULL;
                CHECK(cf_deserialize(buf, n, NULL, &g) != CF_OK);
                cf_free(g);
            } else {
                CHECK(op == 2);
            }
            free(buf), free(in);
            cf_free(f);
        }
    }
}

/* 15-bit slots at 0.1%: the FPP bound refuses the third doubling, and the
 * stats say so (the refused insert changed nothing). */
static void test_fpp_limit(void) {
    cf_config cfg = inplace_config(100, 0.001);
    cfg.fingerprint_bits = 15;
    cf_filter *f = NULL;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_EQ(st.growth_limit, CF_GROWTH_OPEN);
    uint64_t *in = keys_of(20000, 29);
    size_t n = 0;
    cf_status s = CF_OK;
    while (n < 20000 && (s = cf_insert(f, &in[n], sizeof in[n])) == CF_OK) n++;
    CHECK_STATUS(s, CF_E_FULL);
    cf_get_stats(f, &st);
    CHECK_EQ(st.growth_limit, CF_GROWTH_LIMIT_FPP);
    CHECK_EQ(st.doublings, 2);
    CHECK(st.fpp_bound <= 0.001);
    CHECK_EQ(count_found(f, in, n), n);
    free(in);
    cf_free(f);
}

/* cf_grow_set_limits on an in-place filter: max_bytes bounds the doublings
 * from then on and is saved; below the table it is refused. */
static void test_set_limits(void) {
    cf_filter *f = new_inplace(100, 0.01, NULL);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_STATUS(cf_grow_set_limits(f, 0, st.table_bytes - 1), CF_E_PARAM);
    CHECK_STATUS(cf_grow_set_limits(f, CF_MAX_TABLES + 1, 0), CF_E_PARAM);
    CHECK_STATUS(cf_grow_set_limits(f, 1, 4 * st.table_bytes), CF_OK);
    cf_get_stats(f, &st);
    CHECK_EQ(st.growth_limit, CF_GROWTH_OPEN);
    uint64_t *in = keys_of(10000, 23);
    size_t n = 0;
    cf_status s;
    while ((s = cf_insert(f, &in[n], sizeof in[n])) == CF_OK) n++;
    CHECK_STATUS(s, CF_E_FULL);
    uint64_t limit = 4 * st.table_bytes;
    cf_get_stats(f, &st);
    CHECK_EQ(st.table_bytes, limit);
    CHECK_EQ(st.max_bytes, limit);
    CHECK_EQ(st.growth_limit, CF_GROWTH_LIMIT_BYTES);
    size_t len;
    uint8_t *buf = test_serialize(f, &len);
    cf_filter *g = NULL;
    REQUIRE(cf_deserialize(buf, len, NULL, &g) == CF_OK);
    cf_get_stats(g, &st);
    CHECK_EQ(st.max_bytes, limit);
    /* Raised: the refused key now goes in (the table doubles). */
    CHECK_STATUS(cf_grow_set_limits(g, 0, 0), CF_OK);
    cf_get_stats(g, &st);
    CHECK_EQ(st.growth_limit, CF_GROWTH_OPEN);
    CHECK_STATUS(cf_insert(g, &in[n], sizeof in[n]), CF_OK);
    cf_get_stats(g, &st);
    CHECK_EQ(st.table_bytes, 2 * limit);
    CHECK_EQ(count_found(g, in, n + 1), n + 1);
    free(buf), free(in);
    cf_free(g);
    cf_free(f);
}

static void test_deterministic(void) {
    cf_filter *a = new_inplace(10, 0.01, NULL), *b = new_inplace(10, 0.01, NULL);
    uint64_t *in = keys_of(20000, 8);
    for (size_t i = 0; i < 20000; i++) {
        REQUIRE(cf_insert(a, &in[i], sizeof in[i]) == CF_OK);
        REQUIRE(cf_insert(b, &in[i], sizeof in[i]) == CF_OK);
        if (i % 3 == 0) {
            CHECK_STATUS(cf_delete(a, &in[i / 2], sizeof in[i]), CF_OK);
            CHECK_STATUS(cf_delete(b, &in[i / 2], sizeof in[i]), CF_OK);
        }
    }
    REQUIRE(a->t.table_bytes == b->t.table_bytes);
    CHECK(memcmp(a->t.table, b->t.table, a->t.table_bytes) == 0);
    cf_free(a), cf_free(b);
    free(in);
}

/* Batched inserts make the tables single ones do, and batched lookups
 * answer as single ones, for every slot width (15 and 16
 * bits take eight or four keys at a time with AVX-512 or AVX2 where the
 * CPU has them: inplace_x86.c, each kernel tested), in tables near and
 * past 1 MiB (prefetched ahead), over batch lengths around the blocks, with
 * and without `out`. */
static void test_batch_every_width(void) {
    static const double fpps[] = {0.01, 0.004, 1e-6}; /* 15-, 16- and 32-bit slots */
    static const unsigned widths[] = {15, 16, 32};
    static const size_t fills[] = {20000, 600000};
    static const size_t lengths[] = {7, 8, 9, 47, 48, 49, 1001};
    for (size_t w = 0; w < 3; w++)
        for (size_t z = 0; z < 2; z++) {
            size_t n = fills[z];
            cf_filter *f = new_inplace(100, fpps[w], NULL);
            REQUIRE(cf__inplace_of(f)->w == widths[w]);
            uint64_t *in = keys_of(n, 11 + w), *h = malloc(2 * n * sizeof *h);
            bool *out = malloc(2 * n);
            REQUIRE(h != NULL && out != NULL);
            for (size_t i = 0; i < n; i++) {
                h[i] = cf_hash(f, &in[i], sizeof in[i]);
                CHECK_STATUS(cf_insert_hash(f, h[i]), CF_OK);
            }
            CHECK(z == 0 ? f->t.table_bytes <= ((size_t)1 << 20)
                         : f->t.table_bytes > ((size_t)1 << 20));
            /* cf_insert_batch (which prefetches ahead in a far table) makes
             * the same table as single inserts. */
            cf_filter *g = new_inplace(100, fpps[w], NULL);
            size_t done = 0;
            CHECK_STATUS(cf_insert_batch(g, h, n, &done), CF_OK);
            CHECK_EQ(done, n);
            REQUIRE(g->t.table_bytes == f->t.table_bytes);
            CHECK(memcmp(g->t.table, f->t.table, f->t.table_bytes) == 0);
            cf_free(g);
            uint64_t s = 12 + w;
            for (size_t i = n; i < 2 * n; i++) h[i] = test_rand(&s);
            size_t mismatches = 0, found = cf_contains_batch(f, h, 2 * n, out), single = 0;
            for (size_t i = 0; i < 2 * n; i++) {
                bool one = cf_contains_hash(f, h[i]);
                single += one;
                mismatches += out[i] != one || (i < n && !one);
            }
            mismatches += found != single;
#if CF__HAVE_INPLACE_X86
            /* Each kernel this CPU runs, not only the widest the call picks. */
            for (unsigned width = 4; width <= 8 && widths[w] != 32; width += 4) {
                if (!cf__batch_x86_runs(width)) continue;
                memset(out, 0, 2 * n);
                size_t got = cf__inplace_x86(f, width, h, 2 * n, out); /* 2n: a multiple of 8 */
                mismatches += got != single;
                for (size_t i = 0; i < 2 * n; i++)
                    mismatches += out[i] != cf_contains_hash(f, h[i]);
            }
#endif
            for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
                size_t from = n - lengths[l] / 2, expect = 0; /* present and absent */
                for (size_t i = from; i < from + lengths[l]; i++)
                    expect += cf_contains_hash(f, h[i]);
                mismatches += cf_contains_batch(f, h + from, lengths[l], NULL) != expect;
            }
            CHECK_EQ(mismatches, 0);
            cf_free(f);
            free(in), free(h), free(out);
        }
}

static void test_batch_and_clear(void) {
    cf_filter *f = new_inplace(10, 0.01, NULL);
    size_t n = 30000;
    uint64_t *in = keys_of(n, 9), *h = malloc(2 * n * sizeof *h);
    bool *out = malloc(2 * n);
    REQUIRE(h != NULL && out != NULL);
    for (size_t i = 0; i < n; i++) h[i] = cf_hash(f, &in[i], sizeof in[i]);
    size_t done = 0;
    CHECK_STATUS(cf_insert_batch(f, h, n, &done), CF_OK);
    CHECK_EQ(done, n);
    uint64_t s = 10;
    for (size_t i = n; i < 2 * n; i++) h[i] = test_rand(&s);
    size_t found = cf_contains_batch(f, h, 2 * n, out);
    size_t again = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        CHECK_EQ(out[i], cf_contains_hash(f, h[i]));
        again += out[i];
        if (i < n) CHECK(out[i]);
    }
    CHECK_EQ(found, again);
    CHECK_STATUS(cf_clear(f), CF_OK);
    CHECK_EQ(cf_contains_batch(f, h, n, NULL), 0);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_EQ(st.items, 0);
    CHECK(st.expected_fpp == 0.0);
    CHECK_EQ(cf_memory_usage(f), st.memory_bytes);
    CHECK(st.memory_bytes >= st.table_bytes);
    cf_free(f);
    free(in), free(h), free(out);
}

static void test_params(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 100;
    cfg.target_fpp = 0.01;
    cfg.flags = CF_GROW;
    cfg.growth_mode = 7;
    cf_filter *f = NULL;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    cfg.growth_mode = CF_GROWTH_INPLACE;
    cfg.flags = CF_GROW | CF_SEMI_SORT;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    cfg.flags = CF_GROW;
    cfg.bucket_size = 2;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    cfg.bucket_size = 4;
    cfg.fingerprint_bits = 12;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    cfg.fingerprint_bits = 0;
    cfg.target_fpp = 1e-12; /* not even 32-bit slots hold 20 doublings */
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    cfg.target_fpp = 0.01;
    cfg.capacity = 0;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    cfg.num_buckets = 100; /* rounded up to 128 */
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_EQ(st.num_buckets, 128);
    CHECK_EQ(st.flags, CF_GROW);
    uint8_t buf[64];
    CHECK_STATUS(cf_serialize(f, buf, sizeof buf, NULL), CF_E_TRUNCATED);
    CHECK_STATUS(cf_grow_add_table(f), CF_E_PARAM);
    CHECK_STATUS(cf_merge(f, f), CF_E_PARAM);
    CHECK_STATUS(cf_table_stats(f, 0, &st), CF_OK);
    CHECK_STATUS(cf_table_stats(f, 1, &st), CF_E_PARAM);
    cf_filter *g = new_inplace(100, 0.01, NULL);
    CHECK_STATUS(cf_merge(f, g), CF_E_PARAM);
    cf_free(g);
    cf_free(f);
    /* The chain stays the default. */
    cf_config_init(&cfg);
    CHECK_EQ(cfg.growth_mode, CF_GROWTH_CHAIN);
}

/* Serialize, deserialize, serialize: the same bytes, the same answers. */
static void test_roundtrip(void) {
    static const double fpp_of_width[] = {0.01, 0.004, 0.001}; /* 15, 16, 32 bits */
    for (unsigned wi = 0; wi < 3; wi++) {
        cf_filter *f = new_inplace(10, fpp_of_width[wi], NULL);
        uint64_t *in = keys_of(30000, 11), *out = keys_of(30000, 12);
        for (size_t i = 0; i < 30000; i++) REQUIRE(cf_insert(f, &in[i], sizeof in[i]) == CF_OK);
        for (size_t i = 0; i < 30000; i += 7) REQUIRE(cf_delete(f, &in[i], sizeof in[i]) == CF_OK);
        size_t n;
        uint8_t *buf = test_serialize(f, &n);
        CHECK_EQ(n, CF__INPLACE_HEADER_SIZE + f->t.table_bytes + 8);
        CHECK_EQ(cf__get_le16(buf + 8), CF__FORMAT_VERSION_INPLACE);
        cf_filter *g = NULL;
        REQUIRE(cf_deserialize(buf, n, NULL, &g) == CF_OK);
        size_t n2;
        uint8_t *buf2 = test_serialize(g, &n2);
        CHECK(n2 == n && memcmp(buf, buf2, n) == 0);
        cf_stats a, b;
        cf_get_stats(f, &a);
        cf_get_stats(g, &b);
        CHECK_EQ(a.items, b.items);
        CHECK_EQ(a.doublings, b.doublings);
        CHECK_EQ(b.format_version, CF__FORMAT_VERSION_INPLACE);
        CHECK_DBL_NEAR(a.expected_fpp, b.expected_fpp, 0.0);
        for (size_t i = 0; i < 30000; i++) {
            CHECK_EQ(cf_contains(f, &in[i], 8), cf_contains(g, &in[i], 8));
            CHECK_EQ(cf_contains(f, &out[i], 8), cf_contains(g, &out[i], 8));
        }
        /* The loaded filter keeps growing like the original. */
        uint64_t *more = keys_of(30000, 13);
        for (size_t i = 0; i < 30000; i++) {
            REQUIRE(cf_insert(f, &more[i], 8) == CF_OK);
            REQUIRE(cf_insert(g, &more[i], 8) == CF_OK);
        }
        CHECK(f->t.table_bytes == g->t.table_bytes &&
              memcmp(f->t.table, g->t.table, f->t.table_bytes) == 0);
        /* Files: save, load, map (verified and not). */
        char path[] = "/tmp/cf_inplace_XXXXXX";
        int fd = mkstemp(path);
        REQUIRE(fd >= 0);
        close(fd);
        CHECK_STATUS(cf_save(g, path), CF_OK);
        cf_filter *l = NULL, *m = NULL, *mv = NULL;
        CHECK_STATUS(cf_load(path, NULL, &l), CF_OK);
        CHECK_STATUS(cf_map(path, NULL, false, &m), CF_OK);
        CHECK_STATUS(cf_map(path, NULL, true, &mv), CF_OK);
        REQUIRE(l != NULL && m != NULL && mv != NULL);
        for (size_t i = 0; i < 30000; i++) {
            CHECK(cf_contains(l, &more[i], 8) && cf_contains(m, &more[i], 8) &&
                  cf_contains(mv, &more[i], 8));
            CHECK_EQ(cf_contains(m, &out[i], 8), cf_contains(g, &out[i], 8));
        }
        CHECK_STATUS(cf_insert(m, &in[0], 8), CF_E_READONLY);
        CHECK_STATUS(cf_delete(m, &more[0], 8), CF_E_READONLY);
        cf_stats st;
        cf_get_stats(m, &st);
        CHECK(st.read_only);
        CHECK_EQ(st.items, b.items + 30000);
        size_t n3;
        uint8_t *buf3 = test_serialize(l, &n3);
        uint8_t *buf4 = test_serialize(m, &n3);
        CHECK(memcmp(buf3, buf4, n3) == 0);
        free(buf3), free(buf4);
        cf_free(l), cf_free(m), cf_free(mv);
        unlink(path);
        free(buf), free(buf2), free(in), free(out), free(more);
        cf_free(f), cf_free(g);
    }
}

/* A bad input gets its status, never a crash: every truncation, every
 * header byte changed, a table byte changed, and table contents the
 * trailer vouches for but the format forbids. */
static void test_bad_inputs(void) {
    cf_filter *f = new_inplace(10, 0.01, NULL);
    uint64_t *in = keys_of(3000, 14);
    for (size_t i = 0; i < 3000; i++) REQUIRE(cf_insert(f, &in[i], 8) == CF_OK);
    size_t n;
    uint8_t *good = test_serialize(f, &n);
    uint8_t *b = malloc(n + 1);
    REQUIRE(b != NULL);
    cf_filter *g = NULL;
    for (size_t len = 0; len < n; len++) {
        memcpy(b, good, len);
        cf_status s = cf_deserialize(b, len, NULL, &g);
        CHECK(s == CF_E_TRUNCATED);
        CHECK(g == NULL);
    }
    memcpy(b, good, n);
    b[n] = 0;
    CHECK_STATUS(cf_deserialize(b, n + 1, NULL, &g), CF_E_CORRUPT);
    for (size_t at = 0; at < CF__INPLACE_HEADER_SIZE; at++) {
        memcpy(b, good, n);
        b[at] ^= 0x40;
        cf_status s = cf_deserialize(b, n, NULL, &g);
        CHECK(s != CF_OK);
        CHECK(g == NULL);
        if (at >= 10 && at < 124) CHECK_STATUS(s, CF_E_CHECKSUM); /* the header check */
    }
    memcpy(b, good, n);
    b[CF__INPLACE_HEADER_SIZE + 5] ^= 1;
    CHECK_STATUS(cf_deserialize(b, n, NULL, &g), CF_E_CHECKSUM);
    /* With the checks recomputed: a level that does not match the size, a
     * slot whose marker leaves less than the tag, a wrong entry count. */
    struct {
        size_t at;
        uint8_t value;
        cf_status want;
    } edits[] = {
        {12, 0, CF_E_CORRUPT},                         /* level 0 */
        {12, 40, CF_E_TRUNCATED},                      /* a level the input is too short for */
        {10, 8, CF_E_CORRUPT},                         /* slot bits 8 */
        {11, 5, CF_E_CORRUPT},                         /* tag bits 5 */
        {10, 16, CF_E_TRUNCATED},                      /* 16-bit slots: a longer table */
        {14, 1, CF_E_CORRUPT},                         /* flags */
        {110, 1, CF_E_CORRUPT},                        /* reserved */
        {32, 0, CF_E_CORRUPT},                         /* entries */
        {CF__INPLACE_HEADER_SIZE, 0x80, CF_E_CORRUPT}, /* slot 0 = 0x..80: marker at bit 7 */
    };
    for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
        memcpy(b, good, n);
        if (edits[e].at == CF__INPLACE_HEADER_SIZE) {
            b[edits[e].at] = edits[e].value;
            b[edits[e].at + 1] = 0;
        } else {
            b[edits[e].at] = edits[e].value;
        }
        cf__put_le32(b + 124, (uint32_t)XXH3_64bits(b, 124));
        cf__put_le64(b + n - 8, XXH3_64bits(b, n - 8));
        CHECK_STATUS(cf_deserialize(b, n, NULL, &g), edits[e].want);
        CHECK(g == NULL);
    }
    free(b), free(good), free(in);
    cf_free(f);
}

/* ---- golden files: tests/data/inplace/{good,bad} ----
 * Regenerated from their recipes and compared byte for byte with the
 * committed files (a change to hashing, splitting or the format that alters
 * a byte fails here); CF_WRITE_GOLDEN=1 rewrites them (run from tests/). */

typedef struct golden_recipe {
    const char *name;
    double fpp;
    uint64_t capacity, seed;
    unsigned keys, dups, deletes; /* "key-0".., "dup" x dups, then keys 0.. deleted */
} golden_recipe;

static const golden_recipe golden_goods[] = {
    /* 15-bit slots, 4 -> 8192 buckets: 11 doublings, so the first items'
     * index bits ran out and were copied into both halves. */
    {"inplace_w15_c10_k20000.cf", 0.01, 10, 31, 20000, 5, 300},
    /* 16-bit slots (target 0.4%), 4 -> 2048 buckets. */
    {"inplace_w16_c10_k5000.cf", 0.004, 10, 34, 5000, 2, 100},
    /* 32-bit slots (target 0.1%), 4 -> 1024 buckets. */
    {"inplace_w32_c10_k3000.cf", 0.001, 10, 32, 3000, 3, 100},
    {"inplace_empty.cf", 0.01, 100, 33, 0, 0, 0},
};

static cf_filter *golden_build(const golden_recipe *r) {
    cf_filter *f;
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = r->capacity;
    cfg.target_fpp = r->fpp;
    cfg.seed = r->seed;
    cfg.flags = CF_GROW;
    cfg.growth_mode = CF_GROWTH_INPLACE;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    char key[32];
    for (unsigned i = 0; i < r->keys; i++) {
        int n = snprintf(key, sizeof key, "key-%u", i);
        REQUIRE(cf_insert(f, key, (size_t)n) == CF_OK);
    }
    for (unsigned i = 0; i < r->dups; i++) REQUIRE(cf_insert(f, "dup", 3) == CF_OK);
    for (unsigned i = 0; i < r->deletes; i++) {
        int n = snprintf(key, sizeof key, "key-%u", i);
        REQUIRE(cf_delete(f, key, (size_t)n) == CF_OK);
    }
    return f;
}

/* Made from good/inplace_w15_c10_k20000.cf (n bytes). */
static const golden_bad golden_bads_list[] = {
    {"truncated_at_64.bin", CF_E_TRUNCATED, "cut inside the header", 64, 0, 0, false, false},
    {"truncated_at_127.bin", CF_E_TRUNCATED, "cut before the header check ends", 127, 0, 0, false,
     false},
    {"truncated_in_table.bin", CF_E_TRUNCATED, "cut inside the table", 4000, 0, 0, false, false},
    {"trailing_byte.bin", CF_E_CORRUPT, "one byte after the trailer", 0, 0, 0, false, true},
    {"header_check_flip.bin", CF_E_CHECKSUM, "seed changed, header check kept", 0, 16, 0x55, false,
     false},
    {"table_flip.bin", CF_E_CHECKSUM, "a table byte changed, trailer kept", 0, 200, 0x55, false,
     false},
    {"slot_bits_8.bin", CF_E_CORRUPT, "slot width 8", 0, 10, 8, true, false},
    {"tag_bits_7.bin", CF_E_CORRUPT, "tag bits 7 with 15-bit slots", 0, 11, 7, true, false},
    {"level_0.bin", CF_E_CORRUPT, "level 0", 0, 12, 0, true, false},
    {"level_14.bin", CF_E_TRUNCATED, "level 14: twice the table", 0, 12, 14, true, false},
    {"level_51.bin", CF_E_CORRUPT, "a level past 65 - 15", 0, 12, 51, true, false},
    {"flags_set.bin", CF_E_CORRUPT, "flags nonzero", 0, 14, 1, true, false},
    {"reserved_set.bin", CF_E_CORRUPT, "a reserved byte nonzero", 0, 100, 1, true, false},
    {"target_1.bin", CF_E_CORRUPT, "target_fpp above 1 (top byte 0x40)", 0, 55, 0x40, true, false},
    {"max_kicks_66036.bin", CF_E_CORRUPT, "max_kicks above 65535", 0, 98, 1, true, false},
    {"entries_off.bin", CF_E_CORRUPT, "entries not the slots in use", 0, 32, 7, true, false},
    {"items_over_entries.bin", CF_E_CORRUPT, "items above entries", 0, 31, 1, true, false},
    {"slot_marker_high.bin", CF_E_CORRUPT, "a slot whose marker leaves under 6 tag bits", 0,
     CF__INPLACE_HEADER_SIZE + 1, 0x04, true, false},
};

/* The one bad file whose change is two bytes: slot 0 of bucket 0 made
 * 0x0400, its marker at bit 10, above 15 - 1 - 6 (the top bit of the
 * second byte is the next slot's). */
static bool poke_slot_marker(const golden_bad *b, uint8_t *p) {
    if (b->at != CF__INPLACE_HEADER_SIZE + 1) return false;
    p[b->at - 1] = 0;
    p[b->at] = (uint8_t)(b->value | (p[b->at] & 0x80));
    return true;
}

static void test_golden(void) {
    bool write = getenv("CF_WRITE_GOLDEN") != NULL;
    uint8_t *good16 = NULL;
    size_t n16 = 0;
    for (size_t i = 0; i < sizeof golden_goods / sizeof golden_goods[0]; i++) {
        const golden_recipe *r = &golden_goods[i];
        cf_filter *f = golden_build(r);
        size_t n;
        uint8_t *made = test_serialize(f, &n);
        size_t dn;
        cf_filter *d, *l, *m;
        uint8_t *disk =
            golden_check_good("data/inplace/good", r->name, made, n, write, &dn, &d, &l, &m);
        char key[32];
        for (unsigned k = r->deletes; k < r->keys; k++) {
            int kn = snprintf(key, sizeof key, "key-%u", k);
            CHECK(cf_contains(d, key, (size_t)kn) && cf_contains(m, key, (size_t)kn));
        }
        CHECK_EQ(cf_count(l, "dup", 3) >= r->dups, 1);
        if (i == 0) {
            good16 = disk;
            n16 = dn;
        } else {
            free(disk);
        }
        free(made);
        cf_free(f), cf_free(d), cf_free(l), cf_free(m);
    }
    REQUIRE(good16 != NULL);
    const golden_bads bad = GOLDEN_BADS("data/inplace/bad",
                                        "good/inplace_w15_c10_k20000.cf by "
                                        "tests/test_inplace.c",
                                        golden_bads_list, 28, poke_slot_marker);
    golden_check_bads(&bad, good16, n16, write);
    free(good16);
}

/* A reader written from docs/FORMAT.md ("In-place grown filters") alone,
 * slot by slot, answering as the library does on the golden files. */
static uint64_t spec_le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Out of line: inlined into a caller with a fixed-size key buffer, gcc 12
 * warns about XXH3's paths for lengths the buffer cannot have. */
__attribute__((noinline)) static uint64_t spec_hash(const void *key, size_t len, uint64_t seed) {
    return XXH3_64bits_withSeed(key, len, seed);
}

static bool spec_contains(const uint8_t *file, const void *key, size_t len) {
    unsigned w = file[10], tb = file[11], k = file[12];
    uint64_t seed = spec_le(file + 16, 8);
    const uint8_t *table = file + 128;
    uint64_t h = spec_hash(key, len, seed);
    uint64_t t = h & ((1ull << tb) - 1);
    uint64_t m = (t + 1) * 0x9e3779b97f4a7c15ull;
    m ^= m >> 29;
    uint64_t H = m * 0x9e3779b97f4a7c15ull;
    uint64_t x[2] = {h, h ^ H};
    unsigned bucket_bits = 4 * w;
    for (int j = 0; j < 2; j++) {
        uint64_t i = x[j] >> (64 - k);
        uint64_t e = (x[j] << k) >> (64 - (w - 1 - tb));
        uint64_t q = t << (w - tb) | e << 1;
        for (unsigned s = 0; s < 4; s++) {
            uint64_t v = bits_of(table, i * bucket_bits + s * w, w);
            if (v == 0) continue;
            unsigned p = 0;
            while (!((v >> p) & 1)) p++;
            if (((v ^ q) >> (p + 1)) == 0) return true;
        }
    }
    return false;
}

static void test_spec_reader(void) {
    char path[256], key[32];
    for (size_t i = 0; i < sizeof golden_goods / sizeof golden_goods[0]; i++) {
        snprintf(path, sizeof path, "data/inplace/good/%s", golden_goods[i].name);
        size_t n;
        uint8_t *disk = golden_read(path, &n);
        REQUIRE(disk != NULL);
        cf_filter *f;
        REQUIRE(cf_deserialize(disk, n, NULL, &f) == CF_OK);
        size_t agree = 0, tried = 0;
        for (unsigned k = 0; k < golden_goods[i].keys + 5000; k++) {
            int kn =
                snprintf(key, sizeof key, k < golden_goods[i].keys ? "key-%u" : "absent-%u", k);
            agree += spec_contains(disk, key, (size_t)kn) == cf_contains(f, key, (size_t)kn);
            tried++;
        }
        CHECK_EQ(agree, tried);
        free(disk);
        cf_free(f);
    }
}

/* f serializes to the n bytes `before` (it was left as it was). */
static void check_unchanged(const uint8_t *before, size_t n, const cf_filter *f) {
    size_t m;
    uint8_t *now = test_serialize(f, &m);
    CHECK(n == m && memcmp(before, now, n) == 0);
    free(now);
}

/* An allocator with realloc: every doubling grows the table with it (one
 * call each, no block allocated beside it); a refused one is CF_E_NOMEM
 * with the filter as it was, and the next insert doubles. */
static long reallocs;

static void *counted_realloc(void *ctx, void *p, size_t old_size, size_t size) {
    reallocs++;
    return test_counting_realloc(ctx, p, old_size, size);
}

static void test_allocator_realloc(void) {
    test_counting c = {0, 0, 0};
    cf_allocator a = {test_counting_alloc, test_counting_free, &c, NULL, counted_realloc};
    cf_filter *f = new_inplace(16, 0.01, &a);
    long live = c.live, calls = c.calls;
    uint64_t *in = keys_of(20000, 24);
    size_t n = 0;
    cf_stats st;
    for (; n < 10000; n++) REQUIRE(cf_insert(f, &in[n], 8) == CF_OK);
    cf_get_stats(f, &st);
    CHECK(st.doublings >= 8);
    CHECK_EQ(c.live, live);                        /* no second table, ever */
    CHECK_EQ(c.calls - calls, (long)st.doublings); /* one call a doubling, */
    CHECK_EQ(reallocs, (long)st.doublings);        /* and that call realloc */
    /* The next doubling's realloc refused. */
    c.fail_at = c.calls + 1;
    uint64_t doublings = st.doublings;
    size_t before_n;
    uint8_t *before = test_serialize(f, &before_n);
    cf_status s = CF_OK;
    for (; n < 20000 && (s = cf_insert(f, &in[n], 8)) == CF_OK; n++) {
        free(before);
        before = test_serialize(f, &before_n);
    }
    CHECK_STATUS(s, CF_E_NOMEM);
    check_unchanged(before, before_n, f);
    CHECK_EQ(count_found(f, in, n), n);
    c.fail_at = 0;
    for (; n < 20000; n++) REQUIRE(cf_insert(f, &in[n], 8) == CF_OK);
    cf_get_stats(f, &st);
    CHECK(st.doublings > doublings);
    CHECK_EQ(count_found(f, in, 20000), 20000);
    check_table(f);
    free(before), free(in);
    cf_free(f);
    CHECK_EQ(c.live, 0);
}

/* A filter of the n keys k, created for `capacity`. */
static cf_filter *filled(uint64_t capacity, const uint64_t *k, size_t n, const cf_allocator *a) {
    cf_filter *f = new_inplace(capacity, 0.01, a);
    for (size_t i = 0; i < n; i++) REQUIRE(cf_insert(f, &k[i], 8) == CF_OK);
    return f;
}

/* Parts built apart and merged, in both directions (a dst below src's level
 * doubles up to it; one above takes src's entries down, used-up ones as
 * copies): every key of both found, the table's counts exact, the FPP under
 * the target and near the filter's own expectation. */
static void test_merge(void) {
    const size_t na = 50000, nb = 3000;
    uint64_t *a = keys_of(na, 31), *b = keys_of(nb, 32), *out = keys_of(200000, 33);
    for (int dir = 0; dir < 2; dir++) {
        /* b's filter starts at 8 buckets: merged into a's (level 14), its
         * first entries have used up their 9 index bits long before. */
        cf_filter *big = filled(16, a, na, NULL), *small = filled(16, b, nb, NULL);
        cf_stats sb, ss, st;
        cf_get_stats(big, &sb);
        cf_get_stats(small, &ss);
        CHECK(sb.doublings >= ss.doublings + 4);
        cf_filter *dst = dir ? small : big, *src = dir ? big : small;
        CHECK_STATUS(cf_merge(dst, src), CF_OK);
        CHECK_EQ(count_found(dst, a, na), na);
        CHECK_EQ(count_found(dst, b, nb), nb);
        check_table(dst);
        cf_get_stats(dst, &st);
        CHECK_EQ(st.items, na + nb);
        CHECK_EQ(st.num_buckets, sb.num_buckets); /* na + nb keys fit at big's level */
        CHECK(st.fpp_bound < 0.01);
        double measured = (double)count_found(dst, out, 200000) / 200000;
        CHECK(measured < 0.01);
        CHECK(measured <= st.expected_fpp * 1.3 + 3e-4);
        /* src is only read. */
        CHECK_EQ(count_found(src, dir ? a : b, dir ? na : nb), dir ? na : nb);
        check_table(src);
        cf_free(big);
        cf_free(small);
    }
    /* A mapped src merges; a mapped dst is refused. */
    cf_filter *dst = filled(1000, b, nb, NULL), *part = filled(1000, a, 20000, NULL), *m = NULL;
    char path[] = "/tmp/cf_inplace_merge_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    CHECK_STATUS(cf_save(part, path), CF_OK);
    CHECK_STATUS(cf_map(path, NULL, true, &m), CF_OK);
    CHECK_STATUS(cf_merge(m, dst), CF_E_READONLY);
    CHECK_STATUS(cf_merge(dst, m), CF_OK);
    CHECK_EQ(count_found(dst, a, 20000), 20000);
    CHECK_EQ(count_found(dst, b, nb), nb);
    cf_free(m);
    /* A damaged slot (its marker inside the tag), mapped without the check
     * that would refuse it: CF_E_CORRUPT, dst unchanged. */
    size_t fn, dn;
    uint8_t *file = test_serialize(part, &fn), *was = test_serialize(dst, &dn);
    uint64_t bit = (part->t.num_buckets / 2) * 60; /* slot 0 of a 15-bit bucket mid-table */
    for (unsigned b = 0; b < 15; b++) {            /* = 1 << 14: length 0 */
        uint8_t *at = file + CF__INPLACE_HEADER_SIZE + (bit + b) / 8,
                one = (uint8_t)(1u << ((bit + b) % 8));
        *at = (uint8_t)(b == 14 ? *at | one : *at & ~one);
    }
    FILE *fp = fopen(path, "wb");
    REQUIRE(fp != NULL && fwrite(file, 1, fn, fp) == fn && fclose(fp) == 0);
    CHECK_STATUS(cf_map(path, NULL, true, &m), CF_E_CHECKSUM);
    CHECK_STATUS(cf_map(path, NULL, false, &m), CF_OK);
    CHECK_STATUS(cf_merge(dst, m), CF_E_CORRUPT);
    check_unchanged(was, dn, dst);
    cf_free(m);
    free(file), free(was);
    unlink(path);
    /* Entries that mean something else in dst: another seed, slot width or
     * bound; and another kind. */
    cf_config cfg = inplace_config(1000, 0.01);
    cfg.seed = 8;
    cf_filter *other = NULL;
    REQUIRE(cf_new(&cfg, &other) == CF_OK);
    CHECK_STATUS(cf_merge(dst, other), CF_E_PARAM);
    cf_free(other);
    cfg.seed = 7;
    cfg.target_fpp = 0.009; /* 15-bit slots still, another bound */
    REQUIRE(cf_new(&cfg, &other) == CF_OK);
    CHECK_STATUS(cf_merge(dst, other), CF_E_PARAM);
    cf_free(other);
    cfg.target_fpp = 1e-6; /* 32-bit slots */
    REQUIRE(cf_new(&cfg, &other) == CF_OK);
    CHECK_STATUS(cf_merge(dst, other), CF_E_PARAM);
    cf_free(other);
    cfg.flags = 0;
    REQUIRE(cf_new(&cfg, &other) == CF_OK);
    CHECK_STATUS(cf_merge(dst, other), CF_E_PARAM);
    CHECK_STATUS(cf_merge(other, dst), CF_E_PARAM);
    cf_free(other);
    cf_free(dst);
    cf_free(part);
    free(a), free(b), free(out);
}

/* A merge that fails (a limit reached, or any allocation: the copy of dst,
 * a doubling) leaves dst as it was, byte for byte, and leaks nothing. */
static void test_merge_failures(void) {
    uint64_t *a = keys_of(20000, 41), *b = keys_of(2000, 42);
    cf_filter *src = filled(16, a, 20000, NULL);
    /* max_bytes below what src's keys need. */
    cf_config cfg = inplace_config(1000, 0.01);
    cfg.max_bytes = 32768; /* 4096 buckets (30,720 bytes): 15,564 entries at 95% */
    cf_filter *dst = NULL;
    REQUIRE(cf_new(&cfg, &dst) == CF_OK);
    for (size_t i = 0; i < 2000; i++) REQUIRE(cf_insert(dst, &b[i], 8) == CF_OK);
    size_t n;
    uint8_t *before = test_serialize(dst, &n);
    CHECK_STATUS(cf_merge(dst, src), CF_E_FULL);
    check_unchanged(before, n, dst);
    free(before);
    cf_free(dst);
    /* Each allocation in turn. */
    bool failed_late = false;
    for (long fail = 1; fail < 40; fail++) {
        test_counting c = {0, 0, 0};
        cf_allocator al = {test_counting_alloc, test_counting_free, &c, NULL, NULL};
        dst = filled(16, b, 2000, &al);
        before = test_serialize(dst, &n);
        c.fail_at = c.calls + fail;
        cf_status s = cf_merge(dst, src);
        if (s == CF_OK) {
            CHECK(c.calls < c.fail_at); /* it made fewer calls */
            CHECK_EQ(count_found(dst, a, 20000), 20000);
            check_table(dst);
        } else {
            CHECK_STATUS(s, CF_E_NOMEM);
            failed_late = failed_late || fail > 1;
            check_unchanged(before, n, dst);
            c.fail_at = 0;
            CHECK_STATUS(cf_merge(dst, src), CF_OK); /* and it works afterwards */
            CHECK_EQ(count_found(dst, a, 20000), 20000);
        }
        CHECK_EQ(count_found(dst, b, 2000), 2000);
        free(before);
        cf_free(dst);
        CHECK_EQ(c.live, 0);
    }
    CHECK(failed_late); /* a doubling's allocation failed, not only the copy */
    cf_free(src);
    free(a), free(b);
}

/* The case (CF_TEST_LONG=1, CTest label long): created for 1,000
 * items at 1%, fed 10,000,000 keys: every key found, the FPP measured on
 * 10M absent keys within the target and the filter's own expectation,
 * deletes of 1% of the keys, lookups of the rest. */
static void test_long_10m(void) {
    if (getenv("CF_TEST_LONG") == NULL) return;
    size_t n = 10000000;
    cf_filter *f = new_inplace(1000, 0.01, NULL);
    uint64_t *in = keys_of(n, 101), *out = keys_of(n, 102);
    for (size_t i = 0; i < n; i++) REQUIRE(cf_insert(f, &in[i], 8) == CF_OK);
    CHECK_EQ(count_found(f, in, n), n);
    cf_stats st;
    cf_get_stats(f, &st);
    double fpp = (double)count_found(f, out, n) / (double)n;
    printf("  10M: %llu doublings, %.2f bits/item, FPP %.4f%% (expected %.4f%%, bound %.4f%%)\n",
           (unsigned long long)st.doublings, st.bits_per_item, 100 * fpp, 100 * st.expected_fpp,
           100 * st.fpp_bound);
    CHECK(fpp < 0.01);
    CHECK(fpp < st.expected_fpp * 1.05 + 1e-4);
    for (size_t i = 0; i < n / 100; i++) CHECK_STATUS(cf_delete(f, &in[i], 8), CF_OK);
    CHECK_EQ(count_found(f, in + n / 100, n - n / 100), n - n / 100);
    CHECK(count_found(f, in, n / 100) < n / 100 / 50);
    check_table(f);
    cf_free(f);
    free(in), free(out);
}

TEST_MAIN(TEST(test_probe_matches_lanes), TEST(test_golden), TEST(test_spec_reader),
          TEST(test_long_10m), TEST(test_roundtrip), TEST(test_bad_inputs), TEST(test_grows_15),
          TEST(test_grows_16), TEST(test_grows_32), TEST(test_double_keeps_fpp), TEST(test_deletes),
          TEST(test_copies), TEST(test_max_bytes), TEST(test_alloc_failures),
          TEST(test_allocator_realloc), TEST(test_range), TEST(test_range_across_a_change),
          TEST(test_set_limits), TEST(test_fpp_limit), TEST(test_deterministic),
          TEST(test_batch_and_clear), TEST(test_batch_every_width), TEST(test_params),
          TEST(test_merge), TEST(test_merge_failures))
