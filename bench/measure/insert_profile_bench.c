/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * insert_profile_bench.c -- cf-insert-profile: where a single insert's time
 * goes while a filter sized for N keys fills to its 95% (issue 34's open
 * target: single inserts within 1.3x the prefix filter's at 2^26 keys).
 *
 *   cf-insert-profile [--n N] [--fpp P] [--windows W] [--rounds R]
 *
 * A filter created for capacity N at target FPP P (default 0.002, the
 * field's harness's setting: 12-bit fingerprints in buckets of 4) takes N
 * random hashes by cf_insert_hash, as the field's harness calls it, in W
 * windows of N / W keys (default 20), each timed as one loop: ns per insert
 * and fingerprints moved (cf_stats.total_kicks) per insert at each load.
 * Then the same keys into a new filter, each insert timed alone (a clock
 * read on each side, its own cost taken off) and classed by how many
 * fingerprints it moved: an insert that moves k waited for k + 1 reads of
 * buckets it could not know before the previous read arrived (its own two,
 * then one level of the eviction search per move), so in a table past the
 * caches each class costs about k + 1 memory round trips, and nothing a
 * caller does can overlap them.  Printed per class: its share of the
 * inserts, its mean time alone, and what it adds to the fill's average
 * over the no-move class.  (In a table in cache an insert takes less than
 * the clock reads around it, so the classes' times mean little there.)  Medians of R rounds (default 3), keys from
 * splitmix64 seed 42 (bench_fill_keys); exits 1 if an insert fails.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bench_util.h"
#include "cuckoofilter.h"

#define MAX_WINDOWS 100
#define MAX_ROUNDS 15
#define CLASSES 4 /* 0, 1, 2 and 3+ fingerprints moved */

typedef struct profile {
    double window_ns[MAX_WINDOWS];    /* ns per insert in each window */
    double window_kicks[MAX_WINDOWS]; /* fingerprints moved per insert */
    double fill_ns;                   /* ns per insert over the whole fill */
    double class_share[CLASSES];      /* of all N inserts */
    double class_ns[CLASSES];         /* mean ns of one insert, timed alone */
} profile;

static cf_filter *sized_filter(uint64_t n, double fpp) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = n;
    cfg.target_fpp = fpp;
    cf_filter *f = NULL;
    cf_status s = cf_new(&cfg, &f);
    if (s != CF_OK) {
        fprintf(stderr, "cf-insert-profile: cf_new: %s\n", cf_strerror(s));
        exit(2);
    }
    return f;
}

static uint64_t kicks_of(const cf_filter *f) {
    cf_stats st;
    return cf_get_stats(f, &st) == CF_OK ? st.total_kicks : 0;
}

static void insert_or_die(cf_filter *f, uint64_t h, uint64_t i) {
    cf_status s = cf_insert_hash(f, h);
    if (s == CF_OK) return;
    fprintf(stderr, "cf-insert-profile: insert %llu failed: %s\n", (unsigned long long)i,
            cf_strerror(s));
    exit(1);
}

/* What two clock reads cost with nothing between them (a median). */
static double clock_cost_ns(void) {
    double v[1001];
    for (size_t i = 0; i < 1001; i++) {
        double a = bench_now_ns();
        v[i] = bench_now_ns() - a;
    }
    return bench_median(v, 1001);
}

static void profile_round(const uint64_t *keys, uint64_t n, double fpp, unsigned windows,
                          double clock_ns, profile *p) {
    cf_filter *f = sized_filter(n, fpp);
    double total = 0;
    for (unsigned w = 0; w < windows; w++) {
        uint64_t from = n * w / windows, to = n * (w + 1) / windows, k0 = kicks_of(f);
        double t0 = bench_now_ns();
        for (uint64_t i = from; i < to; i++) insert_or_die(f, keys[i], i);
        double ns = bench_now_ns() - t0;
        total += ns;
        p->window_ns[w] = ns / (double)(to - from);
        p->window_kicks[w] = (double)(kicks_of(f) - k0) / (double)(to - from);
    }
    p->fill_ns = total / (double)n;
    cf_free(f);

    f = sized_filter(n, fpp);
    double sum[CLASSES] = {0};
    uint64_t count[CLASSES] = {0}, kicks = 0;
    for (uint64_t i = 0; i < n; i++) {
        double t0 = bench_now_ns();
        insert_or_die(f, keys[i], i);
        double ns = bench_now_ns() - t0 - clock_ns;
        uint64_t now = kicks_of(f), moved = now - kicks;
        kicks = now;
        unsigned c = moved < CLASSES ? (unsigned)moved : CLASSES - 1;
        sum[c] += ns;
        count[c]++;
    }
    for (unsigned c = 0; c < CLASSES; c++) {
        p->class_share[c] = (double)count[c] / (double)n;
        p->class_ns[c] = count[c] ? sum[c] / (double)count[c] : 0;
    }
    cf_free(f);
}

/* The median over rounds of the double at byte offset `at` of each profile. */
static double median_of(const profile *ps, unsigned rounds, size_t at) {
    double v[MAX_ROUNDS];
    for (unsigned r = 0; r < rounds; r++) memcpy(&v[r], (const char *)&ps[r] + at, sizeof v[r]);
    return bench_median(v, rounds);
}

#define MEDIAN(field) median_of(ps, rounds, offsetof(profile, field))

static int usage(void) {
    fprintf(stderr,
            "usage: cf-insert-profile [--n N] [--fpp P] [--windows W (1-%d)] [--rounds R (1-%d)]\n",
            MAX_WINDOWS, MAX_ROUNDS);
    return 2;
}

int main(int argc, char **argv) {
    uint64_t n = 1u << 20, count;
    double fpp = 0.002;
    unsigned windows = 20, rounds = 3;
    for (int i = 1; i < argc; i += 2) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (v == NULL) return usage();
        if (strcmp(argv[i], "--n") == 0 && bench_parse_count(v, &n)) {
        } else if (strcmp(argv[i], "--fpp") == 0 && (fpp = strtod(v, &end)) > 0 && fpp < 1 &&
                   *end == '\0') {
        } else if (strcmp(argv[i], "--windows") == 0 && bench_parse_count(v, &count) &&
                   count <= MAX_WINDOWS) {
            windows = (unsigned)count;
        } else if (strcmp(argv[i], "--rounds") == 0 && bench_parse_count(v, &count) &&
                   count <= MAX_ROUNDS) {
            rounds = (unsigned)count;
        } else {
            return usage();
        }
    }
    if (n < windows) return usage();
    if ((double)n * 8 * 2 > bench_available_bytes()) {
        fprintf(stderr, "cf-insert-profile: not enough free memory for %llu keys\n",
                (unsigned long long)n);
        return 2;
    }
    uint64_t *keys = malloc(n * sizeof *keys);
    profile *ps = calloc(rounds, sizeof *ps);
    if (keys == NULL || ps == NULL) return 2;
    bench_fill_keys(keys, n, 42);

    cf_filter *shape = sized_filter(n, fpp);
    cf_stats st;
    cf_get_stats(shape, &st);
    printf("cf-insert-profile: %llu keys into a filter sized for them at FPP %g: %u-bit "
           "fingerprints, %llu buckets of %u (%.1f MB), cf_insert_hash; %s; %u round%s (medians)\n",
           (unsigned long long)n, fpp, st.fingerprint_bits, (unsigned long long)st.num_buckets,
           st.bucket_size, (double)st.table_bytes / 1e6, BENCH_COMPILER, rounds,
           rounds == 1 ? "" : "s");
    double slots = (double)st.slots;
    cf_free(shape);

    double clock_ns = clock_cost_ns();
    for (unsigned r = 0; r < rounds; r++) profile_round(keys, n, fpp, windows, clock_ns, &ps[r]);

    printf("\nload (after the window)   ns per insert   moved per insert\n");
    for (unsigned w = 0; w < windows; w++)
        printf("%9.3f                %13.1f   %16.3f\n", (double)(n * (w + 1) / windows) / slots,
               MEDIAN(window_ns[w]), MEDIAN(window_kicks[w]));
    double fill = MEDIAN(fill_ns);
    printf("whole fill               %13.1f\n", fill);

    printf("\ninserts timed one at a time (clock reads' own %.1f ns taken off), by "
           "fingerprints moved:\nmoved   share of inserts   ns each   adds to the average\n",
           clock_ns);
    double base = MEDIAN(class_ns[0]), added = 0;
    for (unsigned c = 0; c < CLASSES; c++) {
        double share = MEDIAN(class_share[c]), ns = MEDIAN(class_ns[c]);
        double adds = c == 0 ? 0 : share * (ns - base);
        added += adds;
        printf("%4u%s   %16.4f   %7.1f   %19.1f\n", c, c == CLASSES - 1 ? "+" : " ", share, ns,
               adds);
    }
    printf("the moves add %.1f ns to every insert's average, %.0f%% of the fill's %.1f\n", added,
           100 * added / fill, fill);
    free(keys);
    free(ps);
    return 0;
}
