/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * expire_bench.c -- cf-expire-bench: an expiring filter (cfg.expire_after)
 * beside a plain filter of the same target FPP, and beside the usual
 * workaround, W plain filters of consecutive time slices given the same
 * memory as the expiring one.
 *
 *   cf-expire-bench [--n 1M] [--fpp 0.001] [--w 4] [--rounds 5] [--quick]
 *
 * n items are written per window (expire_after = n time units, one item
 * per unit).  Timed, in rounds that interleave the filters (medians and
 * ranges over the rounds, CPU time of this thread):
 *   lookup   cf_contains_hash on a mix of live and absent keys, one by one;
 *   batch    the same hashes through cf_contains_batch;
 *   insert   n inserts into an empty filter (the expiring one's clock
 *            still: the kernel alone);
 *   batch insert   the same through cf_insert_batch (generations: the
 *            newest filter's slice);
 *   stream   steady state: each insert after cf_set_time(f, its time), the
 *            passes of eager expiry included (generations: a rotation when
 *            a slice ends; plain: the exact workaround, a queue of keys,
 *            each insert deleting the key written a window before it, in a
 *            table of as many buckets as the expiring one's, so as full as
 *            it is when a tick begins: 83% at the default target);
 *   stream sized n   the same, but the plain queue in a filter sized for
 *            the n items it holds, as its user would size it (95% full);
 *            the other columns repeat their stream figures;
 * and, from a stream of 4 windows, how each follows the window: the ages
 * (in windows) up to which every written item is found, and from which
 * written items answer no more often than absent keys; and the FPP on
 * absent keys.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bench_util.h"
#include "cuckoofilter.h"

#define MAX_ROUNDS 31
#define MAX_W 16

typedef struct opts {
    uint64_t n;
    double fpp;
    unsigned w, rounds;
} opts;

static cf_filter *new_filter_nb(uint64_t capacity, uint64_t nb, double fpp, unsigned fbits,
                                uint64_t expire) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = nb != 0 ? 0 : capacity;
    cfg.num_buckets = nb;
    cfg.target_fpp = fpp;
    cfg.fingerprint_bits = fbits;
    cfg.expire_after = expire;
    cf_filter *f;
    cf_status s = cf_new(&cfg, &f);
    if (s != CF_OK) {
        fprintf(stderr, "cf-expire-bench: cf_new: %s\n", cf_strerror(s));
        exit(2);
    }
    return f;
}

static cf_filter *new_filter(uint64_t capacity, double fpp, unsigned fbits, uint64_t expire) {
    return new_filter_nb(capacity, 0, fpp, fbits, expire);
}

static cf_stats stats_of(const cf_filter *f) {
    cf_stats st;
    cf_get_stats(f, &st);
    return st;
}

static size_t table_bytes(const cf_filter *f) {
    cf_stats st;
    cf_get_stats(f, &st);
    return st.table_bytes;
}

/* W plain filters, slice i covering times [i * slice, (i + 1) * slice):
 * the newest takes inserts; lookups ask all; when a slice ends, the oldest
 * filter is cleared and becomes the newest.  Items are kept at least
 * (W - 1) slices = one window, at most W slices. */
typedef struct generations {
    cf_filter *g[MAX_W];
    unsigned w, newest;
    uint64_t slice, current; /* the slice the newest filter holds */
} generations;

static void gen_init(generations *G, const opts *o, size_t budget) {
    G->w = o->w;
    G->slice = o->n / (o->w - 1);
    /* The widest fingerprints whose W tables fit in the budget. */
    unsigned f = 32;
    for (; f > 1; f--) {
        cf_filter *t = new_filter(G->slice + G->slice / 8, 0, f, 0);
        size_t bytes = table_bytes(t);
        cf_free(t);
        if (bytes * o->w <= budget) break;
    }
    for (unsigned i = 0; i < G->w; i++) G->g[i] = new_filter(G->slice + G->slice / 8, 0, f, 0);
    G->newest = 0;
    G->current = 0;
}

static void gen_free(generations *G) {
    for (unsigned i = 0; i < G->w; i++) cf_free(G->g[i]);
}

static void gen_set_time(generations *G, uint64_t now) {
    uint64_t s = now / G->slice;
    if (s - G->current >= G->w) { /* a jump past every slice */
        for (unsigned i = 0; i < G->w; i++) cf_clear(G->g[i]);
        G->current = s;
        return;
    }
    for (; G->current < s; G->current++) {
        G->newest = (G->newest + 1) % G->w;
        cf_clear(G->g[G->newest]);
    }
}

static cf_status gen_insert(generations *G, uint64_t h) {
    return cf_insert_hash(G->g[G->newest], h);
}

static bool gen_contains(const generations *G, uint64_t h) {
    bool hit = false;
    for (unsigned i = 0; i < G->w; i++) hit |= cf_contains_hash(G->g[i], h);
    return hit;
}

static size_t gen_bytes(const generations *G) {
    size_t b = 0;
    for (unsigned i = 0; i < G->w; i++) b += table_bytes(G->g[i]);
    return b;
}

/* ---- timing ---- */

typedef enum which { PLAIN, EXPIRING, GENS, NWHICH } which;
static const char *const names[NWHICH] = {"plain", "expiring", "generations"};
enum { T_LOOKUP, T_BATCH, T_INSERT, T_BATCH_INSERT, T_STREAM, T_STREAM_N, NT };
static const char *const tnames[NT] = {"lookup",       "batch lookup",  "insert",
                                       "batch insert", "stream insert", "stream sized n"};

static double samples[NWHICH][NT][MAX_ROUNDS];

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *v, unsigned n, double *lo, double *hi) {
    double s[MAX_ROUNDS];
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    *lo = s[0];
    *hi = s[n - 1];
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* The keys: hashes of a splitmix64 stream (the filters share seed 0). */
static uint64_t *make_hashes(uint64_t n, uint64_t seed) {
    uint64_t *h = malloc(n * sizeof *h);
    if (h == NULL) exit(2);
    bench_fill_keys(h, n, seed);
    for (uint64_t i = 0; i < n; i++) h[i] = cf_hash(NULL, &h[i], sizeof h[i]);
    return h;
}

/* ns per key of cf_insert_batch of the first n keys into f, which it
 * frees. */
static double time_batch_insert(cf_filter *f, const uint64_t *keys, uint64_t n) {
    double t0 = bench_thread_ns();
    if (cf_insert_batch(f, keys, n, NULL) != CF_OK) {
        fprintf(stderr, "cf-expire-bench: a batch insert failed\n");
        exit(1);
    }
    double t = (bench_thread_ns() - t0) / (double)n;
    cf_free(f);
    return t;
}

/* One round: each filter streams 2 windows (the timed steady state is the
 * second), then answers the mixed lookups; a fresh filter takes n inserts. */
static void round_once(const opts *o, unsigned r, const uint64_t *keys, const uint64_t *absent,
                       const uint64_t *mixed, bool *out, uint64_t plain_f) {
    uint64_t n = o->n;
    for (int which_ = 0; which_ < NWHICH; which_++) {
        int which = (which_ + (int)r) % NWHICH; /* rotate the order each round */
        cf_filter *f = NULL;
        generations G;
        double t0, t1;
        if (which == PLAIN) {
            f = new_filter(n, o->fpp, 0, 0);
            t0 = bench_thread_ns();
            for (uint64_t i = 0; i < n; i++) cf_insert_hash(f, keys[i]);
            samples[which][T_INSERT][r] = (bench_thread_ns() - t0) / (double)n;
            samples[which][T_BATCH_INSERT][r] =
                time_batch_insert(new_filter(n, o->fpp, 0, 0), keys, n);
            /* A plain filter's stream is the exact workaround: each insert
             * deletes the key written a window earlier (a queue of keys),
             * in as many buckets as the expiring filter's, then in a filter
             * sized for n. */
            cf_filter *x = new_filter(n, o->fpp, 0, n);
            uint64_t nb = stats_of(x).num_buckets;
            cf_free(x);
            for (int sized = 0; sized < 2; sized++) {
                cf_filter *q = new_filter_nb(n, sized ? 0 : nb, o->fpp, 0, 0);
                for (uint64_t i = 0; i < n; i++) cf_insert_hash(q, keys[i]);
                t0 = bench_thread_ns();
                for (uint64_t i = n; i < 2 * n; i++) {
                    cf_delete_hash(q, keys[i - n]);
                    cf_insert_hash(q, keys[i]);
                }
                samples[which][sized ? T_STREAM_N : T_STREAM][r] =
                    (bench_thread_ns() - t0) / (double)n;
                cf_free(q);
            }
        } else if (which == EXPIRING) {
            cf_filter *fresh = new_filter(n, o->fpp, 0, n);
            t0 = bench_thread_ns();
            for (uint64_t i = 0; i < n; i++) cf_insert_hash(fresh, keys[i]);
            samples[which][T_INSERT][r] = (bench_thread_ns() - t0) / (double)n;
            cf_free(fresh);
            samples[which][T_BATCH_INSERT][r] =
                time_batch_insert(new_filter(n, o->fpp, 0, n), keys, n);
            f = new_filter(n, o->fpp, 0, n);
            for (uint64_t i = 0; i < n; i++) cf_set_time(f, i), cf_insert_hash(f, keys[i]);
            t0 = bench_thread_ns();
            for (uint64_t i = n; i < 2 * n; i++) {
                cf_set_time(f, i);
                if (cf_insert_hash(f, keys[i]) != CF_OK) {
                    fprintf(stderr, "cf-expire-bench: the expiring filter filled\n");
                    exit(1);
                }
            }
            samples[which][T_STREAM][r] = samples[which][T_STREAM_N][r] =
                (bench_thread_ns() - t0) / (double)n;
        } else {
            cf_filter *e = new_filter(n, o->fpp, 0, n);
            gen_init(&G, o, table_bytes(e));
            cf_free(e);
            t0 = bench_thread_ns();
            for (uint64_t i = 0; i < G.slice; i++) gen_insert(&G, keys[i]);
            samples[which][T_INSERT][r] = (bench_thread_ns() - t0) / (double)G.slice;
            gen_free(&G);
            e = new_filter(n, o->fpp, 0, n);
            gen_init(&G, o, table_bytes(e));
            cf_free(e);
            cf_filter *newest = G.g[G.newest];
            G.g[G.newest] = NULL; /* time_batch_insert frees it */
            samples[which][T_BATCH_INSERT][r] = time_batch_insert(newest, keys, G.slice);
            gen_free(&G);
            e = new_filter(n, o->fpp, 0, n);
            gen_init(&G, o, table_bytes(e));
            cf_free(e);
            for (uint64_t i = 0; i < n; i++) gen_set_time(&G, i), gen_insert(&G, keys[i]);
            t0 = bench_thread_ns();
            for (uint64_t i = n; i < 2 * n; i++) {
                gen_set_time(&G, i);
                gen_insert(&G, keys[i]);
            }
            samples[which][T_STREAM][r] = samples[which][T_STREAM_N][r] =
                (bench_thread_ns() - t0) / (double)n;
        }
        (void)plain_f;
        /* Lookups: the plain filter holds keys[0, n); the others the last
         * window of the stream, keys[n, 2n); mixed[] draws half from those. */
        const uint64_t *live = which == PLAIN ? keys : keys + n;
        uint64_t sink = 0;
        t0 = bench_thread_ns();
        for (uint64_t i = 0; i < n; i++) {
            uint64_t h = (mixed[i] & 1) ? live[mixed[i] >> 1] : absent[mixed[i] >> 1];
            sink += which == GENS ? gen_contains(&G, h) : cf_contains_hash(f, h);
        }
        t1 = bench_thread_ns();
        samples[which][T_LOOKUP][r] = (t1 - t0) / (double)n;
        /* Batches: the same hashes, gathered first (not timed). */
        uint64_t *hs = malloc(n * sizeof *hs);
        if (hs == NULL) exit(2);
        for (uint64_t i = 0; i < n; i++)
            hs[i] = (mixed[i] & 1) ? live[mixed[i] >> 1] : absent[mixed[i] >> 1];
        t0 = bench_thread_ns();
        if (which == GENS) {
            for (unsigned g = 0; g < G.w; g++) sink += cf_contains_batch(G.g[g], hs, n, out);
        } else {
            sink += cf_contains_batch(f, hs, n, out);
        }
        samples[which][T_BATCH][r] = (bench_thread_ns() - t0) / (double)n;
        free(hs);
        bench_sink = sink;
        if (which == GENS)
            gen_free(&G);
        else
            cf_free(f);
    }
}

/* ---- accuracy: the FPP and how each follows the window ---- */

/* After a stream of 3 windows and `extra` items, the ages (in windows) of the written items:
 * found_to: every item younger than this is found; gone_from: items at
 * least this old are found at most as often as absent keys (checked in
 * bins of a hundredth of a window). */
typedef struct follow {
    double fpp, found_to, gone_from;
    size_t bytes;
} follow;

static follow measure_follow(const opts *o, which w, const uint64_t *keys, const uint64_t *absent,
                             uint64_t extra) {
    uint64_t n = o->n, total = 3 * n + extra;
    cf_filter *f = NULL;
    generations G;
    if (w == EXPIRING) {
        f = new_filter(n, o->fpp, 0, n);
    } else {
        cf_filter *e = new_filter(n, o->fpp, 0, n);
        gen_init(&G, o, table_bytes(e));
        cf_free(e);
    }
    for (uint64_t i = 0; i < total; i++) {
        if (w == EXPIRING) {
            cf_set_time(f, i);
            cf_insert_hash(f, keys[i]);
        } else {
            gen_set_time(&G, i);
            gen_insert(&G, keys[i]);
        }
    }
#define ASK(h) (w == EXPIRING ? cf_contains_hash(f, (h)) : gen_contains(&G, (h)))
    follow r = {0, 0, 0, w == EXPIRING ? table_bytes(f) : gen_bytes(&G)};
    uint64_t fp = 0;
    for (uint64_t i = 0; i < n; i++) fp += ASK(absent[i]);
    r.fpp = (double)fp / (double)n;
    /* Ages 0 .. 2 windows, youngest first, in bins of n / 100. */
    uint64_t bin = n / 100 ? n / 100 : 1;
    bool all = true;
    r.gone_from = 2.0;
    for (uint64_t age0 = 0; age0 + bin <= 2 * n; age0 += bin) {
        uint64_t found = 0;
        for (uint64_t a = age0; a < age0 + bin; a++) found += ASK(keys[total - 1 - a]);
        double rate = (double)found / (double)bin;
        if (all && found == bin) r.found_to = (double)(age0 + bin) / (double)n;
        if (found != bin) all = false;
        /* Within 5 standard deviations of the absent keys' rate: gone. */
        double sd = sqrt(r.fpp * (1 - r.fpp) / (double)bin);
        if (rate <= r.fpp + 5 * sd + 1.0 / (double)bin) {
            r.gone_from = (double)age0 / (double)n;
            break;
        }
    }
#undef ASK
    if (w == EXPIRING)
        cf_free(f);
    else
        gen_free(&G);
    return r;
}

static bool parse(int argc, char **argv, opts *o) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x;
        if (strcmp(a, "--quick") == 0) {
            o->n = 100000;
            o->rounds = 3;
        } else if (strcmp(a, "--n") == 0 && v && bench_parse_count(v, &x)) {
            o->n = x, i++;
        } else if (strcmp(a, "--fpp") == 0 && v) {
            o->fpp = strtod(v, NULL), i++;
            if (!(o->fpp > 0 && o->fpp < 1)) return false;
        } else if (strcmp(a, "--w") == 0 && v && bench_parse_count(v, &x) && x >= 2 && x <= MAX_W) {
            o->w = (unsigned)x, i++;
        } else if (strcmp(a, "--rounds") == 0 && v && bench_parse_count(v, &x) && x <= MAX_ROUNDS) {
            o->rounds = (unsigned)x, i++;
        } else {
            return false;
        }
    }
    return o->n >= 1000;
}

int main(int argc, char **argv) {
    opts o = {1000000, 0.001, 4, 5};
    if (!parse(argc, argv, &o)) {
        fprintf(stderr, "usage: cf-expire-bench [--n 1M] [--fpp 0.001] [--w 2..16] "
                        "[--rounds 1..31] [--quick]\n");
        return 2;
    }
    uint64_t n = o.n;
    uint64_t *keys = make_hashes(4 * n, 1), *absent = make_hashes(n, 2);
    uint64_t *mixed = malloc(n * sizeof *mixed); /* index << 1 | live */
    bool *out = malloc(n * sizeof *out);
    if (mixed == NULL || out == NULL) return 2;
    uint64_t rng = 3;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = bench_splitmix64(&rng);
        mixed[i] = (bench_below(r, n) << 1) | (r & 1);
    }
    cf_filter *p = new_filter(n, o.fpp, 0, 0), *e = new_filter(n, o.fpp, 0, n);
    cf_stats ps, es;
    cf_get_stats(p, &ps);
    cf_get_stats(e, &es);
    generations G;
    gen_init(&G, &o, es.table_bytes);
    cf_stats gs;
    cf_get_stats(G.g[0], &gs);
    printf("cf-expire-bench (%s): n = %llu items per window, target FPP %g, W = %u\n",
           BENCH_COMPILER, (unsigned long long)n, o.fpp, o.w);
    printf("  plain:       %u-bit fingerprints, %zu table bytes (%.2f bits per window item)\n",
           ps.fingerprint_bits, ps.table_bytes, ps.table_bytes * 8.0 / (double)n);
    printf("  expiring:    %u-bit fingerprints + %u-bit stamps, k = %u stamps of %llu units, "
           "%zu table bytes (%.2f bits per window item, %.3fx plain)\n",
           es.fingerprint_bits, es.stamp_bits, es.stamps, (unsigned long long)es.expire_span,
           es.table_bytes, es.table_bytes * 8.0 / (double)n,
           (double)es.table_bytes / (double)ps.table_bytes);
    printf("  generations: %u plain filters of %u-bit fingerprints, %zu table bytes\n", o.w,
           gs.fingerprint_bits, gen_bytes(&G));
    gen_free(&G);
    cf_free(p), cf_free(e);

    for (unsigned r = 0; r < o.rounds; r++) round_once(&o, r, keys, absent, mixed, out, 0);
    printf("\nns per operation, median of %u interleaved rounds [min, max] (thread CPU time)\n",
           o.rounds);
    printf("  %-14s %-24s %-24s %-24s  expiring/plain\n", "", names[0], names[1], names[2]);
    for (int t = 0; t < NT; t++) {
        double med[NWHICH];
        printf("  %-14s", tnames[t]);
        for (int w = 0; w < NWHICH; w++) {
            double lo, hi;
            med[w] = median_of(samples[w][t], o.rounds, &lo, &hi);
            char cell[64];
            snprintf(cell, sizeof cell, "%.1f [%.1f, %.1f]", med[w], lo, hi);
            printf(" %-24s", cell);
        }
        printf("  %.2f\n", med[EXPIRING] / med[PLAIN]);
    }
    printf("\nfollowing the window (a stream of 4 windows; ages in windows)\n");
    printf("  (the worst of 8 moments of the last window: every item is found up to the first\n"
           "   age, and none more often than absent keys from the second)\n");
    for (which w = EXPIRING; w <= GENS; w++) {
        follow worst = {0, 1e9, 0, 0};
        for (uint64_t j = 0; j < 8; j++) {
            follow fl = measure_follow(&o, w, keys, absent, n / 8 * j + n / 8);
            worst.fpp = fl.fpp > worst.fpp ? fl.fpp : worst.fpp;
            worst.found_to = fl.found_to < worst.found_to ? fl.found_to : worst.found_to;
            worst.gone_from = fl.gone_from > worst.gone_from ? fl.gone_from : worst.gone_from;
            worst.bytes = fl.bytes;
        }
        printf("  %-12s FPP %.5f (the highest), %zu bytes: found to age %.2f, gone from %.2f\n",
               names[w], worst.fpp, worst.bytes, worst.found_to, worst.gone_from);
    }
    free(keys), free(absent), free(mixed), free(out);
    return 0;
}
