/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * grow_table_bench.c -- issue 22's table in one command: filters created
 * for 1,000 items at 1% FPP and fed N keys (chain, chain with growth 4,
 * in-place doubling), against one filter sized for N from the start
 * (docs/BENCHMARKS.md, "Growth v2").
 *
 *   cf-grow-table-bench [N] [CAPACITY]     N keys (default 10,000,000),
 *                                          CAPACITY of the grown ones (1000)
 *
 * All four filters live in one process and take turns (inserts in chunks
 * of 2^20 keys, lookups in rounds), so the load of a shared machine falls
 * on all of them alike.  Peak memory: each filter is also built once in a
 * child process (fork), whose resident high-water mark (VmHWM) minus its
 * RSS before creating the filter is the most the filter ever held, copies
 * during growth included (past 20M keys only for the in-place filter: -1
 * for the others, whose peak is their tables, never copied).  Per filter: bits per item (table bits / items),
 * the measured FPP on M absent keys and the filter's own bound, ns per
 * insert (all N), ns per hit and miss (cf_contains on M = min(N, 10M)
 * present keys taken evenly over the insertion order, and M absent ones;
 * median of 5 rounds), then a delete
 * check: the first 1% of the keys deleted, how many of them still answer
 * true (false positives), and that every other sampled key is still found.
 * Ratios to the sized filter follow.  Keys: random 64-bit (splitmix64,
 * seed 42), absent keys from the same stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/bench_util.h"
#include "cuckoofilter.h"

typedef struct row {
    double bits_per_item, fpp, bound, insert_ns, hit_ns, miss_ns, peak_mb, table_mb;
    double deleted_found; /* fraction of deleted keys still answering true */
    uint64_t lost;        /* kept keys not found: must be 0 */
    unsigned tables;
    uint64_t doublings;
} row;

static double status_mb(const char *field) {
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;
    size_t n = strlen(field);
    while (fp != NULL && fgets(line, sizeof line, fp) != NULL)
        if (strncmp(line, field, n) == 0) kb = strtod(line + n, NULL);
    if (fp != NULL) fclose(fp);
    return kb / 1024.0;
}

/* The most resident memory a filter of cfg fed n keys ever held, in MB,
 * copies during growth included: built in a child process, whose
 * high-water mark (VmHWM) minus its RSS before creating the filter is the
 * filter's alone.  Negative on failure. */
static double peak_mb(const cf_config *cfg, const uint64_t *keys, size_t n) {
    int fd[2];
    if (pipe(fd) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        /* Touch the keys first so their pages count before, not during. */
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i += 512) sum += keys[i];
        bench_sink += sum;
        double before = status_mb("VmRSS:"), peak = -1;
        cf_filter *f;
        if (cf_new(cfg, &f) == CF_OK) {
            size_t i = 0;
            while (i < n && cf_insert(f, &keys[i], sizeof keys[i]) == CF_OK) i++;
            if (i == n) peak = status_mb("VmHWM:") - before;
            cf_free(f);
        }
        ssize_t w = write(fd[1], &peak, sizeof peak);
        _exit(w == (ssize_t)sizeof peak ? 0 : 1);
    }
    close(fd[1]);
    double peak = -1;
    if (pid > 0 && read(fd[0], &peak, sizeof peak) != (ssize_t)sizeof peak) peak = -1;
    close(fd[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    return peak;
}

static double lookups_ns(const cf_filter *f, const uint64_t *keys, size_t m, uint64_t *hits) {
    uint64_t h = 0;
    double t0 = bench_now_ns();
    for (size_t i = 0; i < m; i++) h += cf_contains(f, &keys[i], sizeof keys[i]);
    *hits = h;
    return (bench_now_ns() - t0) / (double)m;
}

enum { SIZED, CHAIN, CHAIN4, INPLACE, KINDS, CHUNK = 1 << 20, ROUNDS = 5 };

int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    uint64_t cap = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000;
    if (n < 1000 || cap == 0) return fprintf(stderr, "usage: cf-grow-table-bench [N [CAP]]\n"), 2;
    size_t m = n < 10000000 ? n : 10000000;
    uint64_t *present = malloc(n * sizeof *present), *absent = malloc(m * sizeof *absent);
    uint64_t *sample = malloc(m * sizeof *sample);
    if (present == NULL || absent == NULL || sample == NULL)
        return fprintf(stderr, "out of memory\n"), 1;
    uint64_t s = 42;
    for (size_t i = 0; i < n; i++) present[i] = bench_splitmix64(&s);
    for (size_t i = 0; i < m; i++) absent[i] = bench_splitmix64(&s);
    for (size_t i = 0; i < m; i++) sample[i] = present[(size_t)((double)i * (double)n / (double)m)];

    const char *names[KINDS] = {"sized right", "chain (CF_GROW)", "chain, growth 4",
                                "in place (CF_GROWTH_INPLACE)"};
    cf_config cfg[KINDS];
    cf_filter *f[KINDS];
    row rows[KINDS];
    memset(rows, 0, sizeof rows);
    for (int k = 0; k < KINDS; k++) {
        cf_config_init(&cfg[k]);
        cfg[k].target_fpp = 0.01;
        cfg[k].capacity = k == SIZED ? n : cap;
        if (k != SIZED) cfg[k].flags = CF_GROW;
        if (k == CHAIN4) cfg[k].growth = 4;
        if (k == INPLACE) cfg[k].growth_mode = CF_GROWTH_INPLACE;
        /* Past 20M keys only the in-place filter's peak is measured (a
         * chain or a sized table never copies: its peak is its tables). */
        rows[k].peak_mb = n <= 20000000 || k == INPLACE ? peak_mb(&cfg[k], present, n) : -1;
        if (cf_new(&cfg[k], &f[k]) != CF_OK) return fprintf(stderr, "%s: cf_new\n", names[k]), 1;
    }
    /* Inserts in chunks, the filters taking turns, so that the machine's
     * changing load falls on all of them alike. */
    double ins[KINDS] = {0};
    for (size_t base = 0; base < n; base += CHUNK) {
        size_t end = base + CHUNK < n ? base + CHUNK : n;
        for (int j = 0; j < KINDS; j++) {
            int k = (int)((j + base / CHUNK) % KINDS);
            double t0 = bench_now_ns();
            for (size_t i = base; i < end; i++)
                if (cf_insert(f[k], &present[i], sizeof present[i]) != CF_OK)
                    return fprintf(stderr, "%s: insert %zu failed\n", names[k], i), 1;
            ins[k] += bench_now_ns() - t0;
        }
    }
    /* Lookups: ROUNDS rounds, each filter once per round in a rotating
     * order; the median round. */
    double hit[KINDS][ROUNDS], miss[KINDS][ROUNDS];
    uint64_t hits[KINDS], fps[KINDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int j = 0; j < KINDS; j++) {
            int k = (j + r) % KINDS;
            hit[k][r] = lookups_ns(f[k], sample, m, &hits[k]);
            miss[k][r] = lookups_ns(f[k], absent, m, &fps[k]);
        }
    for (int k = 0; k < KINDS; k++) {
        row *r = &rows[k];
        cf_stats st;
        cf_get_stats(f[k], &st);
        r->bits_per_item = st.bits_per_item;
        r->bound = st.fpp_bound;
        r->tables = st.tables;
        r->doublings = st.doublings;
        r->table_mb = (double)st.table_bytes / 1048576.0;
        r->insert_ns = ins[k] / (double)n;
        r->hit_ns = bench_median(hit[k], ROUNDS);
        r->miss_ns = bench_median(miss[k], ROUNDS);
        r->fpp = (double)fps[k] / (double)m;
        r->lost = m - hits[k];
        /* Deletes: the first 1% of the keys go; they should answer like
         * absent keys, and every other sampled key must stay. */
        size_t del = n / 100;
        uint64_t gone = 0;
        for (size_t i = 0; i < del; i++) cf_delete(f[k], &present[i], sizeof present[i]);
        for (size_t i = 0; i < del; i++) gone += cf_contains(f[k], &present[i], sizeof present[i]);
        r->deleted_found = (double)gone / (double)del;
        for (size_t i = 0; i < m; i++) {
            size_t j = (size_t)((double)i * (double)n / (double)m);
            r->lost += j >= del && !cf_contains(f[k], &sample[i], sizeof sample[i]);
        }
        cf_free(f[k]);
    }
    printf("%s; %zu keys, grown filters created for %llu at 1%% FPP; %zu lookups per round, "
           "median of %d rounds\n",
           BENCH_COMPILER, n, (unsigned long long)cap, m, ROUNDS);
    printf("| filter | tables/doublings | bits/item | FPP | bound | insert ns | hit ns | miss ns "
           "| peak MB | table MB | deleted found | lost |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    const row *b = &rows[SIZED];
    for (int k = 0; k < KINDS; k++) {
        const row *r = &rows[k];
        printf("| %s | %u/%llu | %.2f (%.2fx) | %.3f%% | %.3f%% | %.0f (%.2fx) | %.0f (%.2fx) | "
               "%.0f (%.2fx) | %.1f | %.1f | %.3f%% | %llu |\n",
               names[k], r->tables, (unsigned long long)r->doublings, r->bits_per_item,
               r->bits_per_item / b->bits_per_item, 100 * r->fpp, 100 * r->bound, r->insert_ns,
               r->insert_ns / b->insert_ns, r->hit_ns, r->hit_ns / b->hit_ns, r->miss_ns,
               r->miss_ns / b->miss_ns, r->peak_mb, r->table_mb, 100 * r->deleted_found,
               (unsigned long long)r->lost);
    }
    free(present), free(absent), free(sample);
    return 0;
}
