/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * ab.c -- cf-ab: the same operations on two builds of the library (BASE and
 * HEAD, bench/ab.sh builds them), interleaved in one process, and each
 * operation's ratio HEAD / BASE.  The rule of docs/CONTRIBUTING.md: run it
 * before every merge that touches src/ or include/.
 *
 * For each table size nb (4 slots x 12 bits, filled to 95%), each round:
 *
 *   insert        cf_insert of n keys into a new filter (the fill)
 *   insert_batch  cf_hash + cf_insert_batch of the same keys into another
 *   contains      cf_contains of L present keys, then of L absent ones
 *   contains_hash cf_contains_hash of the same keys' hashes (hashed untimed)
 *   batch         cf_contains_batch of those hashes
 *   delete        cf_delete of L inserted keys
 *
 * Then, for each --grown count N, the same phases (insert_batch aside) on
 * CF_GROW filters created for 1,000 keys at 1% and fed N keys: a chain,
 * and one table doubled in place (the insert phase includes the growth).
 *
 * every phase runs on BASE and on HEAD back to back, the first of the two
 * alternating by round, so both see the same machine within a second.  A
 * phase shorter than ~2M operations (inserts into a small table) repeats
 * within its sample.  Reported: medians over the rounds in ns per operation,
 * and the median and range of the rounds' own ratios HEAD / BASE (each
 * round's pair ran back to back, so a loaded moment slows both: the median
 * of the pairs' ratios is steadier than the ratio of the medians); a median
 * ratio above the limit (1.10) is flagged and makes the exit status 1.
 * Both sides must find every present key (a lost item exits 2).
 *
 * Keys are splitmix64 outputs of their index, computed in the timed loops
 * (the same few instructions for both sides).
 */
#include "ab/ab_side.h"
#include "common/bench_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AB_LOAD 0.95
#define AB_FP_BITS 12
#define AB_MAX_NB 8
#define AB_MAX_ROUNDS 31
#define AB_MIN_OPS 2000000 /* operations a sample should span */
#define AB_KEY_CHUNK 4096  /* keys generated per insert_batch call */
#define AB_LIMIT 1.10
#define AB_SEED 42

typedef enum ab_op {
    OP_INSERT,
    OP_INSERT_BATCH,
    OP_POS,
    OP_NEG,
    OP_POS_HASH,
    OP_NEG_HASH,
    OP_POS_BATCH,
    OP_NEG_BATCH,
    OP_DELETE,
    OP_COUNT
} ab_op;

static const char *const op_names[OP_COUNT] = {"insert",
                                               "insert_batch",
                                               "contains present",
                                               "contains absent",
                                               "contains_hash present",
                                               "contains_hash absent",
                                               "contains_batch present",
                                               "contains_batch absent",
                                               "delete"};

enum { BASE, HEAD, SIDES };
static const ab_side *const sides[SIDES] = {&ab_side_base, &ab_side_head};

typedef struct ab_opts {
    uint64_t nb[AB_MAX_NB], grown[AB_MAX_NB];
    size_t n_nb, n_grown;
    unsigned rounds;
    uint64_t lookups;
    const char *names[SIDES];
    bool no_fail;
} ab_opts;

/* ns per operation, [op][side][round]. */
static double samples[OP_COUNT][SIDES][AB_MAX_ROUNDS];

/* The i-th present key; absent keys come from another stream. */
static inline uint64_t key_at(uint64_t stream, uint64_t i) {
    uint64_t s = stream + i * 0x9e3779b97f4a7c15ull;
    return bench_splitmix64(&s);
}
#define PRESENT 0x0123456789abcdefull
#define ABSENT 0xfedcba9876543210ull

__attribute__((noinline)) static double phase_insert(const ab_side *s, struct cf_filter *f,
                                                     uint64_t n, uint64_t *failed) {
    double t0 = bench_now_ns();
    uint64_t bad = 0;
    for (uint64_t i = 0; i < n; i++) bad += !s->insert(f, key_at(PRESENT, i));
    double t = bench_now_ns() - t0;
    *failed += bad;
    return t;
}

__attribute__((noinline)) static double phase_insert_batch(const ab_side *s, struct cf_filter *f,
                                                           uint64_t n, uint64_t *failed) {
    uint64_t keys[AB_KEY_CHUNK];
    double t0 = bench_now_ns();
    uint64_t stored = 0;
    for (uint64_t i = 0; i < n; i += AB_KEY_CHUNK) {
        size_t m = n - i < AB_KEY_CHUNK ? (size_t)(n - i) : AB_KEY_CHUNK;
        for (size_t j = 0; j < m; j++) keys[j] = key_at(PRESENT, i + j);
        stored += s->insert_keys_batch(f, keys, m);
    }
    double t = bench_now_ns() - t0;
    *failed += n - stored;
    return t;
}

__attribute__((noinline)) static double phase_contains(const ab_side *s, const struct cf_filter *f,
                                                       const uint64_t *keys, uint64_t n,
                                                       uint64_t *hits) {
    double t0 = bench_now_ns();
    uint64_t h = 0;
    for (uint64_t i = 0; i < n; i++) h += s->contains(f, keys[i]);
    double t = bench_now_ns() - t0;
    *hits = h;
    return t;
}

__attribute__((noinline)) static double phase_contains_hash(const ab_side *s,
                                                            const struct cf_filter *f,
                                                            const uint64_t *hashes, uint64_t n,
                                                            uint64_t *hits) {
    double t0 = bench_now_ns();
    uint64_t h = 0;
    for (uint64_t i = 0; i < n; i++) h += s->contains_hash(f, hashes[i]);
    double t = bench_now_ns() - t0;
    *hits = h;
    return t;
}

__attribute__((noinline)) static double phase_batch(const ab_side *s, const struct cf_filter *f,
                                                    const uint64_t *hashes, uint64_t n, bool *out,
                                                    uint64_t *hits) {
    double t0 = bench_now_ns();
    uint64_t h = s->contains_batch(f, hashes, n, out);
    double t = bench_now_ns() - t0;
    *hits = h;
    return t;
}

__attribute__((noinline)) static double phase_delete(const ab_side *s, struct cf_filter *f,
                                                     uint64_t d, uint64_t *failed) {
    double t0 = bench_now_ns();
    uint64_t bad = 0;
    for (uint64_t i = 0; i < d; i++) bad += !s->remove(f, key_at(PRESENT, i));
    double t = bench_now_ns() - t0;
    *failed += bad;
    return t;
}

static void die(const char *what) {
    fprintf(stderr, "cf-ab: %s\n", what);
    exit(2);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (p == NULL) die("out of memory");
    return p;
}

/* What a round fills: a table of nb buckets, or a growing filter. */
enum { AB_TABLE, AB_CHAIN, AB_INPLACE };

typedef struct ab_round_data {
    int kind; /* AB_TABLE, AB_CHAIN or AB_INPLACE */
    uint64_t nb, n, lookups, inner;
    uint64_t *pos_keys, *neg_keys, *hashes[SIDES][2]; /* [side][present, absent] */
    bool *out;
    uint64_t fp_hits[SIDES]; /* absent keys found, per side */
} ab_round_data;

static struct cf_filter *make_filter(const ab_side *s, const ab_round_data *d) {
    struct cf_filter *f = d->kind == AB_TABLE ? s->make(d->nb, AB_FP_BITS, AB_SEED)
                                              : s->make_grown(d->kind == AB_INPLACE, AB_SEED);
    if (f == NULL) die("cannot create a filter (memory?)");
    return f;
}

/* One side's whole round; `filter` keeps the fill for the lookups. */
static struct cf_filter *fill(int side, ab_round_data *d, unsigned r) {
    const ab_side *s = sides[side];
    struct cf_filter *f = NULL;
    double t = 0;
    uint64_t failed = 0;
    for (uint64_t k = 0; k < d->inner; k++) {
        if (f != NULL) s->free(f);
        f = make_filter(s, d);
        t += phase_insert(s, f, d->n, &failed);
    }
    if (failed) die("an insert failed (below 95% load, or a growing filter)");
    samples[OP_INSERT][side][r] = t / (double)(d->n * d->inner);
    return f;
}

static void fill_batch(int side, ab_round_data *d, unsigned r) {
    const ab_side *s = sides[side];
    double t = 0;
    uint64_t failed = 0;
    for (uint64_t k = 0; k < d->inner; k++) {
        struct cf_filter *f = make_filter(s, d);
        t += phase_insert_batch(s, f, d->n, &failed);
        s->free(f);
    }
    if (failed) die("a batched insert failed below 95% load");
    samples[OP_INSERT_BATCH][side][r] = t / (double)(d->n * d->inner);
}

static void lookups(int side, ab_round_data *d, struct cf_filter *f, unsigned r) {
    const ab_side *s = sides[side];
    uint64_t L = d->lookups, hits;
    for (uint64_t i = 0; i < L; i++) {
        d->hashes[side][0][i] = s->hash(f, d->pos_keys[i]);
        d->hashes[side][1][i] = s->hash(f, d->neg_keys[i]);
    }
    samples[OP_POS][side][r] = phase_contains(s, f, d->pos_keys, L, &hits) / (double)L;
    if (hits != L) die("cf_contains missed a present key");
    samples[OP_NEG][side][r] = phase_contains(s, f, d->neg_keys, L, &hits) / (double)L;
    d->fp_hits[side] += hits;
    samples[OP_POS_HASH][side][r] =
        phase_contains_hash(s, f, d->hashes[side][0], L, &hits) / (double)L;
    if (hits != L) die("cf_contains_hash missed a present key");
    samples[OP_NEG_HASH][side][r] =
        phase_contains_hash(s, f, d->hashes[side][1], L, &hits) / (double)L;
    samples[OP_POS_BATCH][side][r] =
        phase_batch(s, f, d->hashes[side][0], L, d->out, &hits) / (double)L;
    if (hits != L) die("cf_contains_batch missed a present key");
    samples[OP_NEG_BATCH][side][r] =
        phase_batch(s, f, d->hashes[side][1], L, d->out, &hits) / (double)L;
}

/* Deletes min(L, n) keys, reinserting them between repetitions (untimed) so
 * every repetition deletes present keys.  A chain deletes once: it inserts
 * into its newest table only, so each delete-and-reinsert cycle of all its
 * keys fills a new table, and enough of them (L / n of them at small n)
 * reach the chain's table limit, where an insert is refused (CF_E_FULL, as
 * the library documents for CF_GROW). */
static void deletes(int side, ab_round_data *d, struct cf_filter *f, unsigned r) {
    const ab_side *s = sides[side];
    uint64_t del = d->lookups < d->n ? d->lookups : d->n;
    uint64_t reps = d->kind == AB_CHAIN ? 1 : (d->lookups + del - 1) / del, failed = 0;
    double t = 0;
    for (uint64_t k = 0; k < reps; k++) {
        if (k > 0)
            for (uint64_t i = 0; i < del; i++)
                if (!s->insert(f, key_at(PRESENT, i))) die("a reinsert after deletes failed");
        t += phase_delete(s, f, del, &failed);
    }
    if (failed) die("a delete of a present key failed");
    samples[OP_DELETE][side][r] = t / (double)(del * reps);
}

/* Runs every round of d (kind, nb or n set) and prints the table; the
 * number of operations flagged.  title names what was filled. */
static int run(const ab_opts *o, ab_round_data d, const char *title) {
    d.lookups = o->lookups;
    d.inner = d.n >= AB_MIN_OPS ? 1 : (AB_MIN_OPS + d.n - 1) / d.n;
    /* A grown table: at most 32 bits a slot at 47.5% load. */
    double table =
        d.kind == AB_TABLE ? (double)d.nb * 4 * AB_FP_BITS / 8 : (double)d.n * 32 / 8 / 0.475;
    double need = 3 * table + (double)d.lookups * (2 * 8 + 4 * 8 + 1);
    if (need > 0.8 * bench_available_bytes()) {
        printf("== %s: skipped, needs %.0f MB\n", title, need / 1e6);
        return 0;
    }
    d.pos_keys = xmalloc(d.lookups * sizeof(uint64_t));
    d.neg_keys = xmalloc(d.lookups * sizeof(uint64_t));
    for (int side = 0; side < SIDES; side++)
        for (int k = 0; k < 2; k++) d.hashes[side][k] = xmalloc(d.lookups * sizeof(uint64_t));
    d.out = xmalloc(d.lookups * sizeof(bool));
    uint64_t rng = 0x9e3779b97f4a7c15ull ^ d.nb ^ d.n;
    for (uint64_t i = 0; i < d.lookups; i++) {
        d.pos_keys[i] = key_at(PRESENT, bench_below(bench_xorshift64s(&rng), d.n));
        d.neg_keys[i] = key_at(ABSENT, i);
    }

    for (unsigned r = 0; r < o->rounds; r++) {
        int order[SIDES] = {(int)(r % 2), (int)(1 - r % 2)};
        struct cf_filter *f[SIDES];
        for (int k = 0; k < SIDES; k++) f[order[k]] = fill(order[k], &d, r);
        if (d.kind == AB_TABLE)
            for (int k = 0; k < SIDES; k++) fill_batch(order[k], &d, r);
        for (int k = 0; k < SIDES; k++) lookups(order[k], &d, f[order[k]], r);
        for (int k = 0; k < SIDES; k++) deletes(order[k], &d, f[order[k]], r);
        for (int side = 0; side < SIDES; side++) sides[side]->free(f[side]);
        fprintf(stderr, "cf-ab: %s: round %u/%u done\n", title, r + 1, o->rounds);
    }

    printf("== %s, %" PRIu64 " lookups and deletes per phase, medians of %u rounds ==\n", title,
           d.lookups, o->rounds);
    printf("%-24s %10s %10s %10s  %-15s\n", "ns per operation (medians)", o->names[BASE],
           o->names[HEAD], "head/base", "rounds' range");
    int flagged = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        if (op == OP_INSERT_BATCH && d.kind != AB_TABLE) continue;
        double ratios[AB_MAX_ROUNDS], lo = 1e300, hi = 0;
        for (unsigned r = 0; r < o->rounds; r++) {
            ratios[r] = samples[op][HEAD][r] / samples[op][BASE][r];
            lo = ratios[r] < lo ? ratios[r] : lo;
            hi = ratios[r] > hi ? ratios[r] : hi;
        }
        double b = bench_median(samples[op][BASE], o->rounds);
        double h = bench_median(samples[op][HEAD], o->rounds);
        double ratio = bench_median(ratios, o->rounds);
        bool slow = ratio > AB_LIMIT;
        flagged += slow;
        printf("%-24s %10.1f %10.1f %10.2f  %5.2f - %5.2f %s\n", op_names[op], b, h, ratio, lo, hi,
               slow ? "  SLOWER (> 1.10)" : "");
    }
    printf("absent keys found (false positives): base %.4f%%, head %.4f%%\n\n",
           100.0 * (double)d.fp_hits[BASE] / (double)(d.lookups * o->rounds),
           100.0 * (double)d.fp_hits[HEAD] / (double)(d.lookups * o->rounds));
    free(d.pos_keys);
    free(d.neg_keys);
    for (int side = 0; side < SIDES; side++)
        for (int k = 0; k < 2; k++) free(d.hashes[side][k]);
    free(d.out);
    fflush(stdout); /* each size's table as soon as it is done */
    return flagged;
}

static int run_size(const ab_opts *o, uint64_t nb) {
    ab_round_data d = {.kind = AB_TABLE, .nb = nb, .n = (uint64_t)(AB_LOAD * (double)(nb * 4))};
    char title[160];
    snprintf(title, sizeof title,
             "nb = %" PRIu64 " buckets x 4 x %d bits (%.1f MB), %" PRIu64 " keys (95%%)", nb,
             AB_FP_BITS, (double)nb * 4 * AB_FP_BITS / 8 / 1e6, d.n);
    return run(o, d, title);
}

/* Both growth modes fed n keys; a mode one side's library lacks is
 * skipped (the report says so). */
static int run_grown(const ab_opts *o, uint64_t n) {
    int flagged = 0;
    for (int kind = AB_CHAIN; kind <= AB_INPLACE; kind++) {
        const char *mode = kind == AB_INPLACE ? "in place" : "a chain";
        char title[160];
        snprintf(title, sizeof title,
                 "CF_GROW, %s: created for %d keys at %g%%, fed %" PRIu64 " keys", mode,
                 AB_GROWN_CAPACITY, 100 * AB_GROWN_FPP, n);
        bool both = true;
        for (int side = 0; side < SIDES; side++) {
            struct cf_filter *f = sides[side]->make_grown(kind == AB_INPLACE, AB_SEED);
            both = both && f != NULL;
            if (f != NULL) sides[side]->free(f);
        }
        if (!both) {
            printf("== %s: skipped, a side's library has no such filter\n\n", title);
            continue;
        }
        flagged += run(o, (ab_round_data){.kind = kind, .n = n}, title);
    }
    return flagged;
}

static void usage(FILE *out) {
    fprintf(out,
            "usage: cf-ab [options]   (bench/ab.sh builds it; run that)\n"
            "  --nb LIST        table sizes in buckets, 2^K or a number (default 2^14,2^25:\n"
            "                   in cache and a 201 MB table)\n"
            "  --rounds R       rounds, medians reported (default 5, max %d)\n"
            "  --grown LIST     key counts fed to growing filters created for 1,000 keys\n"
            "                   at 1%%, a chain and in place (default 2^20; 'none')\n"
            "  --lookups L      keys per lookup and delete phase (default 2M)\n"
            "  --names B,H      the two sides' names in the report (default base,head)\n"
            "  --no-fail        exit 0 even when a ratio is above %.2f\n",
            AB_MAX_ROUNDS, AB_LIMIT);
}

static bool parse_nb(const char *s, uint64_t *out) {
    if (s[0] == '2' && s[1] == '^') {
        char *end;
        unsigned long k = strtoul(s + 2, &end, 10);
        if (*end != '\0' || k < 6 || k > 34) return false;
        *out = 1ull << k;
        return true;
    }
    return bench_parse_count(s, out) && *out >= 64;
}

static void parse(int argc, char **argv, ab_opts *o) {
    static char names[256];
    o->nb[0] = 1ull << 14;
    o->nb[1] = 1ull << 25;
    o->n_nb = 2;
    o->grown[0] = 1ull << 20;
    o->n_grown = 1;
    o->rounds = 5;
    o->lookups = 2000000;
    o->names[BASE] = "base";
    o->names[HEAD] = "head";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x;
        if (strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--no-fail") == 0) {
            o->no_fail = true;
        } else if (v != NULL && strcmp(a, "--rounds") == 0) {
            if (!bench_parse_count(v, &x) || x > AB_MAX_ROUNDS) die("--rounds wants 1..31");
            o->rounds = (unsigned)x;
            i++;
        } else if (v != NULL && strcmp(a, "--lookups") == 0) {
            if (!bench_parse_count(v, &x) || x > 1000000000) die("--lookups wants 1..1G");
            o->lookups = x;
            i++;
        } else if (v != NULL && strcmp(a, "--names") == 0) {
            snprintf(names, sizeof names, "%s", v);
            char *comma = strchr(names, ',');
            if (comma == NULL) die("--names wants BASE,HEAD");
            *comma = '\0';
            o->names[BASE] = names;
            o->names[HEAD] = comma + 1;
            i++;
        } else if (v != NULL && strcmp(a, "--grown") == 0) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            o->n_grown = 0;
            for (char *t = strtok(buf, ","); strcmp(v, "none") != 0 && t != NULL;
                 t = strtok(NULL, ",")) {
                if (o->n_grown == AB_MAX_NB || !parse_nb(t, &o->grown[o->n_grown]))
                    die("--grown wants up to 8 key counts of 64 or more, as 2^K or a number, or "
                        "'none'");
                o->n_grown++;
            }
            i++;
        } else if (v != NULL && strcmp(a, "--nb") == 0) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            o->n_nb = 0;
            for (char *t = strtok(buf, ","); t != NULL; t = strtok(NULL, ",")) {
                if (o->n_nb == AB_MAX_NB || !parse_nb(t, &o->nb[o->n_nb]))
                    die("--nb wants up to 8 sizes of 64 buckets or more, as 2^K or a number");
                o->n_nb++;
            }
            i++;
        } else {
            usage(stderr);
            exit(2);
        }
    }
}

int main(int argc, char **argv) {
    ab_opts o = {0};
    parse(argc, argv, &o);
    printf("cf-ab: %s (BASE) against %s (HEAD), both built by bench/ab.sh with %s\n", o.names[BASE],
           o.names[HEAD], BENCH_COMPILER);
    int flagged = 0;
    for (size_t k = 0; k < o.n_nb; k++) flagged += run_size(&o, o.nb[k]);
    for (size_t k = 0; k < o.n_grown; k++) flagged += run_grown(&o, o.grown[k]);
    if (flagged) printf("cf-ab: %d operation(s) of HEAD above %.2fx BASE\n", flagged, AB_LIMIT);
    return flagged && !o.no_fail ? 1 : 0;
}
