/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * mem_probe.c -- dependent and independent random cache-line reads (see
 * mem_probe.h).
 *
 *   lines:  | next | pad x7 | next | pad x7 | ...     64 bytes each
 *
 * For the dependent chain, line i stores the index of the line to read next;
 * Sattolo's shuffle makes that one cycle through every line, so the chain
 * never settles into a small, cached loop.  Building it writes every line,
 * which also faults every page in before anything is timed.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS and MADV_HUGEPAGE */
#include "common/mem_probe.h"

#include "common/bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PROBE_LINE 64
/* How far ahead the prefetching loops issue reads: enough to cover the
 * ~30 misses a core keeps in flight. */
#define PROBE_AHEAD 32
#define PROBE_PAGE_LINES (4096 / PROBE_LINE)

typedef struct probe_line {
    uint64_t next;
    uint64_t pad[PROBE_LINE / sizeof(uint64_t) - 1];
} probe_line;

__attribute__((noinline)) static double probe_dependent(const probe_line *lines, uint64_t steps) {
    uint64_t p = 0;
    double t0 = bench_now_ns();
    for (uint64_t i = 0; i < steps; i++) p = lines[p].next;
    double t1 = bench_now_ns();
    bench_sink = p;
    return (t1 - t0) / (double)steps;
}

/* Independent reads of idx[0..n): the out-of-order core overlaps them. */
__attribute__((noinline)) static double probe_plain(const probe_line *lines, const uint64_t *idx,
                                                    uint64_t n, unsigned per_key) {
    uint64_t sum = 0;
    double t0 = bench_now_ns();
    for (uint64_t i = 0; i < n; i++) sum += lines[idx[i]].next;
    double t1 = bench_now_ns();
    bench_sink = sum;
    return (t1 - t0) / (double)(n / per_key);
}

/* The same reads, each prefetched PROBE_AHEAD reads earlier. */
__attribute__((noinline)) static double
probe_prefetched(const probe_line *lines, const uint64_t *idx, uint64_t n, unsigned per_key) {
    uint64_t sum = 0;
    double t0 = bench_now_ns();
    for (uint64_t i = 0; i < n; i++) {
        if (i + PROBE_AHEAD < n) __builtin_prefetch(&lines[idx[i + PROBE_AHEAD]], 0, 0);
        sum += lines[idx[i]].next;
    }
    double t1 = bench_now_ns();
    bench_sink = sum;
    return (t1 - t0) / (double)(n / per_key);
}

static double min2(double a, double b) {
    return a < b ? a : b;
}

/* AnonHugePages of this process, in bytes (Linux; 0 when unknown). */
static size_t huge_page_bytes(void) {
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (f == NULL) return 0;
    char line[256];
    unsigned long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) break;
    fclose(f);
    return (size_t)kb * 1024;
}

/* The array: malloc'd like a filter's table, or mapped with a huge-page hint. */
static probe_line *probe_alloc(size_t size, bool huge) {
    if (!huge) return aligned_alloc(PROBE_LINE, size);
#ifdef MADV_HUGEPAGE
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    madvise(p, size, MADV_HUGEPAGE); /* a hint: the kernel may decline */
    return p;
#else
    return aligned_alloc(PROBE_LINE, size);
#endif
}

static void probe_free(probe_line *lines, size_t size, bool huge) {
#ifdef MADV_HUGEPAGE
    if (huge) {
        if (lines != NULL) munmap(lines, size);
        return;
    }
#endif
    (void)size;
    (void)huge;
    free(lines);
}

bool mem_probe_run(size_t bytes, uint64_t steps, uint64_t pairs, uint64_t seed, bool huge,
                   mem_probe_result *out) {
    uint64_t nlines = bytes / PROBE_LINE;
    if (nlines < 1) nlines = 1;
    if (steps < 1) steps = 1;
    if (pairs < 1) pairs = 1;
    size_t size = (size_t)(nlines * PROBE_LINE);
    size_t huge_before = huge_page_bytes();
    probe_line *lines = probe_alloc(size, huge);
    uint64_t *idx = malloc(2 * pairs * sizeof *idx);
    if (lines == NULL || idx == NULL) {
        probe_free(lines, size, huge);
        free(idx);
        return false;
    }
    uint64_t rng = seed;
    for (uint64_t i = 0; i < nlines; i++) lines[i].next = i;
    for (uint64_t i = nlines - 1; i > 0; i--) { /* Sattolo: one cycle through all lines */
        uint64_t j = bench_below(bench_splitmix64(&rng), i);
        uint64_t t = lines[i].next;
        lines[i].next = lines[j].next;
        lines[j].next = t;
    }
    for (uint64_t i = 0; i < 2 * pairs; i++) idx[i] = bench_below(bench_splitmix64(&rng), nlines);

    out->bytes = size;
    size_t huge_after = huge_page_bytes();
    out->huge_bytes = huge_after > huge_before ? huge_after - huge_before : 0;
    out->dependent_ns = probe_dependent(lines, steps);
    out->random1_ns =
        min2(probe_plain(lines, idx, 2 * pairs, 1), probe_prefetched(lines, idx, 2 * pairs, 1));
    out->random2_ns =
        min2(probe_plain(lines, idx, 2 * pairs, 2), probe_prefetched(lines, idx, 2 * pairs, 2));
    /* Second line of each pair moved into its first line's page. */
    for (uint64_t i = 0; i < pairs; i++) {
        uint64_t page = idx[2 * i] / PROBE_PAGE_LINES * PROBE_PAGE_LINES;
        uint64_t in_page = nlines - page < PROBE_PAGE_LINES ? nlines - page : PROBE_PAGE_LINES;
        idx[2 * i + 1] = page + bench_below(bench_splitmix64(&rng), in_page);
    }
    out->page2_ns =
        min2(probe_plain(lines, idx, 2 * pairs, 2), probe_prefetched(lines, idx, 2 * pairs, 2));
    probe_free(lines, size, huge);
    free(idx);
    return true;
}
