/*
 * grow_table_bench.c -- issue 22's table in one command: filters created
 * for 1,000 items at 1% FPP and fed N keys (chain, chain with growth 4,
 * in-place doubling), against one filter sized for N from the start
 * (docs/BENCHMARKS.md, "Growth v2").
 *
 *   cf-grow-table-bench [N] [CAPACITY]     N keys (default 10,000,000),
 *                                          CAPACITY of the grown ones (1000)
 *
 * Each filter is built in its own child process (fork), so that its peak
 * resident memory is its own: the child measures its RSS before creating
 * the filter and its peak (VmHWM) after, and the difference is the most the
 * filter ever held, copies during growth included.  Per filter: bits per
 * item (table bits / items), the measured FPP on M absent keys and the
 * filter's own bound, ns per insert (all N, one pass), ns per hit and miss
 * (cf_contains on M = min(N, 10M) present keys taken evenly over the
 * insertion order, and M absent ones; median of 3 passes), then a delete
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

#include "bench_util.h"
#include "cuckoofilter.h"

typedef struct row {
    double bits_per_item, fpp, bound, insert_ns, hit_ns, miss_ns, peak_mb, table_mb;
    double deleted_found; /* fraction of deleted keys still answering true */
    uint64_t lost;        /* kept keys not found: must be 0 */
    unsigned tables;
    uint64_t doublings;
    int ok;
} row;

/* The resident high-water mark of this process, in MB (Linux). */
static double peak_rss_mb(void) {
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;
    while (fp != NULL && fgets(line, sizeof line, fp) != NULL)
        if (strncmp(line, "VmHWM:", 6) == 0) kb = strtod(line + 6, NULL);
    if (fp != NULL) fclose(fp);
    return kb / 1024.0;
}

static double rss_mb(void) {
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;
    while (fp != NULL && fgets(line, sizeof line, fp) != NULL)
        if (strncmp(line, "VmRSS:", 6) == 0) kb = strtod(line + 6, NULL);
    if (fp != NULL) fclose(fp);
    return kb / 1024.0;
}

static double lookups_ns(const cf_filter *f, const uint64_t *keys, size_t m, uint64_t *hits) {
    double t[3];
    for (int r = 0; r < 3; r++) {
        uint64_t h = 0;
        double t0 = bench_now_ns();
        for (size_t i = 0; i < m; i++) h += cf_contains(f, &keys[i], sizeof keys[i]);
        t[r] = (bench_now_ns() - t0) / (double)m;
        *hits = h;
    }
    return bench_median(t, 3);
}

/* Builds and measures one filter; runs in the child. */
static row measure(const cf_config *cfg, const uint64_t *present, const uint64_t *sample,
                   const uint64_t *absent, size_t n, size_t m) {
    row r;
    memset(&r, 0, sizeof r);
    double before = rss_mb();
    cf_filter *f;
    if (cf_new(cfg, &f) != CF_OK) return r;
    double t0 = bench_now_ns();
    for (size_t i = 0; i < n; i++)
        if (cf_insert(f, &present[i], sizeof present[i]) != CF_OK) {
            fprintf(stderr, "insert %zu failed\n", i);
            return r;
        }
    r.insert_ns = (bench_now_ns() - t0) / (double)n;
    cf_stats st;
    cf_get_stats(f, &st);
    r.bits_per_item = st.bits_per_item;
    r.bound = st.fpp_bound;
    r.tables = st.tables;
    r.doublings = st.doublings;
    r.table_mb = (double)st.table_bytes / 1048576.0;
    uint64_t hits, fps;
    r.hit_ns = lookups_ns(f, sample, m, &hits);
    r.miss_ns = lookups_ns(f, absent, m, &fps);
    r.fpp = (double)fps / (double)m;
    r.lost = m - hits;
    size_t del = n / 100;
    uint64_t gone = 0;
    for (size_t i = 0; i < del; i++) cf_delete(f, &present[i], sizeof present[i]);
    for (size_t i = 0; i < del; i++) gone += cf_contains(f, &present[i], sizeof present[i]);
    r.deleted_found = (double)gone / (double)del;
    for (size_t i = 0; i < m; i++) {
        /* Sampled keys among the deleted ones are not counted. */
        size_t j = (size_t)((double)i * (double)n / (double)m);
        r.lost += j >= del && !cf_contains(f, &sample[i], sizeof sample[i]);
    }
    r.peak_mb = peak_rss_mb() - before;
    r.ok = 1;
    cf_free(f);
    return r;
}

/* Runs measure() in a child so that each filter's peak memory is its own. */
static row in_child(const cf_config *cfg, const uint64_t *present, const uint64_t *sample,
                    const uint64_t *absent, size_t n, size_t m) {
    row r;
    memset(&r, 0, sizeof r);
    int fd[2];
    if (pipe(fd) != 0) return r;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        row c = measure(cfg, present, sample, absent, n, m);
        ssize_t w = write(fd[1], &c, sizeof c);
        _exit(w == (ssize_t)sizeof c ? 0 : 1);
    }
    close(fd[1]);
    if (pid > 0 && read(fd[0], &r, sizeof r) != (ssize_t)sizeof r) r.ok = 0;
    close(fd[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    return r;
}

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

    enum { SIZED, CHAIN, CHAIN4, INPLACE, KINDS };
    const char *names[KINDS] = {"sized right", "chain (CF_GROW)", "chain, growth 4",
                                "in place (CF_GROWTH_INPLACE)"};
    row rows[KINDS];
    for (int k = 0; k < KINDS; k++) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.target_fpp = 0.01;
        cfg.capacity = k == SIZED ? n : cap;
        if (k != SIZED) cfg.flags = CF_GROW;
        if (k == CHAIN4) cfg.growth = 4;
        if (k == INPLACE) cfg.growth_mode = CF_GROWTH_INPLACE;
        rows[k] = in_child(&cfg, present, sample, absent, n, m);
        if (!rows[k].ok) return fprintf(stderr, "%s failed\n", names[k]), 1;
    }
    printf("%s; %zu keys, grown filters created for %llu at 1%% FPP; %zu lookups each\n",
           BENCH_COMPILER, n, (unsigned long long)cap, m);
    printf("| filter | tables/doublings | bits/item | FPP | bound | insert ns | hit ns | miss ns "
           "| peak MB | table MB | deleted found | lost |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    const row *b = &rows[SIZED];
    for (int k = 0; k < KINDS; k++) {
        const row *r = &rows[k];
        printf("| %s | %u/%llu | %.2f (%.2fx) | %.3f%% | %.3f%% | %.0f (%.2fx) | %.0f (%.2fx) | "
               "%.0f (%.2fx) | %.0f | %.0f | %.3f%% | %llu |\n",
               names[k], r->tables, (unsigned long long)r->doublings, r->bits_per_item,
               r->bits_per_item / b->bits_per_item, 100 * r->fpp, 100 * r->bound, r->insert_ns,
               r->insert_ns / b->insert_ns, r->hit_ns, r->hit_ns / b->hit_ns, r->miss_ns,
               r->miss_ns / b->miss_ns, r->peak_mb, r->table_mb, 100 * r->deleted_found,
               (unsigned long long)r->lost);
    }
    free(present), free(absent), free(sample);
    return 0;
}
