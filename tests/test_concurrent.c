/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_concurrent.c -- CF_CONCURRENT filters under many threads.
 *
 * One thread first: a concurrent filter must make exactly the plain
 * filter's choices (same answers, same bytes), so the plain filter is its
 * model.  Then threads, more of them than cores so that preemption lands at
 * the worst moments: writers churn their own keys at 90-95% load (evictions
 * all the time) while readers look up a stable set that must always be
 * found and a thread takes snapshots that must each be a valid filter;
 * threads race cf_insert_unique on the same keys; and at the end an exact
 * check of every key, the counters and each stripe's item count.
 *
 * Threads count their failures in atomics; the main thread checks them.
 * CF_STRESS_SCALE=N in the environment runs the stress N times longer (the
 * suite runs N = 1, a few seconds): e.g. CF_STRESS_SCALE=50 for a long run.
 */
#define _POSIX_C_SOURCE 200809L

#include "test.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "kind/concurrent.h"

static unsigned scale(void) {
    const char *s = getenv("CF_STRESS_SCALE");
    long n = s != NULL ? strtol(s, NULL, 10) : 1;
    return n < 1 ? 1 : (unsigned)n;
}

/* Eviction budget of the filters made: small where full tables are searched
 * over and over (ThreadSanitizer makes each read slow), else the default. */
static unsigned max_kicks;

static cf_filter *make(unsigned f, unsigned b, uint64_t nb, unsigned flags, uint64_t seed) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.max_kicks = max_kicks;
    cfg.fingerprint_bits = f;
    cfg.bucket_size = b;
    cfg.num_buckets = nb;
    cfg.flags = flags;
    cfg.seed = seed;
    cf_filter *out = NULL;
    REQUIRE(cf_new(&cfg, &out) == CF_OK);
    return out;
}

static void test_flags(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 1000;
    cf_filter *f = NULL;
    cfg.flags = CF_CONCURRENT | CF_SEMI_SORT;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    CHECK(f == NULL);
    cfg.flags = CF_CONCURRENT | 0x100u;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM);
    cfg.flags = CF_CONCURRENT;
    cfg.bucket_size = 3;
    CHECK_STATUS(cf_new(&cfg, &f), CF_E_PARAM); /* the plain checks still apply */
    cfg.bucket_size = 4;
    CHECK_STATUS(cf_new(&cfg, &f), CF_OK);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_EQ(st.flags, CF_CONCURRENT);
    CHECK_EQ(st.memory_bytes, cf_memory_usage(f));
    cf_free(f);
}

/* Stripes cost at most 1% of the table (plus their fixed header). */
static void test_memory_overhead(void) {
    const uint64_t sizes[] = {1, 100, 10000, 1u << 20, 50u << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        cf_filter *plain = make(12, 4, sizes[i], 0, 1);
        cf_filter *conc = make(12, 4, sizes[i], CF_CONCURRENT, 1);
        cf_stats st;
        cf_get_stats(plain, &st);
        size_t extra = cf_memory_usage(conc) - cf_memory_usage(plain);
        size_t per = sizeof(cf__stripe) + sizeof(uint32_t);
        size_t stripes = (extra - sizeof(struct cf__concurrent)) / per;
        CHECK_EQ(sizeof(struct cf__concurrent) + stripes * per, extra);
        CHECK_GE(stripes, 1);
        CHECK_LE(stripes, CF__CONCURRENT_MAX_STRIPES);
        if (stripes > 1) CHECK_LE(stripes * per, st.table_bytes / 100);
        if (sizes[i] >= (50u << 20)) CHECK_LT(CF__CONCURRENT_MAX_STRIPES, 2 * stripes);
        cf_free(plain);
        cf_free(conc);
    }
}

/* An allocator that fails once `budget` allocations have been made. */
static long budget;
static void *budget_alloc(void *ctx, size_t n) {
    (void)ctx;
    return budget-- > 0 ? malloc(n) : NULL;
}
static void budget_free(void *ctx, void *p) {
    (void)ctx;
    free(p);
}

/* Every allocation of a concurrent filter fails cleanly (ASan checks for
 * leaks), and a large eviction budget's per-search scratch too. */
static void test_out_of_memory(void) {
    cf_allocator a = {budget_alloc, budget_free, NULL, NULL, NULL};
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.num_buckets = 64;
    cfg.flags = CF_CONCURRENT;
    cfg.max_kicks = 2000; /* beyond the stack's nodes */
    cfg.allocator = &a;
    cf_filter *f = NULL;
    long need = 0;
    for (;; need++) {
        budget = need;
        cf_status st = cf_new(&cfg, &f);
        CHECK(st == CF_OK || (st == CF_E_NOMEM && f == NULL));
        if (st != CF_E_NOMEM) break;
    }
    CHECK_EQ(need, 3); /* handle, table, stripes */
    REQUIRE(f != NULL);
    budget = 1000000;
    uint64_t k = 0;
    while (cf_insert(f, &k, sizeof k) == CF_OK) k++;
    /* Full: the next inserts search, each with its own scratch. */
    uint8_t *before = malloc(f->t.table_bytes);
    REQUIRE(before != NULL);
    memcpy(before, f->t.table, f->t.table_bytes);
    budget = 0;
    CHECK_STATUS(cf_insert(f, &k, sizeof k), CF_E_NOMEM);
    CHECK(memcmp(before, f->t.table, f->t.table_bytes) == 0);
    budget = 1000000;
    CHECK_STATUS(cf_insert(f, &k, sizeof k), CF_E_FULL);
    free(before);
    cf_free(f);
}

/* Layouts: SWAR buckets at bit offsets, byte-aligned ones, words shared by
 * several buckets (b = 2, f = 7), buckets of 58-63 bits (searched as one
 * word here, slot by slot by the plain filter), and buckets wider than 64
 * bits. */
typedef struct shape {
    unsigned f, b;
    uint64_t nb;
} shape;
static const shape shapes[] = {{12, 4, 1001}, {8, 4, 777},  {7, 2, 1500}, {15, 4, 700},
                               {29, 2, 900},  {12, 8, 333}, {20, 4, 501}, {4, 1, 3000},
                               {32, 2, 999},  {16, 8, 1}};

/* Random operations on a plain and a concurrent filter: same answers, and
 * the same bytes at the end (and after each failed insert, unchanged);
 * then again with both tables balanced (cf__table.balance, as SWAR tables
 * past 32 MiB are: inserts fill the emptier bucket). */
static void test_one_thread_matches_plain(void) {
    max_kicks = 40;
    for (size_t i = 0; i < 2 * sizeof shapes / sizeof shapes[0]; i++) {
        bool balanced = i >= sizeof shapes / sizeof shapes[0];
        shape sh = shapes[i % (sizeof shapes / sizeof shapes[0])];
        cf_filter *p = make(sh.f, sh.b, sh.nb, 0, 7 + i);
        cf_filter *c = make(sh.f, sh.b, sh.nb, CF_CONCURRENT, 7 + i);
        p->t.balance = c->t.balance = balanced && p->t.swar; /* as table.c sets it */
        uint64_t rng = 42 + i, universe = sh.nb * sh.b * 2, full = 0;
        uint8_t *before = malloc(c->t.table_bytes);
        REQUIRE(before != NULL);
        for (int op = 0; op < 8000; op++) {
            uint64_t k = test_rand(&rng) % universe, h = cf_hash(p, &k, sizeof k);
            switch (test_rand(&rng) % 8) {
            case 0:
            case 1:
            case 2: {
                memcpy(before, c->t.table, c->t.table_bytes);
                cf_status a = cf_insert(p, &k, sizeof k), b = cf_insert(c, &k, sizeof k);
                CHECK_STATUS(b, a);
                if (b == CF_E_FULL) {
                    CHECK(memcmp(before, c->t.table, c->t.table_bytes) == 0);
                    full++;
                }
                break;
            }
            case 3: CHECK_STATUS(cf_insert_unique_hash(c, h), cf_insert_unique_hash(p, h)); break;
            case 4: CHECK_STATUS(cf_delete(c, &k, sizeof k), cf_delete(p, &k, sizeof k)); break;
            case 5: CHECK_EQ(cf_count_hash(c, h), cf_count_hash(p, h)); break;
            case 6: {
                uint64_t hs[20];
                bool a[20], b[20];
                for (int j = 0; j < 20; j++) hs[j] = test_rand(&rng);
                CHECK_EQ(cf_contains_batch(c, hs, 20, b), cf_contains_batch(p, hs, 20, a));
                CHECK(memcmp(a, b, sizeof a) == 0);
                size_t ia, ib;
                CHECK_STATUS(cf_insert_batch(c, hs, 3, &ib), cf_insert_batch(p, hs, 3, &ia));
                CHECK_EQ(ib, ia);
                break;
            }
            default: CHECK_EQ(cf_contains(c, &k, sizeof k), cf_contains(p, &k, sizeof k)); break;
            }
        }
        if (sh.nb > 1) CHECK_GE(full, 1); /* the workload reached a full table */
        size_t np, nc;
        uint8_t *bp = test_serialize(p, &np), *bc = test_serialize(c, &nc);
        CHECK(np == nc && memcmp(bp, bc, np) == 0);
        cf_stats sp, sc;
        cf_get_stats(p, &sp);
        cf_get_stats(c, &sc);
        CHECK_EQ(sc.items, sp.items);
        CHECK_EQ(sc.total_kicks, sp.total_kicks);
        CHECK_EQ(sc.failed_inserts, sp.failed_inserts);
        if (sh.nb > 1) CHECK_GE(sc.total_kicks, 1);
        /* The file is a plain filter. */
        cf_filter *back = NULL;
        CHECK_STATUS(cf_deserialize(bc, nc, NULL, &back), CF_OK);
        cf_stats sb;
        cf_get_stats(back, &sb);
        CHECK_EQ(sb.flags, 0);
        CHECK_EQ(sb.items, sc.items);
        cf_free(back);
        free(bp);
        free(bc);
        CHECK_STATUS(cf_clear(c), CF_OK);
        CHECK_STATUS(cf_clear(p), CF_OK);
        bp = test_serialize(p, &np);
        bc = test_serialize(c, &nc);
        CHECK(np == nc && memcmp(bp, bc, np) == 0);
        free(bp);
        free(bc);
        free(before);
        cf_free(p);
        cf_free(c);
    }
    max_kicks = 0;
}

/* ---- threads ---- */

enum { WRITERS = 3, READERS = 3 };

typedef struct stress {
    cf_filter *f;
    uint64_t stable;     /* keys [0, stable) are inserted first, never deleted */
    uint64_t per_writer; /* writer w owns keys [base_w, base_w + per_writer)   */
    uint64_t ops;        /* delete + insert rounds per writer                  */
    _Atomic int writers_left;
    _Atomic uint64_t misses; /* stable keys not found: must stay 0                 */
    _Atomic uint64_t lookups;
    _Atomic uint64_t snapshots;
    _Atomic uint64_t bad_snapshots;
    _Atomic uint64_t writer_errors;
    bool *present; /* per owned key: inserted by its writer (own thread) */
} stress;

typedef struct worker {
    stress *s;
    unsigned id;
} worker;

static uint64_t writer_base(const stress *s, unsigned w) {
    return s->stable + (uint64_t)w * s->per_writer;
}

/* Fills its share, then deletes and re-inserts its own keys at random. */
static void *writer_main(void *arg) {
    worker *w = arg;
    stress *s = w->s;
    uint64_t base = writer_base(s, w->id), rng = 1000 + w->id;
    bool *present = s->present + (base - s->stable);
    for (uint64_t k = 0; k < s->per_writer; k++) {
        uint64_t key = base + k;
        present[k] = cf_insert(s->f, &key, sizeof key) == CF_OK;
    }
    for (uint64_t op = 0; op < s->ops; op++) {
        uint64_t k = test_rand(&rng) % s->per_writer, key = base + k;
        if (present[k]) {
            if (cf_delete(s->f, &key, sizeof key) != CF_OK) atomic_fetch_add(&s->writer_errors, 1);
            present[k] = false;
        } else {
            cf_status st = op % 2 ? cf_insert(s->f, &key, sizeof key)
                                  : cf_insert_unique(s->f, &key, sizeof key);
            present[k] = st == CF_OK;
            if (st != CF_OK && st != CF_E_FULL && st != CF_E_EXISTS)
                atomic_fetch_add(&s->writer_errors, 1);
            if (st == CF_E_EXISTS) { /* a false positive: insert a copy anyway */
                present[k] = cf_insert(s->f, &key, sizeof key) == CF_OK;
            }
        }
        if (present[k] && !cf_contains(s->f, &key, sizeof key))
            atomic_fetch_add(&s->writer_errors, 1);
    }
    atomic_fetch_sub(&s->writers_left, 1);
    return NULL;
}

/* Looks up the stable keys, by key, by hash, by count and in batches,
 * until the writers are done (and at least once). */
static void *reader_main(void *arg) {
    worker *w = arg;
    stress *s = w->s;
    uint64_t misses = 0, lookups = 0;
    uint64_t hashes[64];
    bool out[64];
    do {
        for (uint64_t k = w->id; k < s->stable; k += READERS) {
            switch (k % 4) {
            case 0: misses += !cf_contains(s->f, &k, sizeof k); break;
            case 1: misses += !cf_contains_hash(s->f, cf_hash(s->f, &k, sizeof k)); break;
            case 2: misses += cf_count(s->f, &k, sizeof k) == 0; break;
            default: {
                size_t n = 0;
                for (uint64_t j = k; j < s->stable && n < 64; j += 1 + (j % 5), n++)
                    hashes[n] = cf_hash(s->f, &j, sizeof j);
                misses += n - cf_contains_batch(s->f, hashes, n, out);
                lookups += n - 1;
            }
            }
            lookups++;
        }
    } while (atomic_load(&s->writers_left) > 0);
    atomic_fetch_add(&s->misses, misses);
    atomic_fetch_add(&s->lookups, lookups);
    return NULL;
}

/* Each snapshot must be a valid filter (its item count matches its slots,
 * which cf_deserialize checks) holding every stable key, and stats must
 * agree with some cut. */
static void *snapshot_main(void *arg) {
    worker *w = arg;
    stress *s = w->s;
    size_t n = cf_serialized_size(s->f);
    uint8_t *buf = malloc(n);
    do {
        bool bad = buf == NULL || cf_serialize(s->f, buf, n, NULL) != CF_OK;
        cf_filter *g = NULL;
        bad = bad || cf_deserialize(buf, n, NULL, &g) != CF_OK;
        for (uint64_t k = 0; !bad && k < s->stable; k++) bad = !cf_contains(g, &k, sizeof k);
        cf_stats st;
        cf_get_stats(s->f, &st);
        bad = bad || st.items < s->stable || st.items > st.slots;
        cf_free(g);
        atomic_fetch_add(&s->bad_snapshots, bad);
        atomic_fetch_add(&s->snapshots, 1);
    } while (atomic_load(&s->writers_left) > 0);
    free(buf);
    return NULL;
}

/* Occupied slots of each stripe's buckets, counted, against its counter. */
static uint64_t stripes_off(const cf_filter *f) {
    uint64_t off = 0;
    const struct cf__concurrent *cc = cf__concurrent_of(f);
    for (uint64_t i = 0; i < cc->nstripes; i++) {
        uint64_t n = 0, first = i << cc->shift, end = (i + 1) << cc->shift;
        for (uint64_t bkt = first; bkt < end && bkt < f->t.num_buckets; bkt++)
            for (unsigned sl = 0; sl < f->t.bucket_size; sl++) {
                uint64_t bit = (bkt * f->t.bucket_size + sl) * f->t.fp_bits;
                n += ((cf__load64le(f->t.table + bit / 8) >> (bit % 8)) & f->t.fp_mask) != 0;
            }
        off += n != cc->stripes[i].items;
    }
    return off;
}

static void run_stress(shape sh, double stable_load, double writer_load) {
    stress s = {0};
    s.f = make(sh.f, sh.b, sh.nb, CF_CONCURRENT, 99);
    uint64_t slots = sh.nb * sh.b;
    s.stable = (uint64_t)(slots * stable_load);
    s.per_writer = (uint64_t)(slots * writer_load) / WRITERS;
    s.ops = 5000ull * scale();
    s.present = calloc(WRITERS * s.per_writer, 1);
    REQUIRE(s.present != NULL);
    for (uint64_t k = 0; k < s.stable; k++) REQUIRE(cf_insert(s.f, &k, sizeof k) == CF_OK);
    atomic_store(&s.writers_left, WRITERS);

    pthread_t th[WRITERS + READERS + 1];
    worker wk[WRITERS + READERS + 1];
    for (unsigned i = 0; i < WRITERS + READERS + 1; i++) {
        wk[i] = (worker){&s, i < WRITERS ? i : i - WRITERS};
        void *(*fn)(void *) = i < WRITERS             ? writer_main
                              : i < WRITERS + READERS ? reader_main
                                                      : snapshot_main;
        REQUIRE(pthread_create(&th[i], NULL, fn, &wk[i]) == 0);
    }
    for (unsigned i = 0; i < WRITERS + READERS + 1; i++) pthread_join(th[i], NULL);

    CHECK_EQ(atomic_load(&s.misses), 0);
    CHECK_EQ(atomic_load(&s.writer_errors), 0);
    CHECK_EQ(atomic_load(&s.bad_snapshots), 0);
    CHECK_GE(atomic_load(&s.snapshots), 1);
    CHECK_GE(atomic_load(&s.lookups), s.stable);

    /* The exact check, now that everyone is quiet. */
    uint64_t live = 0, missing = 0;
    for (uint64_t k = 0; k < s.stable; k++) missing += !cf_contains(s.f, &k, sizeof k);
    for (uint64_t j = 0; j < WRITERS * s.per_writer; j++) {
        uint64_t key = s.stable + j;
        live += s.present[j];
        missing += s.present[j] && !cf_contains(s.f, &key, sizeof key);
    }
    CHECK_EQ(missing, 0);
    cf_stats st;
    cf_get_stats(s.f, &st);
    CHECK_EQ(st.items, s.stable + live);
    CHECK_GE(st.load_factor, 0.85); /* the churn ran near full ... */
    CHECK_GE(st.total_kicks, 100);  /* ... so evictions moved items */
    CHECK_EQ(stripes_off(s.f), 0);
    size_t n;
    uint8_t *buf = test_serialize(s.f, &n);
    cf_filter *g = NULL;
    CHECK_STATUS(cf_deserialize(buf, n, NULL, &g), CF_OK);
    cf_free(g);
    free(buf);
    /* Every writer's keys deleted: only the stable set remains. */
    for (uint64_t j = 0; j < WRITERS * s.per_writer; j++) {
        uint64_t key = s.stable + j;
        if (s.present[j]) CHECK_STATUS(cf_delete(s.f, &key, sizeof key), CF_OK);
    }
    cf_get_stats(s.f, &st);
    CHECK_EQ(st.items, s.stable);
    printf("  f=%u b=%u nb=%llu stripes=%llu: %llu lookups, %llu snapshots, %llu kicks\n", sh.f,
           sh.b, (unsigned long long)sh.nb, (unsigned long long)cf__concurrent_of(s.f)->nstripes,
           (unsigned long long)atomic_load(&s.lookups),
           (unsigned long long)atomic_load(&s.snapshots), (unsigned long long)st.total_kicks);
    free(s.present);
    cf_free(s.f);
}

static void test_stress(void) {
    /* Few stripes (heavy lock traffic), words shared by several buckets,
     * many stripes, and buckets wider than a word. */
    run_stress((shape){12, 4, 4096}, 0.5, 0.43);
    run_stress((shape){7, 2, 8000}, 0.45, 0.38);
    run_stress((shape){12, 4, 16384}, 0.5, 0.44);
    run_stress((shape){12, 8, 3000}, 0.5, 0.45);
}

/* ---- cf_insert_unique races ---- */

enum { UNIQUE_THREADS = 6 };

typedef struct unique_race {
    cf_filter *f;
    uint64_t keys;
    _Atomic uint32_t *ok;   /* per key: CF_OK answers */
    _Atomic uint64_t other; /* answers other than CF_OK / CF_E_EXISTS */
} unique_race;

static void *unique_main(void *arg) {
    worker *w = arg;
    unique_race *u = (unique_race *)(void *)w->s;
    /* Every thread walks all keys, from a different start and stride. */
    uint64_t stride = 2 * w->id + 1;
    while (u->keys % stride == 0) stride += 2;
    for (uint64_t i = 0; i < u->keys; i++) {
        uint64_t k = (w->id * 7919 + i * stride) % u->keys;
        cf_status st = cf_insert_unique(u->f, &k, sizeof k);
        if (st == CF_OK)
            atomic_fetch_add(&u->ok[k], 1);
        else if (st != CF_E_EXISTS)
            atomic_fetch_add(&u->other, 1);
    }
    return NULL;
}

static void test_insert_unique_atomic(void) {
    unique_race u = {0};
    u.f = make(12, 4, 2500, CF_CONCURRENT, 5);
    u.keys = 9400; /* 94% of the slots: the last inserts evict */
    u.ok = calloc(u.keys, sizeof *u.ok);
    REQUIRE(u.ok != NULL);
    pthread_t th[UNIQUE_THREADS];
    worker wk[UNIQUE_THREADS];
    for (unsigned i = 0; i < UNIQUE_THREADS; i++) {
        wk[i] = (worker){(stress *)(void *)&u, i};
        REQUIRE(pthread_create(&th[i], NULL, unique_main, &wk[i]) == 0);
    }
    for (unsigned i = 0; i < UNIQUE_THREADS; i++) pthread_join(th[i], NULL);
    uint64_t twice = 0, total = 0, missing = 0;
    for (uint64_t k = 0; k < u.keys; k++) {
        uint32_t n = atomic_load(&u.ok[k]);
        twice += n > 1;
        total += n;
        missing += !cf_contains(u.f, &k, sizeof k);
    }
    CHECK_EQ(twice, 0);
    CHECK_EQ(missing, 0);
    CHECK_EQ(atomic_load(&u.other), 0);
    cf_stats st;
    cf_get_stats(u.f, &st);
    CHECK_EQ(st.items, total);
    CHECK_GE(st.total_kicks, 1);
    CHECK_EQ(stripes_off(u.f), 0);
    free(u.ok);
    cf_free(u.f);
}

/* ---- a lookup during a move ---- */

typedef struct pending_lookup {
    cf_filter *f;
    uint64_t key;
    atomic_bool started, done, found;
} pending_lookup;

static void *pending_main(void *arg) {
    pending_lookup *p = arg;
    atomic_store(&p->started, true);
    atomic_store(&p->found, cf_contains(p->f, &p->key, sizeof p->key));
    atomic_store(&p->done, true);
    return NULL;
}

/* While a stripe's version is odd (a move under way: its item may be in
 * neither bucket for an instant), a lookup there must not answer "absent";
 * it answers once the move is over.  The odd version is set by hand, and
 * the "move" puts the key in place meanwhile. */
static void test_lookup_waits_for_move(void) {
    pending_lookup p = {.f = make(12, 4, 1000, CF_CONCURRENT, 11), .key = 12345};
    uint64_t h = cf_hash(p.f, &p.key, sizeof p.key);
    uint64_t i1 = cf__index1(h, p.f->t.num_buckets);
    _Atomic uint32_t *version =
        &cf__concurrent_of(p.f)->versions[i1 >> cf__concurrent_of(p.f)->shift];
    atomic_store(version, 1);
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, pending_main, &p) == 0);
    while (!atomic_load(&p.started)) sched_yield();
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    CHECK(!atomic_load(&p.done));
    CHECK_STATUS(cf_insert(p.f, &p.key, sizeof p.key), CF_OK);
    atomic_store(version, 2);
    pthread_join(th, NULL);
    CHECK(atomic_load(&p.found));
    cf_free(p.f);
}

/* A saved concurrent filter loads as a plain one with the same items. */
static void test_save_load(void) {
    cf_filter *f = make(12, 4, 1000, CF_CONCURRENT, 3);
    for (uint64_t k = 0; k < 3000; k++) REQUIRE(cf_insert(f, &k, sizeof k) == CF_OK);
    char path[64];
    snprintf(path, sizeof path, "/tmp/cf_test_concurrent.%ld.cf", (long)getpid());
    CHECK_STATUS(cf_save(f, path), CF_OK);
    cf_filter *g = NULL;
    CHECK_STATUS(cf_load(path, NULL, &g), CF_OK);
    unlink(path);
    REQUIRE(g != NULL);
    cf_stats sf, sg;
    cf_get_stats(f, &sf);
    cf_get_stats(g, &sg);
    CHECK_EQ(sg.items, 3000);
    CHECK_EQ(sg.items, sf.items);
    CHECK_EQ(sg.flags, 0);
    uint64_t missing = 0;
    for (uint64_t k = 0; k < 3000; k++) missing += !cf_contains(g, &k, sizeof k);
    CHECK_EQ(missing, 0);
    cf_free(g);
    cf_free(f);
}

/* A loaded (plain) filter made concurrent keeps its table and counters, and
 * then behaves as the filter it was saved from: same answers, same bytes
 * after the same deletes and inserts, each stripe's count exact. */
static void test_make_concurrent(void) {
    max_kicks = 500;
    cf_filter *f = make(12, 4, 4000, CF_CONCURRENT, 5);
    uint64_t n = 0;
    while (cf_insert(f, &n, sizeof n) == CF_OK) n++; /* full: kicks and a failed insert */
    size_t len;
    uint8_t *img = test_serialize(f, &len);
    cf_filter *g = NULL;
    REQUIRE(cf_deserialize(img, len, NULL, &g) == CF_OK);
    free(img);
    CHECK_STATUS(cf_make_concurrent(NULL), CF_E_PARAM);
    CHECK_STATUS(cf_make_concurrent(f), CF_E_PARAM); /* already concurrent */

    /* Out of memory: nothing changes, and it works once memory is back. */
    cf_allocator a = {budget_alloc, budget_free, NULL, NULL, NULL};
    cf_filter *h = NULL;
    img = test_serialize(g, &len);
    budget = 2; /* handle and table */
    REQUIRE(cf_deserialize(img, len, &a, &h) == CF_OK);
    CHECK_STATUS(cf_make_concurrent(h), CF_E_NOMEM);
    CHECK(h->kind == CF__PLAIN && cf__concurrent_of(h) == NULL); /* no stripes attached */
    budget = 1;
    CHECK_STATUS(cf_make_concurrent(h), CF_OK);
    cf_free(h);
    free(img);

    CHECK_STATUS(cf_make_concurrent(g), CF_OK);
    cf_stats sf, sg;
    cf_get_stats(f, &sf);
    cf_get_stats(g, &sg);
    CHECK_EQ(sg.flags, CF_CONCURRENT);
    CHECK_EQ(sg.items, sf.items);
    CHECK_EQ(sg.total_kicks, sf.total_kicks);
    CHECK_EQ(sg.failed_inserts, sf.failed_inserts);
    CHECK_GE(sg.failed_inserts, 1);
    CHECK_EQ(stripes_off(g), 0);
    for (uint64_t k = 0; k < n; k += 3) {
        CHECK_STATUS(cf_delete(g, &k, sizeof k), cf_delete(f, &k, sizeof k));
        uint64_t fresh = n + k;
        CHECK_STATUS(cf_insert(g, &fresh, sizeof fresh), cf_insert(f, &fresh, sizeof fresh));
    }
    CHECK_EQ(stripes_off(g), 0);
    size_t lf, lg;
    uint8_t *bf = test_serialize(f, &lf), *bg = test_serialize(g, &lg);
    CHECK(lf == lg && memcmp(bf, bg, lf) == 0);
    free(bf);
    free(bg);
    cf_free(g);
    cf_free(f);

    /* Filters it refuses: grown, semi-sorted, mapped. */
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 100;
    cfg.target_fpp = 0.01;
    cfg.flags = CF_GROW;
    cf_filter *grown = NULL, *semi = make(12, 4, 64, CF_SEMI_SORT, 1);
    REQUIRE(cf_new(&cfg, &grown) == CF_OK);
    CHECK_STATUS(cf_make_concurrent(grown), CF_E_PARAM);
    CHECK_STATUS(cf_make_concurrent(semi), CF_E_PARAM);
    cf_free(semi);
    char path[64];
    snprintf(path, sizeof path, "/tmp/cf_test_make_cc.%ld.cf", (long)getpid());
    cf_filter *plain = make(12, 4, 64, 0, 1);
    REQUIRE(cf_save(plain, path) == CF_OK);
    cf_filter *mapped = NULL;
    REQUIRE(cf_map(path, NULL, true, &mapped) == CF_OK);
    unlink(path);
    CHECK_STATUS(cf_make_concurrent(mapped), CF_E_PARAM);
    cf_free(mapped);
    cf_free(plain);
    cf_free(grown);
}

/* ---- inserts work on threads with small stacks (the header's contract):
 * a filter filled to the end, default budget, plain and concurrent, on a
 * thread with a PTHREAD_STACK_MIN (16 KiB) stack.  The eviction search once
 * kept 16 KiB of nodes on the stack and overflowed it.  Sanitizers need
 * more stack of their own, so their builds give the thread 64 KiB. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SMALL_STACK (64 * 1024)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SMALL_STACK (64 * 1024)
#endif
#endif
#ifndef SMALL_STACK
#define SMALL_STACK (16 * 1024)
#endif

static void *fill_to_full(void *arg) {
    cf_filter *f = arg;
    uint64_t k = 0, failed = 0;
    while (failed < 50 && k < 100000) {
        if (cf_insert(f, &k, sizeof k) != CF_OK) failed++;
        k++;
    }
    cf_stats st;
    cf_get_stats(f, &st);
    return (void *)(uintptr_t)(st.load_factor > 0.9 && failed == 50);
}

static void test_small_stack(void) {
    for (unsigned flags = 0; flags <= CF_CONCURRENT; flags += CF_CONCURRENT) {
        cf_config cfg;
        cf_config_init(&cfg); /* the default budget, 500 */
        cfg.capacity = 20000;
        cfg.flags = flags;
        cf_filter *f;
        REQUIRE(cf_new(&cfg, &f) == CF_OK);
        pthread_attr_t attr;
        REQUIRE(pthread_attr_init(&attr) == 0);
        REQUIRE(pthread_attr_setstacksize(&attr, SMALL_STACK) == 0);
        pthread_t th;
        REQUIRE(pthread_create(&th, &attr, fill_to_full, f) == 0);
        void *full = NULL;
        REQUIRE(pthread_join(th, &full) == 0);
        CHECK(full != NULL); /* filled until inserts failed: deep searches ran */
        pthread_attr_destroy(&attr);
        cf_free(f);
    }
}

TEST_MAIN(TEST(test_flags), TEST(test_memory_overhead), TEST(test_out_of_memory),
          TEST(test_one_thread_matches_plain), TEST(test_save_load), TEST(test_make_concurrent),
          TEST(test_lookup_waits_for_move), TEST(test_insert_unique_atomic), TEST(test_stress),
          TEST(test_small_stack))
