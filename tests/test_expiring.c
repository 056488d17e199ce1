/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_expiring.c -- expiring filters (cfg.expire_after, cf_set_time) with
 * an injected clock: the window's promises, the stream that never fills,
 * refreshes, files, merges and allocation failures, across shapes.
 *
 * Every check runs a model beside the filter: the time each key was last
 * written.  A key written at t must be found at every time before
 * t + expire_after (no false negatives); from t + (k + 1) * span on it
 * must answer only as often as the filter's own expected_fpp allows.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <unistd.h>

#include "format/expiring_format.h"
#include "table/layout.h"
#include "test.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "test_golden_files.h"

static cf_filter *make(uint64_t capacity, unsigned fbits, unsigned b, uint64_t expire_after,
                       uint64_t seed) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = capacity;
    cfg.fingerprint_bits = fbits;
    cfg.bucket_size = b;
    cfg.expire_after = expire_after;
    cfg.seed = seed;
    cf_filter *f = NULL;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    return f;
}

static cf_stats stats_of(const cf_filter *f) {
    cf_stats st;
    REQUIRE(cf_get_stats(f, &st) == CF_OK);
    return st;
}

/* The stamp widths the header promises: at most 1.35 f bits a slot, and
 * the widest such stamp, for every width an expiring filter takes. */
static void test_stamp_widths(void) {
    for (unsigned f = 1; f <= 28; f++) {
        cf_filter *x = make(1000, f, 4, 3600, 1);
        cf_stats st = stats_of(x);
        unsigned s = st.stamp_bits;
        CHECK_EQ(st.fingerprint_bits, f);
        CHECK_EQ(st.bits_per_slot, f + s);
        CHECK(s >= 1 && s <= 4);
        CHECK(s == 1 || (double)(f + s) <= 1.35 * f);
        /* The widest that fits, or 3 where 4 makes a bucket of four wider
         * than a 64-bit word and 3 does not (f = 13). */
        bool widest = s == 4 || (double)(f + s + 1) > 1.35 * f;
        CHECK(widest || (s == 3 && f == 13));
        CHECK_EQ(st.stamps, (1u << s) - 1); /* 3600 >= 2^s - 1 */
        CHECK_EQ(st.expire_span * st.stamps >= 3600, 1);
        CHECK_EQ((st.expire_span - 1) * st.stamps < 3600, 1);
        CHECK_EQ(st.format_version, 7);
        CHECK(strcmp(cf_kind_name(x), "expiring") == 0);
        cf_free(x);
    }
    /* A short window: one tick per time unit, exactly expire_after of them. */
    cf_filter *x = make(100, 12, 4, 5, 1);
    cf_stats st = stats_of(x);
    CHECK_EQ(st.stamps, 5);
    CHECK_EQ(st.expire_span, 1);
    cf_free(x);
}

/* Refusals: combinations cf_new does not make, a clock running backwards,
 * cf_set_time on other kinds. */
static void test_refusals(void) {
    static const unsigned flags[] = {CF_GROW, CF_CONCURRENT, CF_SEMI_SORT};
    for (size_t i = 0; i < 3; i++) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.capacity = 1000;
        cfg.expire_after = 60;
        cfg.flags = flags[i];
        cf_filter *f = (cf_filter *)&cfg;
        CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
        CHECK(f == NULL);
        char why[256];
        CHECK_STATUS(cf_config_explain(&cfg, NULL, why, sizeof why, NULL), CF_E_PARAM);
        CHECK(strstr(why, "expire_after=60") != NULL);
    }
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 1000;
    cfg.expire_after = 60;
    cfg.fingerprint_bits = 29; /* no room for a stamp in 32 bits */
    cf_filter *f;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);

    f = make(1000, 12, 4, 60, 1);
    CHECK_STATUS(cf_set_time(f, 100), CF_OK);
    CHECK_STATUS(cf_set_time(f, 100), CF_OK); /* the same time again is fine */
    CHECK_STATUS(cf_insert(f, "a", 1), CF_OK);
    size_t n;
    uint8_t *before = test_serialize(f, &n);
    CHECK_STATUS(cf_set_time(f, 99), CF_E_INVAL);
    CHECK_EQ(stats_of(f).now, 100);
    size_t m;
    uint8_t *after = test_serialize(f, &m);
    CHECK(n == m && memcmp(before, after, n) == 0); /* nothing changed */
    free(before), free(after);
    CHECK_STATUS(cf_set_time(NULL, 1), CF_E_PARAM);
    cf_free(f);

    cf_config_init(&cfg);
    cfg.capacity = 100;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    CHECK_STATUS(cf_set_time(f, 1), CF_E_PARAM); /* a plain filter has no clock */
    CHECK_EQ(stats_of(f).expire_after, 0);
    cf_free(f);
}

/* The model: when each key (an index) was last written, UINT64_MAX when never. */
typedef struct model {
    uint64_t *written;
    size_t n;
} model;

/* Random writes and clock steps on one shape; after every step every key
 * written within the window is found.  Keys whose window and the span
 * after it have passed are counted as they answer. */
static void run_window(unsigned fbits, unsigned b, uint64_t expire_after, uint64_t seed,
                       size_t *late_found, size_t *late_asked, double *fpp_sum) {
    const uint64_t cap = 2000;
    cf_filter *f = make(cap, fbits, b, expire_after, seed);
    cf_stats st = stats_of(f);
    uint64_t span = st.expire_span, k = st.stamps;
    model m = {calloc(40000, sizeof(uint64_t)), 40000};
    REQUIRE(m.written != NULL);
    for (size_t i = 0; i < m.n; i++) m.written[i] = UINT64_MAX;
    uint64_t now = 0, r = seed, next = 0;
    /* About 0.8 cap writes per window (steps of 2.5 on average), within the
     * rate the filter was sized for. */
    uint64_t per_step = cap * 2 / expire_after;
    int errors = 0;
    for (int step = 0; step < 300 && errors < 10; step++) {
        now += 1 + test_rand(&r) % 4;
        REQUIRE(cf_set_time(f, now) == CF_OK);
        for (uint64_t j = 0; j < per_step; j++) {
            uint64_t key;
            if (next < m.n && test_rand(&r) % 4 != 0) {
                key = next++;
            } else {
                key = test_rand(&r) % (next ? next : 1); /* an old key again: refresh */
            }
            cf_status s = cf_insert_unique_u64(f, key);
            bool present = m.written[key] != UINT64_MAX && now < m.written[key] + expire_after;
            if (present) CHECK_STATUS(s, CF_E_EXISTS);
            if (s != CF_OK && s != CF_E_EXISTS) {
                CHECK_STATUS(s, CF_OK);
                errors++;
                continue;
            }
            m.written[key] = now; /* written now, or refreshed now */
        }
        double fpp = stats_of(f).expected_fpp;
        for (uint64_t key = 0; key < next; key++) {
            uint64_t t = m.written[key];
            if (t == UINT64_MAX) continue;
            if (now < t + expire_after) {
                if (!cf_contains_u64(f, key) && errors++ < 10) {
                    fprintf(stderr, "f %u b %u: key %llu written at %llu missing at %llu\n", fbits,
                            b, (unsigned long long)key, (unsigned long long)t,
                            (unsigned long long)now);
                    CHECK(0);
                }
            } else if (now >= t + (k + 1) * span) {
                /* Asked once (its answer would repeat while its buckets
                 * stay): then forgotten until it is written again. */
                *late_found += cf_contains_u64(f, key);
                (*late_asked)++;
                *fpp_sum += fpp;
                m.written[key] = UINT64_MAX;
            }
        }
    }
    CHECK_EQ(stats_of(f).failed_inserts, 0);
    /* The batch lookup answers as single ones (the pipeline of one-word
     * buckets, or the loop of wider ones), for written and unwritten keys. */
    static bool out[3000];
    uint64_t hs[3000];
    for (uint64_t i = 0; i < 3000; i++) {
        uint64_t key = next + 1500 > i ? next + 1500 - i : i;
        hs[i] = cf_hash(f, &key, sizeof key);
    }
    size_t hits = cf_contains_batch(f, hs, 3000, out), single = 0;
    for (size_t i = 0; i < 3000; i++) {
        single += cf_contains_hash(f, hs[i]);
        CHECK(out[i] == cf_contains_hash(f, hs[i]));
    }
    CHECK_EQ(hits, single);
    /* After ~100 passes the item count still matches the table: an image
     * of it loads (its check counts the entries). */
    size_t n = cf_serialized_size(f);
    void *img = malloc(n);
    REQUIRE(img != NULL);
    REQUIRE(cf_serialize(f, img, n, NULL) == CF_OK);
    cf_filter *g = NULL;
    CHECK_STATUS(cf_deserialize(img, n, NULL, &g), CF_OK);
    cf_free(g);
    free(img);
    free(m.written);
    cf_free(f);
}

/* No false negative inside the window for fingerprints of 8, 12 and 16
 * bits in buckets of 2, 4 and 8 (every lookup path: one word, two words,
 * slot by slot); expired keys answer at the FPP: their hits stay within
 * six standard deviations of the sum of the filter's own expected_fpp at
 * each question (a binomial with those probabilities). */
static void test_window_across_shapes(void) {
    static const unsigned widths[] = {8, 12, 16}, sizes[] = {2, 4, 8};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            size_t found = 0, asked = 0;
            double expect = 0;
            run_window(widths[i], sizes[j], 60, 7 + i * 3 + j, &found, &asked, &expect);
            CHECK(asked > 10000);
            if (getenv("CF_TEST_VERBOSE"))
                fprintf(stderr, "f %u b %u: %zu of %zu expired keys found, expected %.1f\n",
                        widths[i], sizes[j], found, asked, expect);
            double bound = expect + 6 * sqrt(expect) + 3;
            if (!(found <= bound))
                fprintf(stderr, "f %u b %u: %zu of %zu expired keys found, expected %.1f\n",
                        widths[i], sizes[j], found, asked, expect);
            CHECK(found <= bound);
        }
}

/* The exact edges: a key written at t is found at t + expire_after - 1
 * and gone at t + (k + 1) * span, for every t within one tick. */
static void test_edges(void) {
    for (uint64_t t = 1000; t < 1000 + 20; t++) {
        cf_filter *f = make(100, 16, 4, 100, 3); /* k = 15, span = 7: window 105 */
        cf_stats st = stats_of(f);
        REQUIRE(cf_set_time(f, t) == CF_OK);
        REQUIRE(cf_insert_u64(f, 42) == CF_OK);
        REQUIRE(cf_set_time(f, t + 100 - 1) == CF_OK);
        CHECK(cf_contains_u64(f, 42));
        uint64_t gone = (t / st.expire_span + st.stamps + 1) * st.expire_span;
        CHECK(gone <= t + (st.stamps + 1) * st.expire_span);
        REQUIRE(cf_set_time(f, gone - 1) == CF_OK);
        CHECK(cf_contains_u64(f, 42));
        CHECK_EQ(stats_of(f).items, 1);
        REQUIRE(cf_set_time(f, gone) == CF_OK);
        CHECK(!cf_contains_u64(f, 42));
        CHECK_EQ(stats_of(f).items, 0);
        cf_free(f);
    }
}

/* Small filters too: a stream brings the table to its peak once a tick,
 * so its sizing keeps room for small tables' variance (expiring.c,
 * cf__expiring_sized).  Capacities 10 to 500 in buckets of four and
 * eight, 100 windows each, several seeds: none fills.  (Without that
 * room, most of these streams filled.) */
static void test_small_streams(void) {
    static const uint64_t caps[] = {10, 20, 50, 100, 200, 500};
    static const unsigned sizes[] = {4, 8};
    for (size_t j = 0; j < 2; j++)
        for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++)
            for (uint64_t seed = 0; seed < 6; seed++) {
                const uint64_t cap = caps[c], window = 1000;
                cf_filter *f = make(cap, 13, sizes[j], window, seed);
                for (uint64_t i = 0; i < 100 * cap; i++) {
                    REQUIRE(cf_set_time(f, i * window / cap) == CF_OK);
                    cf_status s = cf_insert_u64(f, i + (seed << 40));
                    if (s != CF_OK) {
                        fprintf(stderr, "capacity %llu, b %u, seed %llu: insert %llu: %s\n",
                                (unsigned long long)cap, sizes[j], (unsigned long long)seed,
                                (unsigned long long)i, cf_status_name(s));
                        CHECK_STATUS(s, CF_OK);
                        break;
                    }
                }
                cf_free(f);
            }
}

/* A stream of 100 times the capacity, written at the rate the filter was
 * sized for (capacity items per expire_after), never finds it full; and a
 * jump of a whole window empties it. */
static void test_stream_never_full(void) {
    static const unsigned sizes[] = {2, 4, 8};
    for (size_t j = 0; j < 3; j++) {
        const uint64_t cap = 1000, window = 1000;
        cf_filter *f = make(cap, 12, sizes[j], window, 9);
        uint64_t most = 0;
        for (uint64_t i = 0; i < 100 * cap; i++) {
            REQUIRE(cf_set_time(f, i * window / cap) == CF_OK);
            cf_status s = cf_insert_u64(f, i);
            if (s != CF_OK) {
                fprintf(stderr, "b %u: insert %llu: %s\n", sizes[j], (unsigned long long)i,
                        cf_status_name(s));
                CHECK_STATUS(s, CF_OK);
                break;
            }
            uint64_t items = stats_of(f).items;
            most = items > most ? items : most;
        }
        cf_stats st = stats_of(f);
        CHECK_EQ(st.failed_inserts, 0);
        CHECK(most > cap); /* the span after a window holds more */
        CHECK(most <= (st.stamps + 1) * st.expire_span * cap / window + 1);
        REQUIRE(cf_set_time(f, st.now + 2 * window) == CF_OK);
        CHECK_EQ(stats_of(f).items, 0);
        cf_free(f);
    }
}

/* cf_insert_unique of a present key refreshes it (one copy, a window from
 * now); cf_insert adds copies; deletes remove one. */
static void test_refresh_and_copies(void) {
    cf_filter *f = make(1000, 14, 4, 100, 5);
    cf_stats st = stats_of(f);
    REQUIRE(cf_insert(f, "k", 1) == CF_OK);
    for (uint64_t t = 50; t <= 1000; t += 50) {
        REQUIRE(cf_set_time(f, t) == CF_OK);
        CHECK_STATUS(cf_insert_unique(f, "k", 1), CF_E_EXISTS);
        CHECK_EQ(cf_count(f, "k", 1), 1);
        CHECK_EQ(stats_of(f).items, 1);
    }
    REQUIRE(cf_set_time(f, 1000 + 99) == CF_OK);
    CHECK(cf_contains(f, "k", 1)); /* refreshed at 1000 */
    REQUIRE(cf_set_time(f, 1000 + (st.stamps + 1) * st.expire_span) == CF_OK);
    CHECK(!cf_contains(f, "k", 1));
    CHECK_STATUS(cf_insert_unique(f, "k", 1), CF_OK); /* gone: a new copy */

    REQUIRE(cf_insert(f, "d", 1) == CF_OK);
    REQUIRE(cf_insert(f, "d", 1) == CF_OK);
    CHECK_EQ(cf_count(f, "d", 1), 2);
    CHECK_STATUS(cf_delete(f, "d", 1), CF_OK);
    CHECK(cf_contains(f, "d", 1));
    CHECK_STATUS(cf_delete(f, "d", 1), CF_OK);
    CHECK(!cf_contains(f, "d", 1));
    CHECK_STATUS(cf_delete(f, "d", 1), CF_E_NOT_FOUND);
    CHECK_EQ(stats_of(f).items, 1);
    cf_free(f);
}

/* A delete takes the oldest of the entries it could mean.  Two keys whose
 * hashes give the same fingerprint and the same buckets (h1, h2) are one
 * entry each; the newer one, in the first bucket, and the older in the
 * second: deleting h1 must leave h2 its own stamp, so h2 is found until
 * its window ends (a delete that took the first match left h2 the older
 * stamp, and h2 went a window after h1's write: found by fuzz_ops). */
static void test_delete_takes_the_oldest(void) {
    const uint64_t expire_after = 15;
    cf_filter *f = make(50, 12, 1, expire_after, 0);
    cf_stats st = stats_of(f);
    REQUIRE(st.stamps * st.expire_span == expire_after); /* a window of whole ticks */
    uint64_t h1 = 0x0123456789abcdefull, h2 = h1, nb = st.num_buckets;
    do /* another hash of the same fingerprint and first bucket */
        h2++;
    while (cf__fingerprint(h2, 12) != cf__fingerprint(h1, 12) ||
           cf__index1(h2, nb) != cf__index1(h1, nb));
    REQUIRE(cf_insert_hash(f, h1) == CF_OK); /* t = 0: the first bucket */
    REQUIRE(cf_insert_hash(f, h1) == CF_OK); /* t = 0: the second */
    uint64_t t1 = 5 * st.expire_span;
    REQUIRE(cf_set_time(f, t1) == CF_OK);
    CHECK_STATUS(cf_delete_hash(f, h1), CF_OK); /* one of h1's two: the first bucket's */
    REQUIRE(cf_insert_hash(f, h2) == CF_OK);    /* t1: the first bucket again */
    CHECK_EQ(cf_count_hash(f, h2), 2);
    CHECK_STATUS(cf_delete_hash(f, h1), CF_OK); /* h1 was written at 0: its entry goes */
    CHECK_EQ(cf_count_hash(f, h2), 1);
    REQUIRE(cf_set_time(f, t1 + expire_after - 1) == CF_OK);
    CHECK(cf_contains_hash(f, h2)); /* written at t1 */
    REQUIRE(cf_set_time(f, t1 + (st.stamps + 1) * st.expire_span) == CF_OK);
    CHECK(!cf_contains_hash(f, h2));
    cf_free(f);
}

/* Batches answer as single calls; the same times and operations give the
 * same bytes. */
static void test_batches_and_determinism(void) {
    cf_filter *a = make(5000, 13, 4, 1000, 11), *b = make(5000, 13, 4, 1000, 11);
    uint64_t h[4000];
    for (int i = 0; i < 4000; i++) h[i] = cf_hash(a, &i, sizeof i);
    for (int round = 0; round < 4; round++) {
        REQUIRE(cf_set_time(a, 300u * round) == CF_OK && cf_set_time(b, 300u * round) == CF_OK);
        size_t done = 0;
        CHECK_STATUS(cf_insert_batch(a, h + 1000 * round, 1000, &done), CF_OK);
        CHECK_EQ(done, 1000);
        for (int i = 0; i < 1000; i++) REQUIRE(cf_insert_hash(b, h[1000 * round + i]) == CF_OK);
    }
    size_t na, nb;
    uint8_t *pa = test_serialize(a, &na), *pb = test_serialize(b, &nb);
    CHECK(na == nb && memcmp(pa, pb, na) == 0);
    bool out[4000];
    size_t found = cf_contains_batch(a, h, 4000, out);
    size_t single = 0;
    for (int i = 0; i < 4000; i++) {
        CHECK_EQ(out[i], cf_contains_hash(a, h[i]));
        single += cf_contains_hash(a, h[i]);
    }
    CHECK_EQ(found, single);
    CHECK(found >= 3000); /* rounds 1-3 are within the window at 900 */
    free(pa), free(pb);
    cf_free(a), cf_free(b);
}

/* Files: bytes, ranges, files and mappings answer as the filter did, keep
 * the clock and its stamps (the loaded filter expires the same keys at
 * the same time). */
static void test_files_round_trip(void) {
    char path[] = "/tmp/cf_expiring_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    static const unsigned widths[] = {8, 13, 16}, sizes[] = {2, 4, 8};
    for (size_t i = 0; i < 3; i++) {
        cf_filter *f = make(3000, widths[i], sizes[i], 500, 21);
        for (uint64_t k = 0; k < 3000; k++) {
            REQUIRE(cf_set_time(f, k / 5) == CF_OK);
            REQUIRE(cf_insert_u64(f, k) == CF_OK);
        }
        size_t n;
        uint8_t *bytes = test_serialize(f, &n);
        CHECK_EQ(n, cf_serialized_size(f));
        uint8_t *ranged = malloc(n);
        REQUIRE(ranged != NULL);
        for (size_t off = 0; off < n; off += 100)
            CHECK_STATUS(cf_serialize_range(f, off, ranged + off, n - off < 100 ? n - off : 100),
                         CF_OK);
        CHECK(memcmp(bytes, ranged, n) == 0);
        cf_filter *d = NULL, *l = NULL, *m = NULL, *p = NULL;
        CHECK_STATUS(cf_deserialize(bytes, n, NULL, &d), CF_OK);
        size_t used = 0;
        CHECK_STATUS(cf_deserialize_prefix(bytes, n, NULL, &p, &used), CF_OK);
        CHECK_EQ(used, n);
        CHECK_STATUS(cf_save(f, path), CF_OK);
        CHECK_STATUS(cf_load(path, NULL, &l), CF_OK);
        CHECK_STATUS(cf_map(path, NULL, true, &m), CF_OK);
        REQUIRE(d && l && m && p);
        CHECK(strcmp(cf_kind_name(l), "expiring") == 0);
        CHECK_EQ(stats_of(m).now, stats_of(f).now);
        CHECK_STATUS(cf_set_time(m, 10000), CF_E_READONLY);
        CHECK_STATUS(cf_insert_u64(m, 1), CF_E_READONLY);
        for (uint64_t k = 0; k < 6000; k++) {
            bool want = cf_contains_u64(f, k);
            CHECK(cf_contains_u64(d, k) == want && cf_contains_u64(l, k) == want &&
                  cf_contains_u64(m, k) == want && cf_contains_u64(p, k) == want);
        }
        /* The same clock steps expire the same keys. */
        REQUIRE(cf_set_time(f, 900) == CF_OK && cf_set_time(l, 900) == CF_OK);
        size_t a, b;
        uint8_t *fa = test_serialize(f, &a), *lb = test_serialize(l, &b);
        CHECK(a == b && memcmp(fa, lb, a) == 0);
        CHECK(stats_of(f).items < 3000 && stats_of(f).items > 0);
        free(fa), free(lb), free(bytes), free(ranged);
        cf_free(f), cf_free(d), cf_free(l), cf_free(m), cf_free(p);
    }
    unlink(path);
}

/* Damaged images are refused with the status of what is wrong. */
static void test_damaged_images(void) {
    cf_filter *f = make(200, 12, 4, 100, 4);
    for (uint64_t k = 0; k < 150; k++) REQUIRE(cf_insert_u64(f, k) == CF_OK);
    size_t n;
    uint8_t *good = test_serialize(f, &n);
    uint8_t *p = malloc(n + 1);
    REQUIRE(p != NULL);
    cf_filter *g = NULL;
    /* Fields, with the header check and the trailer made right again. */
    static const struct {
        size_t at;
        uint8_t value;
        cf_status want;
    } fields[] = {
        {10, 13, CF_E_CORRUPT},   /* a width the rule gives 3-bit stamps (in buckets of 4) */
        {10, 14, CF_E_TRUNCATED}, /* a wider fingerprint: a larger table than the input */
        {10, 0, CF_E_CORRUPT},    /* no fingerprint */
        {11, 3, CF_E_CORRUPT},    /* bucket size 3 */
        {12, 3, CF_E_CORRUPT},    /* a stamp width the rule does not give 12 bits */
        {13, 1, CF_E_CORRUPT},    /* partner map 1 */
        {14, 1, CF_E_CORRUPT},    /* a flag */
        {32, 149, CF_E_CORRUPT},  /* items off by one */
        {60, 14, CF_E_CORRUPT},   /* k not min(2^s - 1, expire_after) */
        {72, 6, CF_E_CORRUPT},    /* span not ceil(expire_after / k) */
        {64, 0, CF_E_CORRUPT},    /* expire_after 0 (low byte of 100) */
        {100, 1, CF_E_CORRUPT},   /* a reserved byte */
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        memcpy(p, good, n);
        p[fields[i].at] = fields[i].value;
        uint32_t check = (uint32_t)XXH3_64bits(p, 124);
        for (int j = 0; j < 4; j++) p[124 + j] = (uint8_t)(check >> (8 * j));
        uint64_t sum = XXH3_64bits(p, n - 8);
        for (int j = 0; j < 8; j++) p[n - 8 + j] = (uint8_t)(sum >> (8 * j));
        cf_status s = cf_deserialize(p, n, NULL, &g);
        if (s != fields[i].want)
            fprintf(stderr, "byte %zu = %u: %s\n", fields[i].at, fields[i].value,
                    cf_status_name(s));
        CHECK_STATUS(s, fields[i].want);
        CHECK(g == NULL);
    }
    memcpy(p, good, n);
    p[16] ^= 1; /* buckets, header check kept */
    CHECK_STATUS(cf_deserialize(p, n, NULL, &g), CF_E_CHECKSUM);
    memcpy(p, good, n);
    p[200] ^= 1; /* the table, trailer kept */
    CHECK_STATUS(cf_deserialize(p, n, NULL, &g), CF_E_CHECKSUM);
    CHECK_STATUS(cf_deserialize(good, 127, NULL, &g), CF_E_TRUNCATED);
    CHECK_STATUS(cf_deserialize(good, n - 1, NULL, &g), CF_E_TRUNCATED);
    memcpy(p, good, n);
    p[n] = 0;
    CHECK_STATUS(cf_deserialize(p, n + 1, NULL, &g), CF_E_CORRUPT);
    /* A slot whose stamp is older than a window: a table no filter writes
     * (expire_after 5 makes k = 5 of 15 stamp values). */
    cf_filter *s5 = make(50, 12, 4, 5, 4);
    REQUIRE(cf_set_time(s5, 10) == CF_OK);
    REQUIRE(cf_insert_u64(s5, 1) == CF_OK);
    size_t n5;
    uint8_t *b5 = test_serialize(s5, &n5);
    int slot = -1;
    for (size_t at = 128; at + 1 < n5 - 8 && slot < 0; at++)
        if (b5[at] || b5[at + 1]) slot = (int)at;
    REQUIRE(slot >= 0);
    CHECK_STATUS(cf_deserialize(b5, n5, NULL, &g), CF_OK);
    cf_free(g);
    b5[80] = 40; /* now 40: the stamp of tick 10 is 30 ticks old */
    uint32_t check = (uint32_t)XXH3_64bits(b5, 124);
    for (int j = 0; j < 4; j++) b5[124 + j] = (uint8_t)(check >> (8 * j));
    uint64_t sum = XXH3_64bits(b5, n5 - 8);
    for (int j = 0; j < 8; j++) b5[n5 - 8 + j] = (uint8_t)(sum >> (8 * j));
    g = NULL;
    CHECK_STATUS(cf_deserialize(b5, n5, NULL, &g), CF_E_CORRUPT);
    free(b5), free(p), free(good);
    cf_free(s5), cf_free(f);
}

/* Merging: two parts written at the same times answer as one filter of
 * both; differing clocks or windows are refused. */
static void test_merge(void) {
    cf_filter *a = make(4000, 12, 4, 100, 8), *b = make(4000, 12, 4, 100, 8),
              *both = make(4000, 12, 4, 100, 8);
    for (uint64_t k = 0; k < 3000; k++) {
        uint64_t t = k / 30;
        REQUIRE(cf_set_time(a, t) == CF_OK && cf_set_time(b, t) == CF_OK &&
                cf_set_time(both, t) == CF_OK);
        REQUIRE(cf_insert_u64(k % 2 ? a : b, k) == CF_OK);
        REQUIRE(cf_insert_u64(both, k) == CF_OK);
    }
    CHECK_STATUS(cf_merge(a, b), CF_OK);
    for (uint64_t t = 100; t <= 250; t += 10) {
        REQUIRE(cf_set_time(a, t) == CF_OK && cf_set_time(both, t) == CF_OK);
        CHECK_EQ(stats_of(a).items, stats_of(both).items);
        for (uint64_t k = 0; k < 3000; k++)
            if (k / 30 + 100 > t) CHECK(cf_contains_u64(a, k));
    }
    cf_filter *later = make(4000, 12, 4, 100, 8);
    REQUIRE(cf_set_time(later, 300) == CF_OK);
    CHECK_STATUS(cf_merge(later, b), CF_E_PARAM); /* b's clock is at 99 */
    cf_filter *other = make(4000, 12, 4, 200, 8);
    CHECK_STATUS(cf_merge(other, both), CF_E_PARAM);
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 4000;
    cf_filter *plain;
    REQUIRE(cf_new(&cfg, &plain) == CF_OK);
    CHECK_STATUS(cf_merge(plain, a), CF_E_PARAM);
    cf_free(a), cf_free(b), cf_free(both), cf_free(later), cf_free(other), cf_free(plain);
}

/* Every allocation of a workload (create, deep evictions, merge, load)
 * fails in turn: CF_E_NOMEM, nothing leaked, the filter unchanged. */
static cf_status alloc_workload(test_counting *c, const char *path) {
    cf_allocator a = {test_counting_alloc, test_counting_free, c, NULL, NULL};
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 200;
    cfg.expire_after = 50;
    cfg.max_kicks = 500; /* searches beyond the stack allocate scratch */
    cfg.allocator = &a;
    cf_filter *f, *g;
    CF__FORWARD_IF_ERROR(cf_new(&cfg, &f));
    cf_status s = cf_new(&cfg, &g);
    if (s != CF_OK) {
        cf_free(f);
        return s;
    }
    for (uint64_t k = 0; k < 250 && s == CF_OK; k++) {
        s = cf_insert_u64(f, k);
        if (s == CF_E_FULL) s = CF_OK;
    }
    if (s == CF_OK) {
        cf_insert_u64(g, 123456789);
        s = cf_merge(g, f);
        if (s == CF_E_FULL) s = CF_OK;
    }
    if (s == CF_OK) s = cf_save(f, path);
    if (s == CF_OK) {
        cf_filter *l;
        s = cf_load(path, &a, &l);
        if (s == CF_OK) cf_free(l);
    }
    cf_free(f);
    cf_free(g);
    return s;
}

static void test_allocation_failures(void) {
    char path[] = "/tmp/cf_expiring_alloc_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    test_counting probe = {0, -1, 0};
    CHECK_STATUS(alloc_workload(&probe, path), CF_OK);
    CHECK_EQ(probe.live, 0);
    CHECK(probe.calls > 6);
    for (long n = 1; n <= probe.calls; n++) {
        test_counting c = {0, n, 0};
        CHECK_STATUS(alloc_workload(&c, path), CF_E_NOMEM);
        CHECK_EQ(c.live, 0);
    }
    unlink(path);
}

/* cf_config_resolve describes the filter cf_new makes. */
static void test_resolve(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 100000;
    cfg.expire_after = 86400;
    cf_shape sh;
    CHECK_STATUS(cf_config_resolve(&cfg, &sh), CF_OK);
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    cf_stats st = stats_of(f);
    CHECK_EQ(sh.num_buckets, st.num_buckets);
    CHECK_EQ(sh.fingerprint_bits, st.fingerprint_bits);
    CHECK_EQ(sh.bits_per_slot, st.bits_per_slot);
    CHECK_EQ(sh.table_bytes, st.table_bytes);
    CHECK_EQ(sh.serialized_size, cf_serialized_size(f));
    /* The same width as a plain filter of the same target. */
    cf_config plain = cfg;
    plain.expire_after = 0;
    cf_shape ps;
    REQUIRE(cf_config_resolve(&plain, &ps) == CF_OK);
    CHECK_EQ(ps.fingerprint_bits, sh.fingerprint_bits);
    CHECK((double)sh.bits_per_slot <= 1.35 * ps.bits_per_slot);
    cf_free(f);
}

/* ---- golden files: tests/data/expiring/{good,bad} ----
 * Regenerated from their recipes and compared byte for byte with the
 * committed files (a change to hashing, stamps or the format that alters a
 * byte fails here); CF_WRITE_GOLDEN=1 rewrites them (run from tests/). */

typedef struct golden_recipe {
    const char *name;
    unsigned fbits, b;
    uint64_t capacity, expire_after, seed;
    unsigned keys; /* "key-i" written at time i * step */
    uint64_t step; /* then the clock set to `end` */
    uint64_t end;
    unsigned dups, deletes; /* "dup" x dups at the end; keys deleted from the newest down */
} golden_recipe;

static const golden_recipe golden_goods[] = {
    /* The default width (13 bits, 4-bit stamps: 68-bit buckets), a day in
     * seconds: the first keys have expired at the end. */
    {"expiring_f13_b4_e86400.cf", 0, 4, 1000, 86400, 41, 1000, 100, 120000, 3, 10},
    /* 8-bit fingerprints with 2-bit stamps in buckets of two, a window of
     * 5: k = 3 stamps of 2 time units. */
    {"expiring_f8_b2_e5.cf", 8, 2, 300, 5, 42, 300, 1, 300, 2, 5},
    /* 16-bit fingerprints in buckets of eight (160 bits: slot by slot). */
    {"expiring_f16_b8_e1000.cf", 16, 8, 500, 1000, 43, 600, 3, 2000, 1, 0},
    {"expiring_empty.cf", 12, 4, 100, 60, 44, 0, 1, 0, 0, 0},
};

static cf_filter *golden_build(const golden_recipe *r) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = r->capacity;
    cfg.fingerprint_bits = r->fbits;
    cfg.bucket_size = r->b;
    cfg.expire_after = r->expire_after;
    cfg.seed = r->seed;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    char key[32];
    for (unsigned i = 0; i < r->keys; i++) {
        REQUIRE(cf_set_time(f, i * r->step) == CF_OK);
        int n = snprintf(key, sizeof key, "key-%u", i);
        REQUIRE(cf_insert(f, key, (size_t)n) == CF_OK);
    }
    REQUIRE(cf_set_time(f, r->end) == CF_OK);
    for (unsigned i = 0; i < r->dups; i++) REQUIRE(cf_insert(f, "dup", 3) == CF_OK);
    for (unsigned i = 0; i < r->deletes; i++) {
        int n = snprintf(key, sizeof key, "key-%u", r->keys - 1 - i);
        REQUIRE(cf_delete(f, key, (size_t)n) == CF_OK);
    }
    return f;
}

/* Made from good/expiring_f8_b2_e5.cf (2-bit stamps, k = 3 stamps of a
 * span of 2; a stamp older than k is test_damaged_images' case). */
static const golden_bad golden_bads_list[] = {
    {"truncated_at_64.bin", CF_E_TRUNCATED, "cut inside the header", 64, 0, 0, false, false},
    {"truncated_in_table.bin", CF_E_TRUNCATED, "cut inside the table", 300, 0, 0, false, false},
    {"trailing_byte.bin", CF_E_CORRUPT, "one byte after the trailer", 0, 0, 0, false, true},
    {"header_check_flip.bin", CF_E_CHECKSUM, "seed changed, header check kept", 0, 24, 0x55, false,
     false},
    {"table_flip.bin", CF_E_CHECKSUM, "a table byte changed, trailer kept", 0, 140, 0x55, false,
     false},
    {"stamp_bits_3.bin", CF_E_CORRUPT, "3-bit stamps beside 8-bit fingerprints", 0, 12, 3, true,
     false},
    {"stamps_2.bin", CF_E_CORRUPT, "k = 2, not min(3, 5)", 0, 60, 2, true, false},
    {"span_3.bin", CF_E_CORRUPT, "span 3, not ceil(5 / 3)", 0, 72, 3, true, false},
    {"expire_0.bin", CF_E_CORRUPT, "expire_after 0", 0, 64, 0, true, false},
    {"hash_id_1.bin", CF_E_CORRUPT, "partner map 1", 0, 13, 1, true, false},
    {"flags_set.bin", CF_E_CORRUPT, "flags nonzero", 0, 14, 1, true, false},
    {"reserved_set.bin", CF_E_CORRUPT, "a reserved byte nonzero", 0, 100, 1, true, false},
    {"items_off.bin", CF_E_CORRUPT, "items not the slots in use", 0, 32, 0, true, false},
    {"version_5.bin", CF_E_VERSION, "version 5 (unused)", 0, 8, 5, false, false},
};

static void test_golden(void) {
    bool write = getenv("CF_WRITE_GOLDEN") != NULL;
    char key[32];
    uint8_t *small = NULL;
    size_t nsmall = 0;
    for (size_t i = 0; i < sizeof golden_goods / sizeof golden_goods[0]; i++) {
        const golden_recipe *r = &golden_goods[i];
        cf_filter *f = golden_build(r);
        size_t n;
        uint8_t *made = test_serialize(f, &n);
        size_t dn;
        cf_filter *d, *l, *m;
        uint8_t *disk =
            golden_check_good("data/expiring/good", r->name, made, n, write, &dn, &d, &l, &m);
        for (unsigned k = 0; k + r->deletes < r->keys; k++) {
            int kn = snprintf(key, sizeof key, "key-%u", k);
            if (k * r->step + r->expire_after > r->end) /* still in its window */
                CHECK(cf_contains(d, key, (size_t)kn) && cf_contains(m, key, (size_t)kn));
        }
        CHECK_EQ(cf_count(l, "dup", 3) >= r->dups, 1);
        if (i == 1) {
            small = disk;
            nsmall = dn;
        } else {
            free(disk);
        }
        free(made);
        cf_free(f), cf_free(d), cf_free(l), cf_free(m);
    }
    REQUIRE(small != NULL);
    const golden_bads bad = GOLDEN_BADS("data/expiring/bad",
                                        "good/expiring_f8_b2_e5.cf by "
                                        "tests/test_expiring.c",
                                        golden_bads_list, 24, NULL);
    golden_check_bads(&bad, small, nsmall, write);
    free(small);
}

/* A reader written from docs/FORMAT.md ("Expiring filters") alone, bit by
 * bit, answering as the library does on the golden files. */
static uint64_t spec_le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint64_t spec_bits(const uint8_t *table, uint64_t bit, unsigned n) {
    uint64_t v = 0;
    for (unsigned b = 0; b < n; b++)
        v |= (uint64_t)((table[(bit + b) / 8] >> ((bit + b) % 8)) & 1) << b;
    return v;
}

/* Out of line: inlined into a caller with a fixed-size key buffer, gcc 12
 * warns about XXH3's paths for lengths the buffer cannot have. */
__attribute__((noinline)) static uint64_t spec_hash(const void *key, size_t len, uint64_t seed) {
    return XXH3_64bits_withSeed(key, len, seed);
}

static bool spec_contains(const uint8_t *file, const void *key, size_t len) {
    unsigned f = file[10], b = file[11], s = file[12], w = f + s;
    uint64_t nb = spec_le(file + 16, 8), seed = spec_le(file + 24, 8);
    const uint8_t *table = file + 128;
    uint64_t h = spec_hash(key, len, seed), fmask = (1ull << f) - 1;
    uint64_t fp = (((h & 0xffffffffu) * fmask) >> 32) + 1;
    uint64_t i1 = (uint64_t)(((unsigned __int128)h * nb) >> 64);
    uint64_t m = fp * 0x9e3779b97f4a7c15ull;
    m ^= m >> 29;
    uint64_t c = (uint64_t)(((unsigned __int128)(m * 0x9e3779b97f4a7c15ull) * nb) >> 64);
    uint64_t i2 = c >= i1 ? c - i1 : c + (nb - i1);
    for (unsigned slot = 0; slot < b; slot++) {
        if ((spec_bits(table, (i1 * b + slot) * w, w) & fmask) == fp) return true;
        if ((spec_bits(table, (i2 * b + slot) * w, w) & fmask) == fp) return true;
    }
    return false;
}

static void test_spec_reader(void) {
    char path[256], key[32];
    for (size_t i = 0; i < sizeof golden_goods / sizeof golden_goods[0]; i++) {
        snprintf(path, sizeof path, "data/expiring/good/%s", golden_goods[i].name);
        size_t n;
        uint8_t *disk = golden_read(path, &n);
        REQUIRE(disk != NULL);
        cf_filter *f;
        REQUIRE(cf_deserialize(disk, n, NULL, &f) == CF_OK);
        size_t agree = 0, tried = 0, found = 0;
        for (unsigned k = 0; k < golden_goods[i].keys + 5000; k++) {
            int kn =
                snprintf(key, sizeof key, k < golden_goods[i].keys ? "key-%u" : "absent-%u", k);
            bool lib = cf_contains(f, key, (size_t)kn);
            agree += spec_contains(disk, key, (size_t)kn) == lib;
            found += lib;
            tried++;
        }
        CHECK_EQ(agree, tried);
        CHECK(golden_goods[i].keys == 0 || found > 0);
        free(disk);
        cf_free(f);
    }
}

TEST_MAIN(TEST(test_stamp_widths), TEST(test_refusals), TEST(test_edges),
          TEST(test_window_across_shapes), TEST(test_stream_never_full), TEST(test_small_streams),
          TEST(test_refresh_and_copies), TEST(test_delete_takes_the_oldest),
          TEST(test_batches_and_determinism), TEST(test_files_round_trip),
          TEST(test_damaged_images), TEST(test_merge), TEST(test_allocation_failures),
          TEST(test_resolve), TEST(test_golden), TEST(test_spec_reader))
