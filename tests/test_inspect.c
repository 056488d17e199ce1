/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* The inspection calls (cf_locate, cf_read_bucket, cf_insert_traced): a
 * traced insert makes the table an untraced one makes, on every shape; its
 * moves, replayed on a copy of the buckets read before, give the buckets
 * read after, each move taking a fingerprint to its partner bucket; and the
 * calls refuse what they cannot serve. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#include "kind/handle.h"
#include "table/bucket.h" /* cf__alt_index: the partner a move must reach */

typedef struct shape {
    uint64_t nb;
    unsigned b, f, flags;
} shape;

static const shape shapes[] = {
    {1 << 12, 4, 12, 0}, /* power of two, buckets on bytes */
    {1000, 4, 12, 0},    /* any size, buckets on bytes */
    {777, 4, 7, 0},      /* buckets at bit offsets */
    {1 << 10, 2, 16, 0},
    {500, 1, 20, 0},
    {300, 8, 16, 0},            /* wide: no SWAR */
    {600, 4, 13, CF_SEMI_SORT}, /* semi-sorted */
};

static cf_filter *make(const shape *sh) {
    cf_config c;
    cf_config_init(&c);
    c.num_buckets = sh->nb;
    c.bucket_size = sh->b;
    c.fingerprint_bits = sh->f;
    c.flags = sh->flags;
    c.seed = 99;
    cf_filter *f = NULL;
    REQUIRE(cf_new(&c, &f) == CF_OK);
    return f;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Fills two filters of the shape to the first failure, one with cf_insert
 * and one with cf_insert_traced, checking each trace against a model of the
 * table (every bucket as cf_read_bucket showed it). */
static void check_shape(const shape *sh) {
    cf_filter *plain = make(sh), *traced = make(sh);
    size_t b = sh->b;
    uint32_t *model = calloc(sh->nb * b, sizeof *model);
    REQUIRE(model != NULL);
    uint64_t kicks = 0, bad_moves = 0, bad_buckets = 0, bad_place = 0;
    cf_move moves[64];
    for (uint64_t key = 0;; key++) {
        cf_status s1 = cf_insert_u64(plain, key);
        size_t n = 12345;
        cf_location loc;
        CHECK_STATUS(cf_locate(traced, &key, sizeof key, &loc), CF_OK); /* LE host */
        cf_status s2 = cf_insert_traced(traced, &key, sizeof key, moves, 64, &n);
        CHECK_STATUS(s2, s1);
        if (s2 != CF_OK) {
            CHECK_EQ(n, 0);
            break;
        }
        REQUIRE(n >= 1 && n <= 64);
        kicks += n - 1;
        /* Replay: each write goes to a slot the model shows free (the free
         * end, then each slot just vacated), from where the model shows
         * the same fingerprint, to the fingerprint's other bucket. */
        for (size_t i = 0; i < n; i++) {
            const cf_move *m = &moves[i];
            uint32_t *to = &model[m->to_bucket * b + m->to_slot];
            bad_moves += m->to_bucket >= sh->nb || m->to_slot >= b || *to != 0;
            if (m->from_bucket == CF_NO_BUCKET) {
                bad_place += i != n - 1 || m->fingerprint != loc.fingerprint ||
                             (m->to_bucket != loc.bucket1 && m->to_bucket != loc.bucket2);
            } else {
                uint32_t *from = &model[m->from_bucket * b + m->from_slot];
                bad_moves +=
                    *from != m->fingerprint ||
                    m->to_bucket != cf__alt_index(&traced->t, m->from_bucket, m->fingerprint);
                *from = 0;
            }
            *to = m->fingerprint;
        }
        /* The buckets written now hold what the model says (as multisets:
         * a semi-sorted bucket reorders itself). */
        for (size_t i = 0; i < n; i++) {
            uint64_t bk = moves[i].to_bucket;
            uint32_t got[8], want[8];
            REQUIRE(cf_read_bucket(traced, bk, got, 8) == CF_OK);
            memcpy(want, &model[bk * b], b * sizeof *want);
            if (sh->flags & CF_SEMI_SORT) {
                qsort(got, b, sizeof *got, cmp_u32);
                qsort(want, b, sizeof *want, cmp_u32);
            }
            bad_buckets += memcmp(got, want, b * sizeof *got) != 0;
        }
        /* The model stays the table: semi-sorted buckets keep their own
         * order, so take it from the table. */
        if (sh->flags & CF_SEMI_SORT)
            for (size_t i = 0; i < n; i++)
                cf_read_bucket(traced, moves[i].to_bucket, &model[moves[i].to_bucket * b], b);
    }
    CHECK_EQ(bad_moves, 0);
    CHECK_EQ(bad_place, 0);
    CHECK_EQ(bad_buckets, 0);
    CHECK(kicks > 0); /* filled to failure: evictions happened */
    cf_stats a, t;
    cf_get_stats(plain, &a);
    cf_get_stats(traced, &t);
    CHECK_EQ(a.items, t.items);
    CHECK_EQ(a.total_kicks, t.total_kicks);
    CHECK_EQ(t.total_kicks, kicks);
    CHECK_EQ(a.failed_inserts, t.failed_inserts);
    /* The same bytes: a traced insert makes the table an untraced one does. */
    size_t len = cf_serialized_size(plain);
    uint8_t *x = malloc(len), *y = malloc(len);
    REQUIRE(x && y && cf_serialized_size(traced) == len);
    REQUIRE(cf_serialize(plain, x, len, NULL) == CF_OK);
    REQUIRE(cf_serialize(traced, y, len, NULL) == CF_OK);
    CHECK(memcmp(x, y, len) == 0);
    /* Every bucket read whole agrees with the model. */
    uint64_t bad_read = 0;
    for (uint64_t bk = 0; bk < sh->nb; bk++) {
        uint32_t got[8];
        REQUIRE(cf_read_bucket(traced, bk, got, b) == CF_OK);
        if (sh->flags & CF_SEMI_SORT) qsort(&model[bk * b], b, sizeof *model, cmp_u32);
        if (sh->flags & CF_SEMI_SORT) qsort(got, b, sizeof *got, cmp_u32);
        bad_read += memcmp(got, &model[bk * b], b * sizeof *got) != 0;
    }
    CHECK_EQ(bad_read, 0);
    free(x), free(y), free(model);
    cf_free(plain);
    cf_free(traced);
}

static void test_traced_matches_insert(void) {
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) check_shape(&shapes[i]);
}

/* *nmoves counts every write even past cap (as snprintf), cap 0 included;
 * a failed insert reports none and changes nothing. */
static void test_counts_and_failure(void) {
    shape sh = {64, 4, 12, 0};
    cf_filter *f = make(&sh);
    cf_move one[1];
    size_t n = 0, longest = 0;
    uint64_t key = 0;
    cf_status s;
    for (;; key++) {
        s = key % 2 ? cf_insert_traced_hash(f, cf_hash(f, &key, 8), NULL, 0, &n)
                    : cf_insert_traced_hash(f, cf_hash(f, &key, 8), one, 1, &n);
        if (s != CF_OK) break;
        CHECK_GE(n, 1);
        if (n > longest) longest = n;
        if (key % 2 == 0) CHECK(n > 1 || one[0].from_bucket == CF_NO_BUCKET);
    }
    CHECK_STATUS(s, CF_E_FULL);
    CHECK_EQ(n, 0);
    CHECK(longest > 1);
    /* Every bucket as it was (the file's header would differ: it counts
     * failed inserts). */
    uint32_t before[64][4], after[64][4];
    for (uint64_t bk = 0; bk < 64; bk++) REQUIRE(cf_read_bucket(f, bk, before[bk], 4) == CF_OK);
    CHECK_STATUS(cf_insert_traced(f, &key, 8, one, 1, &n), CF_E_FULL);
    for (uint64_t bk = 0; bk < 64; bk++) REQUIRE(cf_read_bucket(f, bk, after[bk], 4) == CF_OK);
    CHECK(memcmp(before, after, sizeof before) == 0);
    cf_free(f);
}

/* What the calls refuse: NULLs, short buffers, buckets past the end, the
 * kinds without one table; a mapped file reads but is not written. */
static void test_refusals(void) {
    shape sh = {100, 4, 12, 0};
    cf_filter *f = make(&sh);
    cf_location loc;
    uint32_t slots[4];
    size_t n = 7;
    CHECK_STATUS(cf_locate(NULL, "a", 1, &loc), CF_E_PARAM);
    CHECK_STATUS(cf_locate(f, NULL, 1, &loc), CF_E_PARAM);
    CHECK_STATUS(cf_locate(f, "a", 1, NULL), CF_E_PARAM);
    CHECK_STATUS(cf_locate(f, NULL, 0, &loc), CF_OK); /* the empty key */
    CHECK_STATUS(cf_read_bucket(f, 100, slots, 4), CF_E_PARAM);
    CHECK_STATUS(cf_read_bucket(f, 0, slots, 3), CF_E_PARAM);
    CHECK_STATUS(cf_read_bucket(f, 0, NULL, 4), CF_E_PARAM);
    CHECK_STATUS(cf_read_bucket(NULL, 0, slots, 4), CF_E_PARAM);
    CHECK_STATUS(cf_insert_traced(f, "a", 1, NULL, 1, &n), CF_E_PARAM);
    CHECK_EQ(n, 0);
    CHECK_STATUS(cf_insert_traced(NULL, "a", 1, NULL, 0, &n), CF_E_PARAM);
    CHECK_STATUS(cf_insert_traced(f, NULL, 1, NULL, 0, &n), CF_E_PARAM);
    /* The key goes where cf_locate says, and a lookup reads those buckets. */
    CHECK_STATUS(cf_locate(f, "apple", 5, &loc), CF_OK);
    CHECK_STATUS(cf_insert_traced(f, "apple", 5, NULL, 0, NULL), CF_OK);
    uint32_t a[4], b[4];
    REQUIRE(cf_read_bucket(f, loc.bucket1, a, 4) == CF_OK);
    REQUIRE(cf_read_bucket(f, loc.bucket2, b, 4) == CF_OK);
    int found = 0;
    for (int i = 0; i < 4; i++) found += (a[i] == loc.fingerprint) + (b[i] == loc.fingerprint);
    CHECK_GE(found, 1);
    CHECK(cf_contains(f, "apple", 5));

    /* A mapped file: located and read, not written. */
    char path[] = "/tmp/cf_inspect_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    REQUIRE(cf_save(f, path) == CF_OK);
    cf_filter *m = NULL;
    REQUIRE(cf_map(path, NULL, true, &m) == CF_OK);
    uint32_t c[4];
    CHECK_STATUS(cf_read_bucket(m, loc.bucket1, c, 4), CF_OK);
    CHECK(memcmp(a, c, sizeof a) == 0);
    CHECK_STATUS(cf_locate(m, "apple", 5, &loc), CF_OK);
    CHECK_STATUS(cf_insert_traced(m, "pear", 4, NULL, 0, &n), CF_E_READONLY);
    cf_free(m);
    unlink(path);
    cf_free(f);

    /* The kinds with more than one table, or with their own slots. */
    cf_config c2;
    cf_config_init(&c2);
    c2.capacity = 1000;
    unsigned modes[][2] = {
        {CF_GROW, CF_GROWTH_CHAIN}, {CF_GROW, CF_GROWTH_INPLACE}, {CF_CONCURRENT, 0}};
    for (size_t i = 0; i < 3; i++) {
        c2.flags = modes[i][0];
        c2.growth_mode = modes[i][1];
        cf_filter *k = NULL;
        REQUIRE(cf_new(&c2, &k) == CF_OK);
        CHECK_STATUS(cf_locate(k, "a", 1, &loc), CF_E_PARAM);
        CHECK_STATUS(cf_read_bucket(k, 0, slots, 4), CF_E_PARAM);
        CHECK_STATUS(cf_insert_traced(k, "a", 1, NULL, 0, &n), CF_E_PARAM);
        CHECK(!cf_contains(k, "a", 1)); /* nothing was inserted */
        cf_free(k);
    }
}

TEST_MAIN(TEST(test_traced_matches_insert), TEST(test_counts_and_failure), TEST(test_refusals))
