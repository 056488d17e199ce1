/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cf_bench.c -- cf-bench: the library's cuckoo filter against the paper's
 * reference code (ref_cuckoo.c), a Bloom filter of the same size and the
 * memory system's own limit, measured side by side in one run.
 *
 * For every N and fingerprint width f, each repetition does, per filter:
 *
 *   new(capacity N) -> insert keys until the table is 95% full   (insert)
 *                   -> look up inserted keys                     (present)
 *                   -> look up never-inserted keys               (absent, FPP)
 *                   -> look up a random 50/50 mix                (mixed)
 *                   -> the mix on precomputed hashes, one by one
 *                      (the reference: its lookup of the keys)
 *                      and through cf_contains_batch             (library only)
 *                   -> delete the inserted keys looked up        (delete)
 *   and for the library, the same fill through cf_insert_batch into a new
 *   filter, hashing included                                   (insert, batched)
 *
 * and the memory probe reads an array as large as the library's table.  The
 * report gives medians over the repetitions.  Every timed loop is its own
 * non-inlined phase_* function, so `valgrind --tool=callgrind` attributes
 * instructions per phase (see --ops and docs/BENCHMARKS.md).
 *
 * Sizes: the library sizes its table for N (any number of buckets), the
 * reference uses the largest power of two not above that bucket count (its
 * XOR alternate index needs one), and each is filled to the same load.  The
 * reference therefore never has the bigger table, which can only favour it
 * on cache and TLB misses.
 */
#include "common/bench.h"
#include "common/bench_util.h"
#include "common/mem_probe.h"
#include "reference/ref_cuckoo.h"

#include <cuckoofilter.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LIST 16
#define KEY_LEN 8 /* keys are 64-bit values passed as 8 bytes */

typedef struct options {
    uint64_t n[MAX_LIST];
    size_t n_count;
    unsigned widths[MAX_LIST];
    size_t width_count;
    unsigned reps;
    uint64_t seed;
    double load;          /* fill each table to this fraction of its slots     */
    uint64_t lookups;     /* cap on keys per lookup/delete phase               */
    size_t batch;         /* hashes per cf_contains_batch call                 */
    uint64_t probe_steps; /* dependent reads in the probe                      */
    bool impl[IMPL_COUNT];
    bool huge; /* the probe's array asks for transparent huge pages */
    const char *csv;
} options;

static double elapsed_per_op(double t0, double t1, uint64_t n) {
    return n ? (t1 - t0) / (double)n : NAN;
}

/* ---------------------------------------------------------------- phases */

/* One non-inlined function per timed loop, named phase_<impl>_<metric> after
 * the CSV's names, so that callgrind's per-function counts divided by the
 * CSV's ops column give instructions per operation (bench/callgrind.sh). */
#define KEY_PHASE(name, handle_t, expr)                                                            \
    __attribute__((noinline)) static uint64_t name(handle_t h, const uint64_t *keys, uint64_t n) { \
        uint64_t count = 0;                                                                        \
        for (uint64_t i = 0; i < n; i++) count += (expr);                                          \
        return count;                                                                              \
    }

/* Each returns how many operations succeeded (inserts, finds, deletes). */
KEY_PHASE(phase_ours_insert, cf_filter *, cf_insert(h, &keys[i], KEY_LEN) == CF_OK)
KEY_PHASE(phase_ours_lookup_pos, const cf_filter *, cf_contains(h, &keys[i], KEY_LEN))
KEY_PHASE(phase_ours_lookup_neg, const cf_filter *, cf_contains(h, &keys[i], KEY_LEN))
KEY_PHASE(phase_ours_lookup_mixed, const cf_filter *, cf_contains(h, &keys[i], KEY_LEN))
KEY_PHASE(phase_ours_lookup_mixed_hash, const cf_filter *, cf_contains_hash(h, keys[i]))
KEY_PHASE(phase_ours_delete, cf_filter *, cf_delete(h, &keys[i], KEY_LEN) == CF_OK)
KEY_PHASE(phase_semi_insert, cf_filter *, cf_insert(h, &keys[i], KEY_LEN) == CF_OK)
KEY_PHASE(phase_semi_lookup_pos, const cf_filter *, cf_contains(h, &keys[i], KEY_LEN))
KEY_PHASE(phase_semi_lookup_neg, const cf_filter *, cf_contains(h, &keys[i], KEY_LEN))
KEY_PHASE(phase_semi_lookup_mixed, const cf_filter *, cf_contains(h, &keys[i], KEY_LEN))
KEY_PHASE(phase_semi_lookup_mixed_hash, const cf_filter *, cf_contains_hash(h, keys[i]))
KEY_PHASE(phase_semi_delete, cf_filter *, cf_delete(h, &keys[i], KEY_LEN) == CF_OK)
/* The reference takes the 64-bit key itself as its item (the paper's code
 * hashes integers, cheaply, inside every operation): it has no separate hash
 * path, so its "on hashes" phase is its plain lookup of the same keys. */
KEY_PHASE(phase_ref_insert, ref_cuckoo *, ref_cuckoo_insert(h, keys[i]))
KEY_PHASE(phase_ref_lookup_pos, const ref_cuckoo *, ref_cuckoo_contains(h, keys[i]))
KEY_PHASE(phase_ref_lookup_neg, const ref_cuckoo *, ref_cuckoo_contains(h, keys[i]))
KEY_PHASE(phase_ref_lookup_mixed, const ref_cuckoo *, ref_cuckoo_contains(h, keys[i]))
KEY_PHASE(phase_ref_lookup_mixed_hash, const ref_cuckoo *, ref_cuckoo_contains(h, keys[i]))
KEY_PHASE(phase_ref_delete, ref_cuckoo *, ref_cuckoo_delete(h, keys[i]))
KEY_PHASE(phase_bloom_insert, cf_bloom *, (cf_bloom_insert(h, &keys[i], KEY_LEN), 1))
KEY_PHASE(phase_bloom_lookup_pos, const cf_bloom *, cf_bloom_contains(h, &keys[i], KEY_LEN))
KEY_PHASE(phase_bloom_lookup_neg, const cf_bloom *, cf_bloom_contains(h, &keys[i], KEY_LEN))
KEY_PHASE(phase_bloom_lookup_mixed, const cf_bloom *, cf_bloom_contains(h, &keys[i], KEY_LEN))

static inline uint64_t batch_mixed(const cf_filter *f, const uint64_t *h, uint64_t n, size_t batch,
                                   bool *out) {
    uint64_t found = 0;
    for (uint64_t i = 0; i < n; i += batch) {
        size_t k = (size_t)(n - i < batch ? n - i : batch);
        found += cf_contains_batch(f, h + i, k, out);
    }
    return found;
}

/* Fills f with keys[0..n) through cf_insert_batch, hashing `batch` keys at a
 * time into chunk; returns how many were inserted (a failed one is skipped). */
static inline uint64_t insert_batch(cf_filter *f, const uint64_t *keys, uint64_t n, size_t batch,
                                    uint64_t *chunk) {
    uint64_t inserted = 0;
    for (uint64_t i = 0; i < n;) {
        size_t k = (size_t)(n - i < batch ? n - i : batch);
        for (size_t j = 0; j < k; j++) chunk[j] = cf_hash(f, &keys[i + j], KEY_LEN);
        size_t done = 0;
        cf_status st = cf_insert_batch(f, chunk, k, &done);
        inserted += done;
        i += done + (st != CF_OK); /* skip the key that did not fit */
    }
    return inserted;
}

#define BATCH_PHASES(impl)                                                               \
    __attribute__((noinline)) static uint64_t phase_##impl##_batch_mixed(                \
        const cf_filter *f, const uint64_t *h, uint64_t n, size_t batch, bool *out) {    \
        return batch_mixed(f, h, n, batch, out);                                         \
    }                                                                                    \
    __attribute__((noinline)) static uint64_t phase_##impl##_insert_batch(               \
        cf_filter *f, const uint64_t *keys, uint64_t n, size_t batch, uint64_t *chunk) { \
        return insert_batch(f, keys, n, batch, chunk);                                   \
    }
BATCH_PHASES(ours)
BATCH_PHASES(semi)

/* The library's phases, once per layout, so callgrind tells them apart. */
typedef struct lib_phases {
    uint64_t (*insert)(cf_filter *, const uint64_t *, uint64_t);
    uint64_t (*insert_batch)(cf_filter *, const uint64_t *, uint64_t, size_t, uint64_t *);
    uint64_t (*lookup_pos)(const cf_filter *, const uint64_t *, uint64_t);
    uint64_t (*lookup_neg)(const cf_filter *, const uint64_t *, uint64_t);
    uint64_t (*lookup_mixed)(const cf_filter *, const uint64_t *, uint64_t);
    uint64_t (*lookup_mixed_hash)(const cf_filter *, const uint64_t *, uint64_t);
    uint64_t (*batch_mixed)(const cf_filter *, const uint64_t *, uint64_t, size_t, bool *);
    uint64_t (*delete_)(cf_filter *, const uint64_t *, uint64_t);
} lib_phases;

#define LIB_PHASES(impl)                                                                        \
    {                                                                                           \
        phase_##impl##_insert, phase_##impl##_insert_batch, phase_##impl##_lookup_pos,          \
            phase_##impl##_lookup_neg, phase_##impl##_lookup_mixed,                             \
            phase_##impl##_lookup_mixed_hash, phase_##impl##_batch_mixed, phase_##impl##_delete \
    }
static const lib_phases ours_phases = LIB_PHASES(ours);
static const lib_phases semi_phases = LIB_PHASES(semi);

/* Runs expr, storing its result in var and the ns per operation in dst. */
#define TIME_PHASE(var, dst, n, expr)                     \
    do {                                                  \
        double t0_ = bench_now_ns();                      \
        var = (expr);                                     \
        (dst) = elapsed_per_op(t0_, bench_now_ns(), (n)); \
    } while (0)

/* ------------------------------------------------------------- workload */

/* Chooses the lookup keys for a filter holding keys[0..inserted) and returns
 * how many (at most count and at most inserted, so they are distinct):
 * positives evenly spread over the insert order (early inserts sit in their
 * first bucket more often), shuffled, and a 50/50 mix with the negatives.
 * Deterministic in seed, so every repetition looks up the same keys. */
static uint64_t build_sets(uint64_t *pos, uint64_t *mixed, const uint64_t *neg, uint64_t count,
                           const uint64_t *keys, uint64_t inserted, uint64_t seed) {
    uint64_t rng = seed ^ 0x3c6ef372fe94f82bull;
    uint64_t n = count < inserted ? count : inserted;
    for (uint64_t i = 0; i < n; i++) pos[i] = keys[(uint64_t)((double)i * inserted / n)];
    for (uint64_t i = n - 1; i > 0; i--) {
        uint64_t j = bench_below(bench_splitmix64(&rng), i + 1);
        uint64_t t = pos[i];
        pos[i] = pos[j];
        pos[j] = t;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = bench_splitmix64(&rng);
        mixed[i] = (r >> 63) ? pos[bench_below(r, n)] : neg[i];
    }
    return n;
}

/* The library's table for (N, f), from an empty filter (cf_new does not touch
 * the table's pages, so this is cheap even for large N). */
static bool ours_shape(uint64_t n, unsigned f, uint64_t seed, cf_stats *st) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = n;
    cfg.fingerprint_bits = f;
    cfg.bucket_size = 4;
    cfg.seed = seed;
    cf_filter *filter = NULL;
    cf_status s = cf_new(&cfg, &filter);
    if (s != CF_OK) {
        fprintf(stderr, "cf-bench: cf_new(N=%" PRIu64 ", f=%u): %s\n", n, f, cf_strerror(s));
        return false;
    }
    cf_get_stats(filter, st);
    cf_free(filter);
    return true;
}

static uint64_t fill_count(uint64_t slots, double load) {
    return (uint64_t)floor((double)slots * load);
}

/* ------------------------------------------------------------- runners */

/* What every filter of a case shares: the key stream, the negatives, scratch. */
typedef struct workload {
    const uint64_t *keys; /* inserted in this order, as many as each filter takes */
    const uint64_t *neg;  /* keys never inserted                                  */
    uint64_t count;       /* lookup keys per phase (capped by each filter's fill) */
    uint64_t *chunk;      /* one batch of hashes to insert                        */
    bool *out;            /* batch lookup results                                 */
} workload;

/* One filter during a repetition.  All filters are built and filled first;
 * then each lookup phase runs on every filter in turn, so the filters face
 * the same load from the neighbours within a second of each other, and the
 * ratios stay meaningful on a shared machine. */
typedef struct runner {
    bench_impl impl;
    bool live;
    cf_filter *f;                   /* IMPL_OURS, IMPL_SEMI */
    ref_cuckoo r;                   /* IMPL_REF             */
    cf_bloom *b;                    /* IMPL_BLOOM           */
    uint64_t fill;                  /* keys offered         */
    uint64_t inserted;              /* keys stored          */
    uint64_t n;                     /* lookup keys          */
    uint64_t *pos, *mixed, *hashes; /* this filter's lookup keys, w->count each */
    uint64_t count[M_COUNT];        /* successes per phase (found, deleted)     */
} runner;

static const lib_phases *lib_phases_of(bench_impl impl) {
    return impl == IMPL_SEMI ? &semi_phases : &ours_phases;
}

static bool lib_new(const options *o, const bench_case *c, bench_impl impl, cf_filter **f) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = c->n;
    cfg.fingerprint_bits = c->fp_bits;
    cfg.bucket_size = c->bucket_size;
    cfg.seed = o->seed;
#ifdef CF_SEMI_SORT
    cfg.flags = impl == IMPL_SEMI ? CF_SEMI_SORT : 0;
#endif
    cf_status st = cf_new(&cfg, f);
    if (st != CF_OK)
        fprintf(stderr, "cf-bench: cf_new(%s, f=%u): %s\n", bench_impl_names[impl], c->fp_bits,
                cf_strerror(st));
    return st == CF_OK;
}

/* Creates x's filter and times its fill; then chooses its lookup keys. */
static void runner_fill(const options *o, bench_case *c, unsigned rep, runner *x, const workload *w,
                        const cf_stats *shape) {
    bench_impl impl = x->impl;
    bench_facts *fa = &c->facts[impl];
    double *ns = &c->samples[impl][M_INSERT][rep];
    memset(x->count, 0, sizeof x->count);
    x->live = false;
    switch (impl) {
    case IMPL_OURS:
    case IMPL_SEMI: {
        if (!lib_new(o, c, impl, &x->f)) return;
        cf_stats st;
        cf_get_stats(x->f, &st);
        x->fill = fill_count(st.slots, o->load);
        TIME_PHASE(x->inserted, *ns, x->fill, lib_phases_of(impl)->insert(x->f, w->keys, x->fill));
        cf_get_stats(x->f, &st);
        fa->items = st.items;
        fa->num_buckets = st.num_buckets;
        fa->table_bytes = st.table_bytes;
        fa->bits_per_item = st.bits_per_item;
        fa->kicks = st.total_kicks;
        fa->failed_inserts = x->fill - x->inserted;
        break;
    }
    case IMPL_REF: {
        uint64_t nb = ref_cuckoo_floor_pow2(shape->num_buckets);
        if (!ref_cuckoo_init(&x->r, nb, c->fp_bits, o->seed)) {
            fprintf(stderr, "cf-bench: reference filter: out of memory\n");
            return;
        }
        x->fill = fill_count(nb * REF_BUCKET_SIZE, o->load);
        TIME_PHASE(x->inserted, *ns, x->fill, phase_ref_insert(&x->r, w->keys, x->fill));
        fa->items = x->r.items;
        fa->num_buckets = nb;
        fa->table_bytes = ref_cuckoo_table_bytes(&x->r);
        fa->bits_per_item = x->r.items ? 8.0 * (double)fa->table_bytes / (double)x->r.items : 0;
        fa->kicks = x->r.total_kicks;
        /* The victim cache keeps one homeless tag findable (that insert
         * succeeds); the inserts after it fail. */
        fa->failed_inserts = x->fill - x->inserted;
        break;
    }
    case IMPL_BLOOM: {
        cf_bloom_config cfg;
        cf_bloom_config_init(&cfg);
        x->fill = fill_count(shape->slots, o->load);
        cfg.capacity = x->fill;
        cfg.num_bits =
            (uint64_t)shape->table_bytes * 8; /* the cuckoo table's memory, bit for bit */
        cfg.seed = o->seed;
        cf_status st = cf_bloom_new(&cfg, &x->b);
        if (st != CF_OK) {
            fprintf(stderr, "cf-bench: cf_bloom_new: %s\n", cf_strerror(st));
            return;
        }
        TIME_PHASE(x->inserted, *ns, x->fill, phase_bloom_insert(x->b, w->keys, x->fill));
        cf_bloom_stats bs;
        cf_bloom_get_stats(x->b, &bs);
        fa->items = bs.items;
        fa->table_bytes = (size_t)((bs.num_bits + 7) / 8);
        fa->bits_per_item = bs.bits_per_item;
        fa->num_hashes = bs.num_hashes;
        break;
    }
    default: return;
    }
    c->ops[impl][M_INSERT] = x->fill;
    x->live = true;
    x->n = build_sets(x->pos, x->mixed, w->neg, w->count, w->keys, x->fill, o->seed);
    if (impl == IMPL_OURS || impl == IMPL_SEMI)
        for (uint64_t i = 0; i < x->n; i++) x->hashes[i] = cf_hash(x->f, &x->mixed[i], KEY_LEN);
}

/* Times phase m on x when x has it; returns false when it does not. */
static bool runner_phase(const options *o, bench_case *c, unsigned rep, runner *x,
                         const workload *w, bench_metric m) {
    if (!x->live) return false;
    uint64_t n = x->n, got = 0;
    double *ns = &c->samples[x->impl][m][rep];
    const uint64_t *keys = m == M_POS || m == M_DELETE ? x->pos : m == M_NEG ? w->neg : x->mixed;
    switch (x->impl) {
    case IMPL_OURS:
    case IMPL_SEMI: {
        const lib_phases *ph = lib_phases_of(x->impl);
        switch (m) {
        case M_POS: TIME_PHASE(got, *ns, n, ph->lookup_pos(x->f, keys, n)); break;
        case M_NEG: TIME_PHASE(got, *ns, n, ph->lookup_neg(x->f, keys, n)); break;
        case M_MIXED: TIME_PHASE(got, *ns, n, ph->lookup_mixed(x->f, keys, n)); break;
        case M_MIXED_HASH:
            TIME_PHASE(got, *ns, n, ph->lookup_mixed_hash(x->f, x->hashes, n));
            break;
        case M_BATCH:
            TIME_PHASE(got, *ns, n, ph->batch_mixed(x->f, x->hashes, n, o->batch, w->out));
            break;
        case M_DELETE: TIME_PHASE(got, *ns, n, ph->delete_(x->f, keys, n)); break;
        default: return false;
        }
        break;
    }
    case IMPL_REF:
        switch (m) {
        case M_POS: TIME_PHASE(got, *ns, n, phase_ref_lookup_pos(&x->r, keys, n)); break;
        case M_NEG: TIME_PHASE(got, *ns, n, phase_ref_lookup_neg(&x->r, keys, n)); break;
        case M_MIXED: TIME_PHASE(got, *ns, n, phase_ref_lookup_mixed(&x->r, keys, n)); break;
        case M_MIXED_HASH: /* no hash path: its lookup of the mixed keys again */
            TIME_PHASE(got, *ns, n, phase_ref_lookup_mixed_hash(&x->r, keys, n));
            break;
        case M_DELETE: TIME_PHASE(got, *ns, n, phase_ref_delete(&x->r, keys, n)); break;
        default: return false;
        }
        break;
    case IMPL_BLOOM:
        switch (m) {
        case M_POS: TIME_PHASE(got, *ns, n, phase_bloom_lookup_pos(x->b, keys, n)); break;
        case M_NEG: TIME_PHASE(got, *ns, n, phase_bloom_lookup_neg(x->b, keys, n)); break;
        case M_MIXED: TIME_PHASE(got, *ns, n, phase_bloom_lookup_mixed(x->b, keys, n)); break;
        default: return false;
        }
        break;
    default: return false;
    }
    x->count[m] = got;
    c->ops[x->impl][m] = n;
    return true;
}

/* Records what the phases found and releases x's filter. */
static void runner_finish(bench_case *c, runner *x) {
    if (!x->live) return;
    bench_facts *fa = &c->facts[x->impl];
    uint64_t n = x->n;
    fa->present = true;
    fa->fpp = (double)x->count[M_NEG] / (double)n;
    /* Keys that never got in cannot be found or deleted: only misses beyond
     * those are false negatives. */
    uint64_t missed = n - x->count[M_POS];
    fa->false_negatives = missed > fa->failed_inserts ? missed - fa->failed_inserts : 0;
    fa->failed_deletes = c->ops[x->impl][M_DELETE] ? n - x->count[M_DELETE] : 0;
    if (x->impl == IMPL_OURS || x->impl == IMPL_SEMI) {
        uint64_t by_key = x->count[M_MIXED];
        if (x->count[M_MIXED_HASH] != by_key || x->count[M_BATCH] != by_key)
            fprintf(stderr,
                    "cf-bench: WARNING: %s N=%" PRIu64 " f=%u: mixed lookups found %" PRIu64
                    " by key, %" PRIu64 " by hash, %" PRIu64 " batched\n",
                    bench_impl_names[x->impl], c->n, c->fp_bits, by_key, x->count[M_MIXED_HASH],
                    x->count[M_BATCH]);
        cf_free(x->f);
    } else if (x->impl == IMPL_REF) {
        if (x->count[M_MIXED_HASH] != x->count[M_MIXED])
            fprintf(stderr,
                    "cf-bench: WARNING: ref N=%" PRIu64 " f=%u: %" PRIu64 " found by key, %" PRIu64
                    " by hash\n",
                    c->n, c->fp_bits, x->count[M_MIXED], x->count[M_MIXED_HASH]);
        ref_cuckoo_destroy(&x->r);
    } else if (x->impl == IMPL_BLOOM) {
        fa->false_negatives = n - x->count[M_POS];
        cf_bloom_free(x->b);
    }
    x->live = false;
}

/* The library's fill again, batched, into a fresh filter: it must end with
 * the same items and moves as the one-by-one fill. */
static void run_insert_batch(const options *o, bench_case *c, unsigned rep, bench_impl impl,
                             const workload *w) {
    cf_filter *f = NULL;
    if (!c->facts[impl].present || !lib_new(o, c, impl, &f)) return;
    uint64_t fill = c->ops[impl][M_INSERT], inserted;
    TIME_PHASE(inserted, c->samples[impl][M_INSERT_BATCH][rep], fill,
               lib_phases_of(impl)->insert_batch(f, w->keys, fill, o->batch, w->chunk));
    c->ops[impl][M_INSERT_BATCH] = fill;
    cf_stats st;
    cf_get_stats(f, &st);
    const bench_facts *fa = &c->facts[impl];
    if (inserted != fill - fa->failed_inserts || st.items != fa->items ||
        st.total_kicks != fa->kicks)
        fprintf(stderr,
                "cf-bench: WARNING: %s N=%" PRIu64 " f=%u: batched fill differs: %" PRIu64
                " items, %" PRIu64 " kicks (one by one: %" PRIu64 ", %" PRIu64 ")\n",
                bench_impl_names[impl], c->n, c->fp_bits, st.items, st.total_kicks, fa->items,
                fa->kicks);
    cf_free(f);
}

static void run_probe(const options *o, bench_case *c, unsigned rep, size_t bytes) {
    mem_probe_result pr;
    uint64_t pairs = o->lookups < 1000000 ? o->lookups : 1000000;
    if (!mem_probe_run(bytes, o->probe_steps, pairs, o->seed ^ rep, o->huge, &pr)) {
        fprintf(stderr, "cf-bench: memory probe: out of memory\n");
        return;
    }
    c->samples[IMPL_PROBE][M_DEPENDENT][rep] = pr.dependent_ns;
    c->samples[IMPL_PROBE][M_RANDOM1][rep] = pr.random1_ns;
    c->samples[IMPL_PROBE][M_RANDOM2][rep] = pr.random2_ns;
    c->samples[IMPL_PROBE][M_PAGE2][rep] = pr.page2_ns;
    c->ops[IMPL_PROBE][M_DEPENDENT] = o->probe_steps;
    c->ops[IMPL_PROBE][M_RANDOM1] = 2 * pairs;
    c->ops[IMPL_PROBE][M_RANDOM2] = pairs;
    c->ops[IMPL_PROBE][M_PAGE2] = pairs;
    c->facts[IMPL_PROBE].present = true;
    c->facts[IMPL_PROBE].table_bytes = pr.bytes;
    c->facts[IMPL_PROBE].huge_bytes = pr.huge_bytes;
}

/* ------------------------------------------------------------- options */

static void usage(FILE *out) {
    fputs("usage: cf-bench [options]\n"
          "  --n LIST        capacities N, comma-separated; k/M/G suffixes allowed\n"
          "                  (default 1M,10M; e.g. --n 100000000 or --n 1M,10M,100M)\n"
          "  --widths LIST   fingerprint bits (default 8,12,16; the reference takes 4/8/12/16)\n"
          "  --reps R        repetitions; medians are reported (default 3, max 31)\n"
          "  --seed S        key and hash seed (default 42)\n"
          "  --load X        fill each table to this fraction of its slots (default 0.95)\n"
          "  --lookups L     keys per lookup and delete phase, at most the items (default 2M)\n"
          "  --batch B       hashes per cf_contains_batch / cf_insert_batch call (default 1024)\n"
          "  --impl LIST     among ours,semi,ref,bloom,probe (default all; semi =\n"
          "                  the library with CF_SEMI_SORT, for 5 <= f <= 16)\n"
          "  --csv FILE      also write every median (and min, max) as CSV\n"
          "  --huge          the probe's array asks for transparent huge pages\n"
          "                  (madvise): what they would give the tables, which do not\n"
          "  --quick         N = 1M, 1 repetition, 250k lookups: a smoke run of seconds\n"
          "  --ops K         fixed small workload for valgrind --tool=callgrind: N = K,\n"
          "                  K lookups, 1 repetition, no probe (unless --impl says so)\n"
          "  --help\n",
          out);
}

static bool parse_count_list(const char *s, uint64_t *out, size_t *count) {
    char buf[512];
    if (strlen(s) >= sizeof buf) return false;
    strcpy(buf, s);
    *count = 0;
    for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
        if (*count == MAX_LIST || !bench_parse_count(tok, &out[*count])) return false;
        (*count)++;
    }
    return *count > 0;
}

static bool parse_impls(const char *s, bool *impl) {
    char buf[128];
    if (strlen(s) >= sizeof buf) return false;
    strcpy(buf, s);
    memset(impl, 0, IMPL_COUNT * sizeof *impl);
    for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
        int k = 0;
        while (k < IMPL_COUNT && strcmp(tok, bench_impl_names[k]) != 0) k++;
        if (k == IMPL_COUNT) return false;
        impl[k] = true;
    }
    return true;
}

static int parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->n[0] = 1000000, o->n[1] = 10000000, o->n_count = 2;
    o->widths[0] = 8, o->widths[1] = 12, o->widths[2] = 16, o->width_count = 3;
    o->reps = 3;
    o->seed = 42;
    o->load = 0.95;
    o->lookups = 2000000;
    o->batch = 1024;
    o->probe_steps = 1000000;
    for (int k = 0; k < IMPL_COUNT; k++) o->impl[k] = true;
    bool reps_set = false, impl_set = false, lookups_set = false;
    uint64_t ops = 0;
    bool quick = false;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--quick") == 0) {
            quick = true;
            continue;
        } else if (strcmp(a, "--huge") == 0) {
            o->huge = true;
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "cf-bench: %s needs a value (or unknown option)\n", a);
            return 2;
        }
        i++;
        bool ok = true;
        if (strcmp(a, "--n") == 0) {
            ok = parse_count_list(v, o->n, &o->n_count);
        } else if (strcmp(a, "--widths") == 0) {
            uint64_t w[MAX_LIST];
            ok = parse_count_list(v, w, &o->width_count);
            for (size_t k = 0; ok && k < o->width_count; k++) {
                ok = w[k] >= CF_MIN_FINGERPRINT_BITS && w[k] <= CF_MAX_FINGERPRINT_BITS;
                o->widths[k] = (unsigned)w[k];
            }
        } else if (strcmp(a, "--reps") == 0) {
            ok = bench_parse_count(v, &x) && x <= BENCH_MAX_REPS;
            o->reps = (unsigned)x, reps_set = true;
        } else if (strcmp(a, "--seed") == 0) {
            char *end;
            errno = 0;
            o->seed = strtoull(v, &end, 0);
            ok = *v != '\0' && *end == '\0' && errno == 0;
        } else if (strcmp(a, "--load") == 0) {
            char *end;
            o->load = strtod(v, &end);
            ok = end != v && *end == '\0' && o->load > 0 && o->load <= 1;
        } else if (strcmp(a, "--lookups") == 0) {
            ok = bench_parse_count(v, &o->lookups), lookups_set = true;
        } else if (strcmp(a, "--batch") == 0) {
            ok = bench_parse_count(v, &x) && x <= 1u << 20;
            o->batch = (size_t)x;
        } else if (strcmp(a, "--impl") == 0) {
            ok = parse_impls(v, o->impl), impl_set = true;
        } else if (strcmp(a, "--csv") == 0) {
            o->csv = v;
        } else if (strcmp(a, "--ops") == 0) {
            ok = bench_parse_count(v, &ops);
        } else {
            fprintf(stderr, "cf-bench: unknown option %s\n", a);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "cf-bench: bad value for %s: %s\n", a, v);
            return 2;
        }
    }
    if (quick) {
        o->n[0] = 1000000, o->n_count = 1;
        if (!reps_set) o->reps = 1;
        if (!lookups_set) o->lookups = 250000;
        o->probe_steps = 200000;
    }
    bool any = false;
    for (int k = 0; k < IMPL_COUNT; k++) any |= o->impl[k];
    if (!any) {
        fprintf(stderr, "cf-bench: --impl selects nothing\n");
        return 2;
    }
    if (ops) { /* the callgrind workload: small, fixed, and no timing-only parts */
        o->n[0] = ops, o->n_count = 1;
        if (!reps_set) o->reps = 1;
        if (!lookups_set) o->lookups = ops;
        if (!impl_set) o->impl[IMPL_PROBE] = false;
        o->probe_steps = ops;
    }
    return -1;
}

/* ---------------------------------------------------------------- main */

static void print_machine(FILE *out, const options *o) {
    char model[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            char *colon = strchr(line, ':');
            if (strncmp(line, "model name", 10) == 0 && colon) {
                snprintf(model, sizeof model, "%s", colon + 2);
                model[strcspn(model, "\n")] = '\0';
                break;
            }
        }
        fclose(f);
    }
    fprintf(out,
            "cf-bench: libcuckoofilter %s, %s, cpu \"%s\" x %ld, seed %" PRIu64
            ", load %.2f, reps %u, lookups %" PRIu64 ", batch %zu\n",
            cf_version_string(), BENCH_COMPILER, model, sysconf(_SC_NPROCESSORS_ONLN), o->seed,
            o->load, o->reps, o->lookups, o->batch);
}

/* Whether impl runs in case c: selected, and its layout exists for the width. */
static bool impl_applies(const options *o, const bench_case *c, bench_impl impl) {
    if (!o->impl[impl]) return false;
#ifdef CF_SEMI_SORT
    if (impl == IMPL_SEMI) return c->fp_bits >= 5 && c->fp_bits <= 16; /* b = 4 only */
#else
    if (impl == IMPL_SEMI) return false; /* a library from before semi-sorting (compare.sh) */
#endif
    if (impl == IMPL_REF) return c->fp_bits % 4 == 0 && c->fp_bits <= 16; /* whole-byte buckets */
    return true;
}

static void run_case(const options *o, bench_case *c, const workload *w, runner *runners,
                     const cf_stats *shape) {
    static const bench_metric phases[] = {M_POS, M_NEG, M_MIXED, M_MIXED_HASH, M_BATCH, M_DELETE};
    for (unsigned rep = 0; rep < c->reps; rep++) {
        /* Rotate the order each repetition, so that a neighbour's burst of
         * work does not always land on the same filter. */
        bench_impl order[IMPL_COUNT];
        for (unsigned k = 0; k < IMPL_COUNT; k++) order[k] = (bench_impl)((k + rep) % IMPL_COUNT);
        if (o->impl[IMPL_PROBE]) run_probe(o, c, rep, shape->table_bytes);
        for (unsigned k = 0; k < IMPL_COUNT; k++)
            if (order[k] != IMPL_PROBE && impl_applies(o, c, order[k]))
                runner_fill(o, c, rep, &runners[order[k]], w, shape);
        for (size_t p = 0; p < sizeof phases / sizeof phases[0]; p++)
            for (unsigned k = 0; k < IMPL_COUNT; k++)
                if (order[k] != IMPL_PROBE)
                    runner_phase(o, c, rep, &runners[order[k]], w, phases[p]);
        for (unsigned k = 0; k < IMPL_COUNT; k++)
            if (order[k] != IMPL_PROBE) runner_finish(c, &runners[order[k]]);
        for (unsigned k = 0; k < IMPL_COUNT; k++)
            if ((order[k] == IMPL_OURS || order[k] == IMPL_SEMI) && impl_applies(o, c, order[k]))
                run_insert_batch(o, c, rep, order[k], w);
    }
}

int main(int argc, char **argv) {
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) return rc;
    FILE *csv = NULL;
    if (o.csv) {
        csv = fopen(o.csv, "w");
        if (!csv) {
            fprintf(stderr, "cf-bench: cannot write %s: %s\n", o.csv, strerror(errno));
            return 2;
        }
        bench_csv_header(csv);
    }
    print_machine(stdout, &o);
    bench_case *c = malloc(sizeof *c);
    if (!c) return 1;
    int status = 0;

    for (size_t ni = 0; ni < o.n_count; ni++) {
        uint64_t n = o.n[ni];
        cf_stats shape;
        if (!ours_shape(n, o.widths[0], o.seed, &shape)) {
            status = 1;
            continue;
        }
        /* The library holds the most keys (the reference's table is never
         * larger), so its fill bounds the key stream. */
        uint64_t max_fill = fill_count(shape.slots, o.load);
        if (!o.impl[IMPL_OURS] && !o.impl[IMPL_SEMI] && !o.impl[IMPL_REF] && !o.impl[IMPL_BLOOM])
            max_fill = 1; /* the probe alone needs no keys */
        uint64_t count = o.lookups < max_fill ? o.lookups : max_fill;
        double need = 8.0 * (double)max_fill + 8.0 * 13 * (double)count +
                      4.0 * (double)shape.num_buckets * 4 * 4; /* four tables of 32-bit slots */
        if (need > 0.8 * bench_available_bytes()) {
            fprintf(stdout, "\nN = %" PRIu64 ": skipped, needs ~%.0f MB and %.0f MB are free\n", n,
                    need / 1e6, bench_available_bytes() / 1e6);
            continue;
        }
        uint64_t *keys = malloc(max_fill * sizeof *keys);
        uint64_t *neg = malloc(count * sizeof *neg);
        workload w = {keys, neg, count, malloc(o.batch * sizeof(uint64_t)), malloc(o.batch)};
        runner runners[IMPL_COUNT];
        memset(runners, 0, sizeof runners);
        bool ok = keys && neg && w.chunk && w.out;
        for (int i = 0; i < IMPL_COUNT; i++) {
            runners[i].impl = (bench_impl)i;
            if (i == IMPL_PROBE || !o.impl[i]) continue;
            runners[i].pos = malloc(count * sizeof(uint64_t));
            runners[i].mixed = malloc(count * sizeof(uint64_t));
            runners[i].hashes = malloc(count * sizeof(uint64_t));
            ok = ok && runners[i].pos && runners[i].mixed && runners[i].hashes;
        }
        if (!ok) {
            fprintf(stderr, "cf-bench: N = %" PRIu64 ": out of memory\n", n);
            status = 1;
        } else {
            bench_fill_keys(keys, max_fill, o.seed);
            bench_fill_keys(neg, count, ~o.seed * 0x9e3779b97f4a7c15ull);
            for (size_t wi = 0; wi < o.width_count; wi++) {
                memset(c, 0, sizeof *c);
                for (int i = 0; i < IMPL_COUNT; i++)
                    for (int m = 0; m < M_COUNT; m++)
                        for (int r = 0; r < BENCH_MAX_REPS; r++) c->samples[i][m][r] = NAN;
                c->n = n;
                c->fp_bits = o.widths[wi];
                c->bucket_size = 4;
                c->reps = o.reps;
                if (!ours_shape(n, c->fp_bits, o.seed, &shape)) {
                    status = 1;
                    continue;
                }
                run_case(&o, c, &w, runners, &shape);
                bench_print_case(stdout, c);
                fflush(stdout);
                if (csv) bench_csv_case(csv, c);
                /* Keys that never got in cannot be found or deleted; anything
                 * beyond those is a correctness bug worth a failing exit. */
                for (int i = IMPL_OURS; i <= IMPL_REF; i++)
                    if (c->facts[i].false_negatives ||
                        c->facts[i].failed_deletes > c->facts[i].failed_inserts)
                        status = 1;
            }
        }
        free(keys);
        free(neg);
        free(w.chunk);
        free(w.out);
        for (int i = 0; i < IMPL_COUNT; i++) {
            free(runners[i].pos);
            free(runners[i].mixed);
            free(runners[i].hashes);
        }
    }
    free(c);
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "cf-bench: writing %s failed\n", o.csv);
        status = 2;
    }
    return status;
}
