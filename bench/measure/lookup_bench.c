/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * lookup_bench.c -- cf-lookup-bench: single lookups, deletes and inserts of
 * the library against the paper's reference code compiled inline, on tables
 * of exactly the same shape, with issue 20's targets printed beside the
 * ratios.
 *
 * The baseline is the paper's header-only C++ CuckooFilter<uint64_t, 12> as
 * its callers get it: inlined into their loops, the tag width a constant.
 * ref_cuckoo_impl.h renders that code in C as static inline functions, and
 * every paper_* phase here calls ref_cuckoo_insert12 / _contains12 /
 * _delete12, so the whole operation is compiled into the phase's loop.  One
 * informational row calls the same code out of line (ref_cuckoo.c, width
 * chosen at run time), as the benchmark did before.
 *
 * For each table size nb (a power of two, so the paper's code can have it):
 *
 *   paper: ref_cuckoo, nb buckets x 4 x 12-bit tags     } both filled with the
 *   ours:  cf_new with num_buckets = nb, f = 12, b = 4  } same random 64-bit keys
 *                                                         to 95% of their slots
 * then, each repetition, every phase runs on both filters one after the
 * other (the lookups in a new random order every repetition, the fills and
 * deletes paper first or ours first in turn), so phases that are compared
 * see the same load from the machine's other jobs within a second:
 *
 *   insert     the fill itself: ref_cuckoo_insert12(key) / cf_insert(&key, 8),
 *              and cf_insert_batch (cf_hash included) into a third filter
 *   present    lookups of inserted keys: ref_cuckoo_contains12(key) (its
 *              cheap hash included) against cf_contains(&key, 8),
 *              cf_contains_u64(key), cf_contains_hash on hashes computed
 *              beforehand by cf_hash, and through a cf_view made once after
 *              the fill (cuckoofilter_inline.h): cf_view_contains_u64(key)
 *              and cf_view_contains_hash; cf_contains_batch on the hashes
 *   absent     the same on keys never inserted (their hits give the FPP)
 *   delete     ref_cuckoo_delete12(key) / cf_delete(&key, 8) of inserted keys
 *   probe      the memory probe's pairs of independent random lines over an
 *              array as large as the table (mem_probe.c), set beside the
 *              batched lookups as information
 *
 * Phases are timed in the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so
 * time spent descheduled on a shared machine is not counted.  The report
 * gives medians in ns per operation, the ratio ours / paper of
 * the medians (below 1: the library is faster) with the range of the
 * per-repetition ratios, and the target the issue holds that ratio to at
 * that size ("-" where it sets none; targets exist at 2^14, 2^18, 2^21 and
 * 2^25 buckets only).  Every timed loop is its own non-inlined phase_*
 * function, so callgrind attributes instructions to it (--phase-ops,
 * bench/callgrind.sh --lookup).  Only the library's public API is used.
 */
#include "common/bench_util.h"
#include "common/mem_probe.h"
#include "reference/ref_cuckoo.h"
#include "reference/ref_cuckoo_impl.h"

#include <cuckoofilter.h>
#include <cuckoofilter_inline.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEY_LEN 8  /* keys are 64-bit values, given to the library as 8 bytes */
#define FP_BITS 12 /* the paper's configuration: 12-bit tags, 4 per bucket   */
#define LOAD 0.95
#define MAX_NB 8
#define MAX_REPS 31

/* Everything timed, one series of samples each; the names are the phase
 * functions' (phase_<name>), which callgrind reports. */
typedef enum series {
    S_PAPER_INSERT,
    S_OURS_INSERT,
    S_OURS_INSERT_BATCH,
    S_PAPER_POS,
    S_PAPER_CALL_POS, /* the paper's code called out of line */
    S_OURS_POS,
    S_OURS_POS_U64,
    S_OURS_POS_HASH,
    S_VIEW_POS_U64,
    S_VIEW_POS_HASH,
    S_OURS_POS_BATCH,
    S_PAPER_NEG,
    S_OURS_NEG,
    S_OURS_NEG_U64,
    S_OURS_NEG_HASH,
    S_VIEW_NEG_U64,
    S_VIEW_NEG_HASH,
    S_OURS_NEG_BATCH,
    S_PAPER_DELETE,
    S_OURS_DELETE,
    S_PROBE_PAIR, /* the memory probe: ns per pair of random lines (last) */
    S_COUNT
} series;

static const char *const series_names[S_COUNT] = {
    "paper_insert",         "ours_insert",           "ours_insert_batch",
    "paper_lookup_pos",     "paper_call_lookup_pos", "ours_lookup_pos",
    "ours_lookup_u64_pos",  "ours_lookup_hash_pos",  "view_lookup_u64_pos",
    "view_lookup_hash_pos", "ours_batch_pos",        "paper_lookup_neg",
    "ours_lookup_neg",      "ours_lookup_u64_neg",   "ours_lookup_hash_neg",
    "view_lookup_u64_neg",  "view_lookup_hash_neg",  "ours_batch_neg",
    "paper_delete",         "ours_delete",           "probe_pair"};

/* The table sizes the issue sets targets at: column k of every row's
 * targets is the target at TIER_NB[k] buckets. */
#define TIERS 4
static const uint64_t tier_nb[TIERS] = {1ull << 14, 1ull << 18, 1ull << 21, 1ull << 25};

/* The report's rows: the library's series, what it is set against (the
 * paper's code inlined; the probe for two information rows), and the
 * issue's target for ours / that per size tier, the largest ratio that
 * meets it (0: no target there).  The short name heads the summary's row. */
static const struct {
    const char *label, *short_name;
    series ours, base;
    double target[TIERS];
} report_rows[] = {
    {"insert to 95%, cf_insert", "insert", S_OURS_INSERT, S_PAPER_INSERT, {1.0, 1.0, 0, 0.45}},
    {"insert to 95%, cf_insert_batch", "ins.batch", S_OURS_INSERT_BATCH, S_PAPER_INSERT, {0}},
    {"present, cf_contains (8 bytes)", "pres.key", S_OURS_POS, S_PAPER_POS, {1.6, 1.6, 1.3, 1.3}},
    {"present, cf_contains_u64", "pres.u64", S_OURS_POS_U64, S_PAPER_POS, {1.4, 1.4, 1.2, 1.2}},
    {"present, cf_contains_hash",
     "pres.hash",
     S_OURS_POS_HASH,
     S_PAPER_POS,
     {1.2, 1.2, 1.05, 1.05}},
    {"present, cf_view_contains_u64",
     "pres.vu64",
     S_VIEW_POS_U64,
     S_PAPER_POS,
     {1.2, 1.2, 1.2, 1.2}},
    {"present, cf_view_contains_hash", "pres.vhash", S_VIEW_POS_HASH, S_PAPER_POS, {1, 1, 1, 1}},
    {"present, cf_contains_batch", "pres.batch", S_OURS_POS_BATCH, S_PAPER_POS, {0, 0, 0.7, 0.7}},
    {"present, paper's code out of line", "paper.call", S_PAPER_CALL_POS, S_PAPER_POS, {0}},
    {"absent, cf_contains (8 bytes)", "abs.key", S_OURS_NEG, S_PAPER_NEG, {1.6, 1.6, 1.3, 1.3}},
    {"absent, cf_contains_u64", "abs.u64", S_OURS_NEG_U64, S_PAPER_NEG, {1.4, 1.4, 1.2, 1.2}},
    {"absent, cf_contains_hash", "abs.hash", S_OURS_NEG_HASH, S_PAPER_NEG, {1.2, 1.2, 1.05, 1.05}},
    {"absent, cf_view_contains_u64", "abs.vu64", S_VIEW_NEG_U64, S_PAPER_NEG, {1.2, 1.2, 1.2, 1.2}},
    {"absent, cf_view_contains_hash", "abs.vhash", S_VIEW_NEG_HASH, S_PAPER_NEG, {1, 1, 1, 1}},
    {"absent, cf_contains_batch", "abs.batch", S_OURS_NEG_BATCH, S_PAPER_NEG, {0, 0, 0.7, 0.7}},
    {"delete, cf_delete", "delete", S_OURS_DELETE, S_PAPER_DELETE, {0, 0, 0, 1.0}},
    {"present, cf_contains_batch", "pres.b/prb", S_OURS_POS_BATCH, S_PROBE_PAIR, {0}},
    {"absent, cf_contains_batch", "abs.b/prb", S_OURS_NEG_BATCH, S_PROBE_PAIR, {0}},
};
#define REPORT_ROWS (sizeof report_rows / sizeof report_rows[0])

/* The target of row i at nb buckets; 0 when the issue sets none there. */
static double target_at(size_t i, uint64_t nb) {
    for (int k = 0; k < TIERS; k++)
        if (tier_nb[k] == nb) return report_rows[i].target[k];
    return 0;
}

typedef struct options {
    uint64_t nb[MAX_NB];
    size_t nb_count;
    unsigned reps;
    uint64_t lookups; /* keys per lookup phase (present and absent)   */
    size_t batch;     /* hashes per cf_contains_batch / insert_batch   */
    uint64_t seed;
    const char *phase_ops; /* file for callgrind.sh: phase,operations     */
} options;

/* ---------------------------------------------------------------- phases */

#define KEY_PHASE(name, handle_t, expr)                                                      \
    __attribute__((noinline)) static uint64_t phase_##name(handle_t h, const uint64_t *keys, \
                                                           uint64_t n) {                     \
        uint64_t count = 0;                                                                  \
        for (uint64_t i = 0; i < n; i++) count += (expr);                                    \
        return count;                                                                        \
    }

/* Each returns how many operations succeeded (stored, found, deleted).  The
 * paper's phases compile its code into the loop (ref_cuckoo_impl.h, f = 12
 * constant), except paper_call_lookup_pos, which calls it out of line. */
KEY_PHASE(paper_insert, ref_cuckoo *, ref_cuckoo_insert12(h, keys[i]))
KEY_PHASE(ours_insert, cf_filter *, cf_insert(h, &keys[i], KEY_LEN) == CF_OK)
KEY_PHASE(paper_lookup_pos, const ref_cuckoo *, ref_cuckoo_contains12(h, keys[i]))
KEY_PHASE(paper_call_lookup_pos, const ref_cuckoo *, ref_cuckoo_contains(h, keys[i]))
KEY_PHASE(ours_lookup_pos, const cf_filter *, cf_contains(h, &keys[i], KEY_LEN))
KEY_PHASE(ours_lookup_u64_pos, const cf_filter *, cf_contains_u64(h, keys[i]))
KEY_PHASE(ours_lookup_hash_pos, const cf_filter *, cf_contains_hash(h, keys[i]))
KEY_PHASE(paper_lookup_neg, const ref_cuckoo *, ref_cuckoo_contains12(h, keys[i]))
KEY_PHASE(ours_lookup_neg, const cf_filter *, cf_contains(h, &keys[i], KEY_LEN))
KEY_PHASE(ours_lookup_u64_neg, const cf_filter *, cf_contains_u64(h, keys[i]))
KEY_PHASE(ours_lookup_hash_neg, const cf_filter *, cf_contains_hash(h, keys[i]))
KEY_PHASE(paper_delete, ref_cuckoo *, ref_cuckoo_delete12(h, keys[i]))
KEY_PHASE(ours_delete, cf_filter *, cf_delete(h, &keys[i], KEY_LEN) == CF_OK)

/* The view's phases: cuckoofilter_inline.h's lookups compiled into the loop,
 * on a copy of the view in a local variable, as the header advises: its
 * address never escapes, so the compiler keeps its fields in registers and
 * tests its shape once (clang reloaded and retested them on every key). */
#define VIEW_PHASE(name, expr)                                                                 \
    __attribute__((noinline)) static uint64_t phase_##name(const cf_view *view,                \
                                                           const uint64_t *keys, uint64_t n) { \
        const cf_view v = *view;                                                               \
        uint64_t count = 0;                                                                    \
        for (uint64_t i = 0; i < n; i++) count += (expr);                                      \
        return count;                                                                          \
    }
VIEW_PHASE(view_lookup_u64_pos, cf_view_contains_u64(&v, keys[i]))
VIEW_PHASE(view_lookup_hash_pos, cf_view_contains_hash(&v, keys[i]))
VIEW_PHASE(view_lookup_u64_neg, cf_view_contains_u64(&v, keys[i]))
VIEW_PHASE(view_lookup_hash_neg, cf_view_contains_hash(&v, keys[i]))

static inline uint64_t batch_lookup(const cf_filter *f, const uint64_t *h, uint64_t n, size_t batch,
                                    bool *out) {
    uint64_t found = 0;
    for (uint64_t i = 0; i < n; i += batch)
        found += cf_contains_batch(f, h + i, (size_t)(n - i < batch ? n - i : batch), out);
    return found;
}
__attribute__((noinline)) static uint64_t
phase_ours_batch_pos(const cf_filter *f, const uint64_t *h, uint64_t n, size_t batch, bool *out) {
    return batch_lookup(f, h, n, batch, out);
}
__attribute__((noinline)) static uint64_t
phase_ours_batch_neg(const cf_filter *f, const uint64_t *h, uint64_t n, size_t batch, bool *out) {
    return batch_lookup(f, h, n, batch, out);
}

/* Fills f with keys[0..n) through cf_insert_batch, hashing `batch` keys at a
 * time into chunk; returns how many were stored (a key that does not fit is
 * skipped, as the one-by-one fill skips it). */
__attribute__((noinline)) static uint64_t phase_ours_insert_batch(cf_filter *f,
                                                                  const uint64_t *keys, uint64_t n,
                                                                  size_t batch, uint64_t *chunk) {
    uint64_t inserted = 0;
    for (uint64_t i = 0; i < n;) {
        size_t k = (size_t)(n - i < batch ? n - i : batch);
        for (size_t j = 0; j < k; j++) chunk[j] = cf_hash(f, &keys[i + j], KEY_LEN);
        size_t done = 0;
        cf_status st = cf_insert_batch(f, chunk, k, &done);
        inserted += done;
        i += done + (st != CF_OK);
    }
    return inserted;
}

/* ------------------------------------------------------------- one size */

/* The keys and scratch of one table size, shared by every repetition. */
typedef struct workload {
    uint64_t nb;
    uint64_t fill;  /* keys offered to each filter: 95% of its slots     */
    uint64_t *keys; /* fill keys, inserted in this order                 */
    uint64_t n;     /* lookups per phase                                 */
    uint64_t *pos;  /* n inserted keys (repeated when fewer are stored)  */
    uint64_t *neg;  /* n keys never inserted                             */
    uint64_t *hpos; /* cf_hash of pos and neg                            */
    uint64_t *hneg;
    uint64_t *del; /* d distinct inserted keys, deleted each repetition */
    uint64_t d;
    uint64_t *chunk; /* one batch of hashes to insert                     */
    bool *out;       /* one batch of lookup answers                       */
} workload;

/* What one size measured: samples, and the facts of the last repetition
 * (deterministic: the same keys and seed build the same tables). */
typedef struct result {
    double ns[S_COUNT][MAX_REPS];
    uint64_t ops[S_COUNT]; /* operations per repetition                   */
    uint64_t got[S_COUNT]; /* successes in the last repetition            */
    uint64_t paper_items, ours_items;
    size_t paper_bytes, ours_bytes;
    double ours_bits_per_item;
    uint64_t paper_kicks, ours_kicks;
    bool paper_victim;
    double probe_dependent_ns;
    size_t probe_bytes;
    bool problem; /* a false negative or a failed delete         */
} result;

static void shuffle(uint64_t *v, uint64_t n, uint64_t *rng) {
    for (uint64_t i = n; i > 1; i--) {
        uint64_t j = bench_below(bench_splitmix64(rng), i);
        uint64_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

/* Chooses the lookup and delete keys among keys[0..stored), the keys both
 * filters hold: d = min(n, stored) distinct keys spread over the insert
 * order (early keys sit in their first bucket more often), shuffled, to
 * delete; and n present lookups cycling through them in a new random order. */
static void choose_keys(const options *o, workload *w, uint64_t stored, const cf_filter *ours) {
    uint64_t rng = o->seed ^ 0x3c6ef372fe94f82bull;
    w->d = w->n < stored ? w->n : stored;
    for (uint64_t i = 0; i < w->d; i++) w->del[i] = w->keys[(uint64_t)((double)i * stored / w->d)];
    shuffle(w->del, w->d, &rng);
    for (uint64_t i = 0; i < w->n; i++) w->pos[i] = w->del[i % w->d];
    if (w->n > w->d) shuffle(w->pos, w->n, &rng);
    for (uint64_t i = 0; i < w->n; i++) {
        w->hpos[i] = cf_hash(ours, &w->pos[i], KEY_LEN);
        w->hneg[i] = cf_hash(ours, &w->neg[i], KEY_LEN);
    }
}

static cf_filter *ours_new(const options *o, uint64_t nb) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.num_buckets = nb;
    cfg.fingerprint_bits = FP_BITS;
    cfg.bucket_size = 4;
    cfg.seed = o->seed;
    cf_filter *f = NULL;
    cf_status st = cf_new(&cfg, &f);
    if (st != CF_OK)
        fprintf(stderr, "cf-lookup-bench: cf_new(nb = %" PRIu64 "): %s\n", nb, cf_strerror(st));
    return f;
}

/* Times expr into r->ns[s][rep] (ns per operation over count) and keeps its
 * result as the series' successes.  The clock is the thread's CPU time, so a
 * phase is not charged for the time the machine's other jobs hold the core. */
#define TIMED(r, s, rep, count, expr)                                  \
    do {                                                               \
        double t0_ = bench_thread_ns();                                \
        (r)->got[s] = (expr);                                          \
        (r)->ns[s][rep] = (bench_thread_ns() - t0_) / (double)(count); \
        (r)->ops[s] = (count);                                         \
    } while (0)

/* The two fills, paper and ours in the repetition's order; false when a
 * filter cannot be made. */
static bool fill_both(const options *o, workload *w, result *r, unsigned rep, ref_cuckoo *paper,
                      cf_filter **ours) {
    for (int k = 0; k < 2; k++) {
        if ((k == 0) == (rep % 2 == 0)) {
            if (!ref_cuckoo_init(paper, w->nb, FP_BITS, o->seed)) {
                fprintf(stderr, "cf-lookup-bench: the paper's filter: out of memory\n");
                return false;
            }
            TIMED(r, S_PAPER_INSERT, rep, w->fill, phase_paper_insert(paper, w->keys, w->fill));
        } else {
            if ((*ours = ours_new(o, w->nb)) == NULL) return false;
            TIMED(r, S_OURS_INSERT, rep, w->fill, phase_ours_insert(*ours, w->keys, w->fill));
        }
    }
    return true;
}

/* What the lookup phases read: the filters, the view of ours, the keys. */
typedef struct targets {
    const ref_cuckoo *paper;
    const cf_filter *ours;
    cf_view view;
} targets;

/* Runs lookup phase s once over n keys (or their hashes); returns the hits. */
static uint64_t lookup_phase(series s, const options *o, const workload *w, const targets *t,
                             uint64_t n) {
    switch (s) {
    case S_PAPER_POS: return phase_paper_lookup_pos(t->paper, w->pos, n);
    case S_PAPER_CALL_POS: return phase_paper_call_lookup_pos(t->paper, w->pos, n);
    case S_OURS_POS: return phase_ours_lookup_pos(t->ours, w->pos, n);
    case S_OURS_POS_U64: return phase_ours_lookup_u64_pos(t->ours, w->pos, n);
    case S_OURS_POS_HASH: return phase_ours_lookup_hash_pos(t->ours, w->hpos, n);
    case S_VIEW_POS_U64: return phase_view_lookup_u64_pos(&t->view, w->pos, n);
    case S_VIEW_POS_HASH: return phase_view_lookup_hash_pos(&t->view, w->hpos, n);
    case S_OURS_POS_BATCH: return phase_ours_batch_pos(t->ours, w->hpos, n, o->batch, w->out);
    case S_PAPER_NEG: return phase_paper_lookup_neg(t->paper, w->neg, n);
    case S_OURS_NEG: return phase_ours_lookup_neg(t->ours, w->neg, n);
    case S_OURS_NEG_U64: return phase_ours_lookup_u64_neg(t->ours, w->neg, n);
    case S_OURS_NEG_HASH: return phase_ours_lookup_hash_neg(t->ours, w->hneg, n);
    case S_VIEW_NEG_U64: return phase_view_lookup_u64_neg(&t->view, w->neg, n);
    case S_VIEW_NEG_HASH: return phase_view_lookup_hash_neg(&t->view, w->hneg, n);
    case S_OURS_NEG_BATCH: return phase_ours_batch_neg(t->ours, w->hneg, n, o->batch, w->out);
    default: return 0;
    }
}

/* Every lookup phase once, present and absent, in a random order drawn
 * anew each repetition (the same order for a seed and repetition). */
static void lookups(const options *o, const workload *w, result *r, unsigned rep,
                    const targets *t) {
    static const series all[] = {
        S_PAPER_POS,    S_PAPER_CALL_POS, S_OURS_POS,       S_OURS_POS_U64,  S_OURS_POS_HASH,
        S_VIEW_POS_U64, S_VIEW_POS_HASH,  S_OURS_POS_BATCH, S_PAPER_NEG,     S_OURS_NEG,
        S_OURS_NEG_U64, S_OURS_NEG_HASH,  S_VIEW_NEG_U64,   S_VIEW_NEG_HASH, S_OURS_NEG_BATCH};
    enum { N_LOOKUPS = sizeof all / sizeof all[0] };
    uint64_t order[N_LOOKUPS], rng = o->seed * 0x9e3779b97f4a7c15ull + rep;
    for (size_t i = 0; i < N_LOOKUPS; i++) order[i] = (uint64_t)all[i];
    shuffle(order, N_LOOKUPS, &rng);
    for (size_t i = 0; i < N_LOOKUPS; i++) {
        series s = (series)order[i];
        TIMED(r, s, rep, w->n, lookup_phase(s, o, w, t, w->n));
    }
}

static void probe(const options *o, result *r, unsigned rep) {
    mem_probe_result pr;
    uint64_t pairs = o->lookups < 2000000 ? o->lookups : 2000000;
    if (!mem_probe_run(r->ours_bytes, 200000, pairs, o->seed ^ rep, false, &pr)) {
        fprintf(stderr, "cf-lookup-bench: memory probe: out of memory\n");
        r->ns[S_PROBE_PAIR][rep] = NAN;
        return;
    }
    r->ns[S_PROBE_PAIR][rep] = pr.random2_ns;
    r->ops[S_PROBE_PAIR] = pairs;
    r->probe_dependent_ns = pr.dependent_ns;
    r->probe_bytes = pr.bytes;
}

/* Checks what the last phases found: every stored key is found and deleted,
 * every way of looking up agrees with cf_contains_hash on absent keys, and
 * both fills store as many keys. */
static void check(const workload *w, result *r) {
    uint64_t n = w->n, neg = r->got[S_OURS_NEG_HASH];
    const struct {
        series s;
        uint64_t want;
    } must[] = {{S_PAPER_POS, n},        {S_PAPER_CALL_POS, n},
                {S_OURS_POS, n},         {S_OURS_POS_U64, n},
                {S_OURS_POS_HASH, n},    {S_VIEW_POS_U64, n},
                {S_VIEW_POS_HASH, n},    {S_OURS_POS_BATCH, n},
                {S_PAPER_DELETE, w->d},  {S_OURS_DELETE, w->d},
                {S_OURS_NEG, neg},       {S_OURS_NEG_U64, neg},
                {S_VIEW_NEG_U64, neg},   {S_VIEW_NEG_HASH, neg},
                {S_OURS_NEG_BATCH, neg}, {S_OURS_INSERT_BATCH, r->got[S_OURS_INSERT]}};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++) {
        if (r->got[must[i].s] == must[i].want) continue;
        fprintf(stderr,
                "cf-lookup-bench: ERROR: nb = %" PRIu64 ": %s succeeded %" PRIu64
                " times, expected %" PRIu64 "\n",
                w->nb, series_names[must[i].s], r->got[must[i].s], must[i].want);
        r->problem = true;
    }
}

/* One repetition: fills, lookups, probe, deletes, then the batched fill. */
static bool run_rep(const options *o, workload *w, result *r, unsigned rep) {
    ref_cuckoo paper;
    memset(&paper, 0, sizeof paper); /* destroyed even when never made */
    cf_filter *ours = NULL;
    bool ok = fill_both(o, w, r, rep, &paper, &ours);
    if (ok) {
        /* The paper's filter stores a prefix of the keys (after its victim
         * cache fills, every insert fails).  The library should store them
         * all at 95%; a key it skipped would show as a missed lookup. */
        uint64_t stored = r->got[S_PAPER_INSERT];
        if (r->got[S_OURS_INSERT] < stored) stored = r->got[S_OURS_INSERT];
        if (rep == 0) choose_keys(o, w, stored, ours);
        cf_stats st;
        cf_get_stats(ours, &st);
        r->ours_items = st.items;
        r->ours_bytes = st.table_bytes;
        r->ours_bits_per_item = st.bits_per_item;
        r->ours_kicks = st.total_kicks;
        r->paper_items = paper.items;
        r->paper_bytes = ref_cuckoo_table_bytes(&paper);
        r->paper_kicks = paper.total_kicks;
        r->paper_victim = paper.has_victim;

        /* The view is made once, after the fill, as a caller would. */
        targets t = {.paper = &paper, .ours = ours};
        cf_status vs = cf_view_init(&t.view, ours);
        if (vs != CF_OK) {
            fprintf(stderr, "cf-lookup-bench: ERROR: cf_view_init: %s\n", cf_strerror(vs));
            r->problem = true;
        } else {
            lookups(o, w, r, rep, &t);
        }
        probe(o, r, rep);
        for (int k = 0; k < 2; k++) {
            if ((k == 0) == (rep % 2 == 0))
                TIMED(r, S_PAPER_DELETE, rep, w->d, phase_paper_delete(&paper, w->del, w->d));
            else
                TIMED(r, S_OURS_DELETE, rep, w->d, phase_ours_delete(ours, w->del, w->d));
        }
    }
    ref_cuckoo_destroy(&paper);
    cf_free(ours);
    if (!ok) return false;

    cf_filter *batched = ours_new(o, w->nb);
    if (batched == NULL) return false;
    TIMED(r, S_OURS_INSERT_BATCH, rep, w->fill,
          phase_ours_insert_batch(batched, w->keys, w->fill, o->batch, w->chunk));
    cf_free(batched);
    check(w, r);
    return true;
}

/* ------------------------------------------------------------- report */

static double median_of(const result *r, series s, unsigned reps) {
    double v[MAX_REPS];
    unsigned k = 0;
    for (unsigned i = 0; i < reps; i++)
        if (!isnan(r->ns[s][i])) v[k++] = r->ns[s][i];
    return k ? bench_median(v, k) : NAN;
}

/* The smallest and largest per-repetition ratio a / b. */
static void ratio_range(const result *r, series a, series b, unsigned reps, double *lo,
                        double *hi) {
    *lo = INFINITY, *hi = -INFINITY;
    for (unsigned i = 0; i < reps; i++) {
        double x = r->ns[a][i] / r->ns[b][i];
        if (isnan(x)) continue;
        if (x < *lo) *lo = x;
        if (x > *hi) *hi = x;
    }
}

static unsigned log2_of(uint64_t nb) {
    unsigned k = 0;
    while ((1ull << k) < nb) k++;
    return k;
}

static void print_result(const options *o, const workload *w, const result *r) {
    printf("\n== nb = 2^%u = %" PRIu64 " buckets, f = %u, b = 4, filled to 95%% (%" PRIu64
           " keys); medians of %u, %" PRIu64 " lookups per phase, %" PRIu64 " deletes ==\n",
           log2_of(w->nb), w->nb, FP_BITS, w->fill, o->reps, w->n, w->d);
    for (size_t i = 0; i < REPORT_ROWS; i++) {
        series a = report_rows[i].ours, b = report_rows[i].base;
        if (i == 0 || (b == S_PROBE_PAIR) != (report_rows[i - 1].base == S_PROBE_PAIR)) {
            const char *vs = b == S_PROBE_PAIR ? "probe" : "paper";
            char ratio[16];
            snprintf(ratio, sizeof ratio, "ours/%s", vs);
            printf("%-34s %9s %9s %12s  %-13s  %s\n", i == 0 ? "ns per operation" : "(information)",
                   vs, "ours", ratio, "per-rep range", "target");
        }
        double mo = median_of(r, a, o->reps), mb = median_of(r, b, o->reps), lo, hi;
        ratio_range(r, a, b, o->reps, &lo, &hi);
        double q = mo / mb, t = target_at(i, w->nb);
        char target[16] = "-";
        if (t > 0) snprintf(target, sizeof target, "<= %.2f", t);
        printf("%-34s %9.1f %9.1f %12.2f  %5.2f - %5.2f  %-7s %s\n", report_rows[i].label, mb, mo,
               q, lo, hi, target,
               t <= 0 || isnan(q) ? ""
               : q <= t           ? "met"
                                  : "MISSED");
    }
    double neg = (double)w->n;
    printf("bits/item: paper %.2f, ours %.2f; FPP: paper %.4f%%, ours %.4f%% (%" PRIu64
           " absent keys)\n",
           r->paper_items ? 8.0 * (double)r->paper_bytes / (double)r->paper_items : 0.0,
           r->ours_bits_per_item, 100.0 * (double)r->got[S_PAPER_NEG] / neg,
           100.0 * (double)r->got[S_OURS_NEG] / neg, w->n);
    printf("paper: %" PRIu64 " items, %" PRIu64
           " inserts failed, victim cache %s, %.3f kicks/insert,"
           " table %zu bytes\n",
           r->paper_items, w->fill - r->got[S_PAPER_INSERT], r->paper_victim ? "taken" : "empty",
           r->paper_items ? (double)r->paper_kicks / (double)r->paper_items : 0.0, r->paper_bytes);
    printf("ours:  %" PRIu64 " items, %" PRIu64
           " inserts failed, %.3f kicks/insert, table %zu bytes\n",
           r->ours_items, w->fill - r->got[S_OURS_INSERT],
           r->ours_items ? (double)r->ours_kicks / (double)r->ours_items : 0.0, r->ours_bytes);
    printf(
        "probe over %zu bytes: %.1f ns per dependent read, %.1f ns per pair of independent lines\n",
        r->probe_bytes, r->probe_dependent_ns, median_of(r, S_PROBE_PAIR, o->reps));
    printf("(\"paper\" is the paper's code compiled inline, f = 12 constant; its lookup and\n"
           " delete take the 64-bit item and hash it inside: it has no separate hash path, so\n"
           " every lookup of ours faces its one lookup)\n");
}

/* The summary at the end: one line per row, one column per size, each cell
 * the ratio of the medians, '!' when it misses its target, and the target
 * ("-": none at that size). */
static void print_summary(const options *o, const bool *measured, const result *rs) {
    printf("\n== summary: ours / the paper's code inlined, ratios of the medians"
           " (paper.call: out of line / inlined; */prb: ours / probe) ==\n");
    printf("%-11s", "row");
    for (size_t k = 0; k < o->nb_count; k++) {
        if (!measured[k]) continue;
        char head[16];
        snprintf(head, sizeof head, "2^%u", log2_of(o->nb[k]));
        printf(" %-14s", head);
    }
    putchar('\n');
    for (size_t i = 0; i < REPORT_ROWS; i++) {
        printf("%-11s", report_rows[i].short_name);
        for (size_t k = 0; k < o->nb_count; k++) {
            if (!measured[k]) continue;
            double q = median_of(&rs[k], report_rows[i].ours, o->reps) /
                       median_of(&rs[k], report_rows[i].base, o->reps);
            double t = target_at(i, o->nb[k]);
            char target[16] = "-";
            if (t > 0) snprintf(target, sizeof target, "<=%.2f", t);
            printf(" %6.2f%c %-6s", q, t > 0 && !(q <= t) ? '!' : ' ', target);
        }
        putchar('\n');
    }
    printf("('!' marks a missed target; targets at 2^14, 2^18, 2^21 and 2^25 buckets only)\n");
}

/* For bench/callgrind.sh: each phase function and the operations it ran. */
static bool write_phase_ops(const options *o, const result *rs, size_t count) {
    FILE *f = fopen(o->phase_ops, "w");
    if (f == NULL) return false;
    for (int s = 0; s < S_PROBE_PAIR; s++) {
        uint64_t total = 0;
        for (size_t k = 0; k < count; k++) total += rs[k].ops[s] * o->reps;
        fprintf(f, "%s,%" PRIu64 "\n", series_names[s], total);
    }
    return fclose(f) == 0;
}

/* ------------------------------------------------------------- options */

static void usage(FILE *out) {
    fputs("usage: cf-lookup-bench [options]\n"
          "  --nb LIST       table sizes in buckets, powers of two, as 2^K or a number\n"
          "                  (default 2^14,2^18,2^21,2^25; 2^25 needs ~2 GB and minutes)\n"
          "  --reps R        repetitions, interleaved; medians reported (default 5, max 31)\n"
          "  --lookups L     keys per lookup phase, present and absent (default 10M)\n"
          "  --batch B       hashes per cf_contains_batch / cf_insert_batch call (default 1024)\n"
          "  --seed S        key and hash seed (default 42)\n"
          "  --quick         --nb 2^14,2^18,2^21 --reps 3 --lookups 2M: a sanity run\n"
          "  --phase-ops F   write phase,operations lines to F (bench/callgrind.sh --lookup)\n"
          "  --help\n",
          out);
}

static bool parse_nb_list(const char *s, options *o) {
    char buf[256];
    if (strlen(s) >= sizeof buf) return false;
    strcpy(buf, s);
    o->nb_count = 0;
    for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
        uint64_t v;
        if (strncmp(tok, "2^", 2) == 0) {
            if (!bench_parse_count(tok + 2, &v) || v > 32) return false;
            v = 1ull << v;
        } else if (!bench_parse_count(tok, &v) || (v & (v - 1)) != 0 || v > (1ull << 32)) {
            return false;
        }
        if (o->nb_count == MAX_NB) return false;
        o->nb[o->nb_count++] = v;
    }
    return o->nb_count > 0;
}

/* Returns -1 to run, else the exit status. */
static int parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    parse_nb_list("2^14,2^18,2^21,2^25", o);
    o->reps = 5;
    o->lookups = 10000000;
    o->batch = 1024;
    o->seed = 42;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x = 0;
        bool ok = true;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--quick") == 0) {
            parse_nb_list("2^14,2^18,2^21", o);
            o->reps = 3;
            o->lookups = 2000000;
            continue;
        } else if (v == NULL) {
            fprintf(stderr, "cf-lookup-bench: %s needs a value (or is unknown)\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--nb") == 0) {
            ok = parse_nb_list(v, o);
        } else if (strcmp(a, "--reps") == 0) {
            ok = bench_parse_count(v, &x) && x <= MAX_REPS;
            o->reps = (unsigned)x;
        } else if (strcmp(a, "--lookups") == 0) {
            ok = bench_parse_count(v, &o->lookups);
        } else if (strcmp(a, "--batch") == 0) {
            ok = bench_parse_count(v, &x) && x <= (1u << 20);
            o->batch = (size_t)x;
        } else if (strcmp(a, "--seed") == 0) {
            char *end;
            errno = 0;
            o->seed = strtoull(v, &end, 0);
            ok = *v != '\0' && *end == '\0' && errno == 0;
        } else if (strcmp(a, "--phase-ops") == 0) {
            o->phase_ops = v;
        } else {
            fprintf(stderr, "cf-lookup-bench: unknown option %s\n", a);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "cf-lookup-bench: bad value for %s: %s\n", a, v);
            return 2;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------- main */

/* The machine's load average (Linux), printed before and after the run:
 * on a shared machine it says how far the timings can be trusted. */
static void print_load(const char *when) {
    char buf[64] = "";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f == NULL) return;
    if (fgets(buf, sizeof buf, f) != NULL) {
        char *end = buf;
        for (int fields = 0; *end != '\0' && fields < 3; end++) fields += *end == ' ';
        if (end > buf) end[-1] = '\0';
        printf("load average %s: %s\n", when, buf);
    }
    fclose(f);
}

static void workload_free(workload *w) {
    free(w->keys), free(w->pos), free(w->neg), free(w->hpos), free(w->hneg), free(w->del);
    free(w->chunk), free(w->out);
    memset(w, 0, sizeof *w);
}

/* Allocates w for nb buckets; false (w empty) when memory is short. */
static bool workload_new(const options *o, uint64_t nb, workload *w) {
    memset(w, 0, sizeof *w);
    w->nb = nb;
    w->fill = (uint64_t)floor((double)nb * 4 * LOAD);
    w->n = o->lookups;
    /* keys, five arrays of n, three tables (paper, ours, the probe's) */
    double need = 8.0 * (double)w->fill + 5 * 8.0 * (double)w->n + 3 * 6.0 * (double)nb;
    if (need > 0.8 * bench_available_bytes()) {
        printf("\nnb = %" PRIu64 ": skipped, needs ~%.0f MB and %.0f MB are free\n", nb, need / 1e6,
               bench_available_bytes() / 1e6);
        return false;
    }
    w->keys = malloc(w->fill * sizeof *w->keys);
    w->pos = malloc(w->n * sizeof *w->pos);
    w->neg = malloc(w->n * sizeof *w->neg);
    w->hpos = malloc(w->n * sizeof *w->hpos);
    w->hneg = malloc(w->n * sizeof *w->hneg);
    w->del = malloc(w->n * sizeof *w->del);
    w->chunk = malloc(o->batch * sizeof *w->chunk);
    w->out = malloc(o->batch * sizeof *w->out);
    if (!w->keys || !w->pos || !w->neg || !w->hpos || !w->hneg || !w->del || !w->chunk || !w->out) {
        fprintf(stderr, "cf-lookup-bench: nb = %" PRIu64 ": out of memory\n", nb);
        workload_free(w);
        return false;
    }
    bench_fill_keys(w->keys, w->fill, o->seed);
    bench_fill_keys(w->neg, w->n, ~o->seed * 0x9e3779b97f4a7c15ull);
    return true;
}

int main(int argc, char **argv) {
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) return rc;
    printf("cf-lookup-bench: libcuckoofilter %s, %s, %ld cpus, seed %" PRIu64 ", reps %u, "
           "lookups %" PRIu64 ", batch %zu\n",
           cf_version_string(), BENCH_COMPILER, sysconf(_SC_NPROCESSORS_ONLN), o.seed, o.reps,
           o.lookups, o.batch);
    print_load("at the start");
    static result rs[MAX_NB];
    bool measured[MAX_NB] = {false};
    int status = 0;
    for (size_t k = 0; k < o.nb_count; k++) {
        workload w;
        if (!workload_new(&o, o.nb[k], &w)) {
            status = 1;
            continue;
        }
        measured[k] = true;
        for (unsigned rep = 0; rep < o.reps && measured[k]; rep++)
            measured[k] = run_rep(&o, &w, &rs[k], rep);
        if (measured[k]) print_result(&o, &w, &rs[k]);
        fflush(stdout);
        if (!measured[k] || rs[k].problem) status = 1;
        workload_free(&w);
    }
    print_summary(&o, measured, rs);
    print_load("at the end");
    if (o.phase_ops && !write_phase_ops(&o, rs, o.nb_count)) {
        fprintf(stderr, "cf-lookup-bench: cannot write %s\n", o.phase_ops);
        status = 2;
    }
    return status;
}
