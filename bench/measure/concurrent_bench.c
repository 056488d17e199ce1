/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * concurrent_bench.c -- cf-concurrent-bench: a CF_CONCURRENT filter against
 * the same plain filter behind a pthread mutex and behind a rwlock, in one
 * run (public API only).
 *
 *   1. One thread: ns per lookup (half present keys) and per insert (to 95%
 *      load) of the plain filter and of the concurrent one, and their ratio
 *      (the cost of the flag when there is no contention): ROUNDS rounds,
 *      each timing the two filters back to back (in alternating order), and
 *      the medians of the times and of the rounds' ratios, which a loaded
 *      moment of the shared machine moves less than a best-of or a mean.
 *   2. Lookups per second with 1, 2, 4 and 8 reader threads, with no writer
 *      and with one more thread churning (deleting and re-inserting its own
 *      keys, so evictions keep moving items), for each of the three ways of
 *      sharing the filter.  The table is kept at 90% load.
 *
 * Usage: cf-concurrent-bench [N] [SECONDS] [--one] [--rounds R] [--phase-ops F]
 * N items of capacity (default 4M), SECONDS per throughput measurement
 * (default 0.3); --one stops after the one-thread part; R one-thread rounds
 * (default 11); F receives "phase,operations" lines for the one-thread
 * loops (phase_* functions), which bench/callgrind.sh --concurrent divides
 * the instructions by.
 */

#include "common/bench_util.h"

#include <cuckoofilter.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef enum { MODE_CONCURRENT, MODE_MUTEX, MODE_RWLOCK } mode;
static const char *const mode_names[] = {"CF_CONCURRENT", "mutex", "rwlock"};

typedef struct shared {
    mode m;
    cf_filter *f;
    pthread_mutex_t mutex;
    pthread_rwlock_t rwlock;
    const uint64_t *keys; /* stable keys [0, stable), then the writer's keys */
    uint64_t stable, churn;
    atomic_bool stop;
    _Atomic uint64_t lookups, writes;
} shared;

static cf_filter *make(uint64_t n, unsigned flags) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = n;
    cfg.fingerprint_bits = 12;
    cfg.flags = flags;
    cf_filter *f = NULL;
    if (cf_new(&cfg, &f) != CF_OK) {
        fprintf(stderr, "cf_new failed\n");
        exit(1);
    }
    return f;
}

static bool lookup(shared *s, uint64_t key) {
    switch (s->m) {
    case MODE_MUTEX: {
        pthread_mutex_lock(&s->mutex);
        bool r = cf_contains(s->f, &key, sizeof key);
        pthread_mutex_unlock(&s->mutex);
        return r;
    }
    case MODE_RWLOCK: {
        pthread_rwlock_rdlock(&s->rwlock);
        bool r = cf_contains(s->f, &key, sizeof key);
        pthread_rwlock_unlock(&s->rwlock);
        return r;
    }
    default: return cf_contains(s->f, &key, sizeof key);
    }
}

static cf_status write_op(shared *s, uint64_t key, bool insert) {
    if (s->m == MODE_MUTEX) pthread_mutex_lock(&s->mutex);
    if (s->m == MODE_RWLOCK) pthread_rwlock_wrlock(&s->rwlock);
    cf_status st = insert ? cf_insert(s->f, &key, sizeof key) : cf_delete(s->f, &key, sizeof key);
    if (s->m == MODE_MUTEX) pthread_mutex_unlock(&s->mutex);
    if (s->m == MODE_RWLOCK) pthread_rwlock_unlock(&s->rwlock);
    return st;
}

static void *reader_main(void *arg) {
    shared *s = arg;
    uint64_t rng = (uint64_t)(uintptr_t)&rng, n = 0, hits = 0;
    while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
        for (int i = 0; i < 256; i++) {
            /* Half stable keys (present), half keys never inserted. */
            uint64_t r = bench_splitmix64(&rng);
            hits += lookup(s, r & 1 ? s->keys[(r >> 1) % s->stable] : r | 1);
        }
        n += 256;
    }
    bench_sink += hits;
    atomic_fetch_add(&s->lookups, n);
    return NULL;
}

/* Deletes and re-inserts its own keys, oldest first. */
static void *writer_main(void *arg) {
    shared *s = arg;
    const uint64_t *own = s->keys + s->stable;
    uint64_t n = 0;
    for (uint64_t i = 0; !atomic_load_explicit(&s->stop, memory_order_relaxed); i++) {
        uint64_t k = own[i % s->churn];
        if (write_op(s, k, false) == CF_OK) write_op(s, k, true);
        n += 2;
    }
    atomic_fetch_add(&s->writes, n);
    return NULL;
}

/* This thread's CPU time in ns: on a machine shared with other work, the
 * one-thread ratios are taken from CPU time rather than wall time. */
static double cpu_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void sleep_seconds(double sec) {
    struct timespec ts = {(time_t)sec, (long)((sec - (double)(time_t)sec) * 1e9)};
    nanosleep(&ts, NULL);
}

static double process_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Lookups per second with `readers` threads (and a writer if asked); *cores
 * is the CPU time the process got per second, which on a shared machine
 * says how much of the two cores the run really had. */
static double throughput(shared *s, unsigned readers, bool writer, double sec, double *writes,
                         double *cores) {
    pthread_t th[9];
    atomic_store(&s->stop, false);
    atomic_store(&s->lookups, 0);
    atomic_store(&s->writes, 0);
    double c0 = process_cpu_ns(), t0 = bench_now_ns();
    for (unsigned i = 0; i < readers; i++) pthread_create(&th[i], NULL, reader_main, s);
    if (writer) pthread_create(&th[readers], NULL, writer_main, s);
    sleep_seconds(sec);
    atomic_store(&s->stop, true);
    for (unsigned i = 0; i < readers + writer; i++) pthread_join(th[i], NULL);
    double dt = (bench_now_ns() - t0) / 1e9;
    *cores = (process_cpu_ns() - c0) / 1e9 / dt;
    *writes = (double)atomic_load(&s->writes) / dt;
    return (double)atomic_load(&s->lookups) / dt;
}

/* ns of CPU time per cf_contains over `n` mixed keys. */
static double ns_lookup(cf_filter *f, const uint64_t *keys, uint64_t stable, uint64_t n) {
    uint64_t rng = 7, hits = 0;
    double t0 = cpu_now_ns();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = bench_splitmix64(&rng), key = r & 1 ? keys[(r >> 1) % stable] : r | 1;
        hits += cf_contains(f, &key, sizeof key);
    }
    bench_sink += hits;
    return (cpu_now_ns() - t0) / (double)n;
}

/* ns of CPU time per cf_insert filling a new filter to 95% load. */
static double ns_insert(uint64_t cap, unsigned flags, const uint64_t *keys, uint64_t n) {
    cf_filter *f = make(cap, flags);
    double t0 = cpu_now_ns();
    for (uint64_t i = 0; i < n; i++) bench_sink += cf_insert(f, &keys[i], sizeof keys[i]);
    double dt = (cpu_now_ns() - t0) / (double)n;
    cf_free(f);
    return dt;
}

/* The one-thread loops, one function per filter kind, so that callgrind
 * counts them apart (bench/callgrind.sh --concurrent). */
__attribute__((noinline)) static double phase_insert_plain(uint64_t cap, const uint64_t *keys,
                                                           uint64_t n) {
    return ns_insert(cap, 0, keys, n);
}

__attribute__((noinline)) static double phase_insert_concurrent(uint64_t cap, const uint64_t *keys,
                                                                uint64_t n) {
    return ns_insert(cap, CF_CONCURRENT, keys, n);
}

__attribute__((noinline)) static double phase_lookup_plain(cf_filter *f, const uint64_t *keys,
                                                           uint64_t stable, uint64_t n) {
    return ns_lookup(f, keys, stable, n);
}

__attribute__((noinline)) static double phase_lookup_concurrent(cf_filter *f, const uint64_t *keys,
                                                                uint64_t stable, uint64_t n) {
    return ns_lookup(f, keys, stable, n);
}

/* The one-thread comparison of one operation: per round, the plain and the
 * concurrent time and their ratio; medians of each. */
typedef struct paired {
    double plain[64], conc[64], ratio[64];
    int n;
} paired;

static void paired_add(paired *p, double plain, double conc) {
    p->plain[p->n] = plain;
    p->conc[p->n] = conc;
    p->ratio[p->n] = conc / plain;
    p->n++;
}

static void paired_print(paired *p, const char *what) {
    double plain = bench_median(p->plain, (size_t)p->n), conc = bench_median(p->conc, (size_t)p->n);
    double lo = 1e30, hi = 0;
    for (int i = 0; i < p->n; i++) {
        lo = p->ratio[i] < lo ? p->ratio[i] : lo;
        hi = p->ratio[i] > hi ? p->ratio[i] : hi;
    }
    printf("  %-26s %8.1f   %16.1f   %5.2fx   (%.2f-%.2f)\n", what, plain, conc,
           bench_median(p->ratio, (size_t)p->n), lo, hi);
}

static int usage(void) {
    fprintf(stderr, "usage: cf-concurrent-bench [N >= 1000] [SECONDS > 0] [--one] [--rounds 1..64] "
                    "[--phase-ops FILE]\n");
    return 2;
}

int main(int argc, char **argv) {
    uint64_t cap = 4000000;
    double sec = 0.3;
    bool threads = true;
    int rounds = 11, positional = 0;
    const char *phase_ops = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--one") == 0) {
            threads = false;
        } else if (strcmp(a, "--rounds") == 0 && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (strcmp(a, "--phase-ops") == 0 && i + 1 < argc) {
            phase_ops = argv[++i];
        } else if (a[0] != '-' && positional == 0) {
            if (!bench_parse_count(a, &cap)) return usage();
            positional++;
        } else if (a[0] != '-' && positional == 1) {
            sec = strtod(a, NULL);
            positional++;
        } else {
            return usage();
        }
    }
    if (cap < 1000 || !(sec > 0) || rounds < 1 || rounds > 64) return usage();
    cf_filter *probe = make(cap, 0);
    cf_stats st;
    cf_get_stats(probe, &st);
    cf_free(probe);
    uint64_t fill = (uint64_t)(0.95 * (double)st.slots);
    uint64_t *keys = malloc(fill * sizeof *keys);
    if (keys == NULL) return 1;
    uint64_t seed = 1;
    for (uint64_t i = 0; i < fill; i++) keys[i] = bench_splitmix64(&seed) & ~(uint64_t)1;

    printf("cf-concurrent-bench: N = %llu (%llu slots, f = 12, b = 4, %.1f MB table), %.2f s per "
           "throughput point\n\n",
           (unsigned long long)cap, (unsigned long long)st.slots, st.table_bytes / 1e6, sec);

    /* 1. One thread: the two filters back to back in every round, so that a
     * change in the machine's load hits both. */
    uint64_t stable = (uint64_t)(0.85 * (double)st.slots);
    uint64_t churn = (uint64_t)(0.05 * (double)st.slots);
    cf_filter *plain = make(cap, 0), *conc = make(cap, CF_CONCURRENT);
    for (uint64_t i = 0; i < stable + churn; i++) {
        cf_insert(plain, &keys[i], sizeof keys[i]);
        cf_insert(conc, &keys[i], sizeof keys[i]);
    }
    paired ins = {0}, look = {0};
    const uint64_t lookups = 1000000;
    for (int r = 0; r < rounds; r++) {
        bool conc_first = r & 1;
        double ip, ic = 0, lp, lc = 0;
        if (conc_first) ic = phase_insert_concurrent(cap, keys, fill);
        ip = phase_insert_plain(cap, keys, fill);
        if (!conc_first) ic = phase_insert_concurrent(cap, keys, fill);
        if (conc_first) lc = phase_lookup_concurrent(conc, keys, stable, lookups);
        lp = phase_lookup_plain(plain, keys, stable, lookups);
        if (!conc_first) lc = phase_lookup_concurrent(conc, keys, stable, lookups);
        paired_add(&ins, ip, ic);
        paired_add(&look, lp, lc);
    }
    printf("one thread (CPU ns, median of %d) plain ns   CF_CONCURRENT ns   ratio   (range)\n",
           rounds);
    paired_print(&ins, "insert to 95% load");
    paired_print(&look, "lookup at 90% (50% hits)");
    printf("\n");
    if (phase_ops != NULL) {
        FILE *out = fopen(phase_ops, "w");
        if (out == NULL) {
            fprintf(stderr, "cf-concurrent-bench: cannot write %s\n", phase_ops);
            return 1;
        }
        unsigned long long r = (unsigned long long)rounds;
        fprintf(out, "insert_plain,%llu\ninsert_concurrent,%llu\n", r * fill, r * fill);
        fprintf(out, "lookup_plain,%llu\nlookup_concurrent,%llu\n", r * lookups, r * lookups);
        fclose(out);
    }

    /* 2. Threads. */
    if (!threads) return 0;
    shared s = {.keys = keys, .stable = stable, .churn = churn};
    pthread_mutex_init(&s.mutex, NULL);
    pthread_rwlock_init(&s.rwlock, NULL);
    printf("lookups/s (M), total over readers  [writer ops/s (M)]  (cores the process had)\n");
    printf("readers  writer  %29s %29s %29s\n", mode_names[0], mode_names[1], mode_names[2]);
    const unsigned counts[] = {1, 2, 4, 8};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        for (int w = 0; w <= 1; w++) {
            printf("%7u  %6s", counts[c], w ? "churn" : "none");
            for (int m = 0; m < 3; m++) {
                s.m = (mode)m;
                s.f = m == MODE_CONCURRENT ? conc : plain;
                double writes, cores, r = throughput(&s, counts[c], w, sec, &writes, &cores);
                if (w)
                    printf("  %9.2f [%8.3f] (%4.2f)", r / 1e6, writes / 1e6, cores);
                else
                    printf("  %20.2f (%4.2f)", r / 1e6, cores);
            }
            printf("\n");
        }
    }
    cf_free(plain);
    cf_free(conc);
    free(keys);
    return 0;
}
