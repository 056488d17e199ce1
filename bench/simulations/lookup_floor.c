/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * lookup_floor.c -- how fast can a two-bucket lookup be on this machine?
 *
 * A standalone loop, not the library: a table of random 6-byte buckets (f =
 * 12, b = 4) as large as the library's at N items, and lookups written the
 * leanest way, varied one thing at a time, so docs/BENCHMARKS.md can say
 * what the library's lookup costs and what no two-bucket lookup can beat:
 *
 *   partner   global:  i2 = (c(fp) - i1) mod nb    (the library's)
 *             page:    i2 = i1 XOR d(fp), d < 512  (same 4 KiB block)
 *             line:    i2 = i1 XOR 1               (mostly the same cache line)
 *   keys      hashes given, or 8-byte keys hashed with XXH3 (runtime seed)
 *   call      inlined into the loop, or one non-inlined call per key taking
 *             (filter, key, length) as a library's entry point does
 *   batch     one key at a time, or buckets prefetched 32 keys ahead
 *
 * usage: cf-lookup-floor [N]   (default 100000000 items: a 158 MB table)
 * Prints ns per lookup, the best of 3 runs over 4M random keys.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/bench_util.h"

typedef struct table {
    uint8_t *bytes;
    uint64_t nb, seed;
} table;

enum { PARTNER_GLOBAL, PARTNER_PAGE, PARTNER_LINE };

#define ONES 0x001001001001ull  /* bit 0 of each 12-bit lane */
#define HIGHS 0x800800800800ull /* bit 11 of each 12-bit lane */

static inline uint64_t range(uint64_t x, uint64_t n) {
    return (uint64_t)(((unsigned __int128)x * n) >> 64);
}

static inline uint64_t load6(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v & 0xffffffffffffull;
}

static inline uint64_t partner(const table *t, uint64_t i1, uint32_t fp, int kind) {
    if (kind == PARTNER_LINE) return i1 ^ 1;
    uint64_t m = (uint64_t)fp * 0x9e3779b97f4a7c15ull;
    if (kind == PARTNER_PAGE) return i1 ^ ((m >> 55) | 1); /* d < 512: 3 KiB */
    uint64_t c = range(m, t->nb);
    return c >= i1 ? c - i1 : c + (t->nb - i1);
}

static inline bool lookup(const table *t, uint64_t h, int kind) {
    uint32_t fp = (uint32_t)((((h & 0xffffffffu) * 4095) >> 32) + 1);
    uint64_t i1 = range(h, t->nb), i2 = partner(t, i1, fp, kind);
    /* The XOR partners may pass the last bucket: the table has room. */
    uint64_t v = ONES * fp, x1 = load6(t->bytes + i1 * 6) ^ v, x2 = load6(t->bytes + i2 * 6) ^ v;
    return ((((x1 - ONES) & ~x1) | ((x2 - ONES) & ~x2)) & HIGHS) != 0;
}

__attribute__((noinline)) static bool call_hash(const table *t, uint64_t h) {
    return t != NULL && lookup(t, h, PARTNER_GLOBAL);
}

__attribute__((noinline)) static bool call_key(const table *t, const void *key, size_t len) {
    if (t == NULL || (key == NULL && len != 0)) return false;
    return lookup(t, XXH3_64bits_withSeed(key, len, t->seed), PARTNER_GLOBAL);
}

#define LOOP(name, expr)                                                                          \
    __attribute__((noinline)) static uint64_t name(const table *t, const uint64_t *k, size_t n) { \
        uint64_t hits = 0;                                                                        \
        for (size_t i = 0; i < n; i++) hits += (expr);                                            \
        return hits;                                                                              \
    }
LOOP(global_hashes, lookup(t, k[i], PARTNER_GLOBAL))
LOOP(global_keys, lookup(t, XXH3_64bits_withSeed(&k[i], 8, t->seed), PARTNER_GLOBAL))
LOOP(global_call_hashes, call_hash(t, k[i]))
LOOP(global_call_keys, call_key(t, &k[i], sizeof k[i]))
LOOP(page_keys, lookup(t, XXH3_64bits_withSeed(&k[i], 8, t->seed), PARTNER_PAGE))
LOOP(line_hashes, lookup(t, k[i], PARTNER_LINE))
LOOP(line_keys, lookup(t, XXH3_64bits_withSeed(&k[i], 8, t->seed), PARTNER_LINE))

/* Buckets located and prefetched 32 keys ahead, then tested. */
#define AHEAD 32
static inline uint64_t batch(const table *t, const uint64_t *k, size_t n, int kind) {
    uint64_t at[AHEAD][2], hits = 0;
    uint32_t fps[AHEAD];
    for (size_t i = 0; i < n + AHEAD; i++) {
        size_t s = i % AHEAD;
        if (i >= AHEAD) {
            uint64_t v = ONES * fps[s];
            uint64_t x1 = load6(t->bytes + at[s][0]) ^ v, x2 = load6(t->bytes + at[s][1]) ^ v;
            hits += ((((x1 - ONES) & ~x1) | ((x2 - ONES) & ~x2)) & HIGHS) != 0;
        }
        if (i < n) {
            uint64_t h = k[i];
            fps[s] = (uint32_t)((((h & 0xffffffffu) * 4095) >> 32) + 1);
            uint64_t i1 = range(h, t->nb);
            at[s][0] = i1 * 6;
            at[s][1] = partner(t, i1, fps[s], kind) * 6;
            __builtin_prefetch(t->bytes + at[s][0]);
            __builtin_prefetch(t->bytes + at[s][1]);
        }
    }
    return hits;
}

__attribute__((noinline)) static uint64_t global_batch(const table *t, const uint64_t *k,
                                                       size_t n) {
    return batch(t, k, n, PARTNER_GLOBAL);
}

__attribute__((noinline)) static uint64_t page_batch(const table *t, const uint64_t *k, size_t n) {
    return batch(t, k, n, PARTNER_PAGE);
}

int main(int argc, char **argv) {
    uint64_t items = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000000;
    if (items < 1000) {
        fputs("usage: cf-lookup-floor [N >= 1000]\n", stderr);
        return 2;
    }
    table t = {NULL, (uint64_t)((double)items / (4 * 0.95)) + 1, 42};
    size_t bytes = (size_t)t.nb * 6 + 4096; /* XOR partners of the last block */
    enum { KEYS = 4000000 };
    uint64_t *keys = malloc(KEYS * sizeof *keys), rng = 2014;
    t.bytes = malloc(bytes);
    if (t.bytes == NULL || keys == NULL) {
        fputs("cf-lookup-floor: out of memory\n", stderr);
        return 1;
    }
    for (size_t i = 0; i < bytes; i += 8) {
        uint64_t r = bench_splitmix64(&rng);
        memcpy(t.bytes + i, &r, bytes - i < 8 ? bytes - i : 8);
    }
    for (size_t i = 0; i < KEYS; i++) keys[i] = bench_splitmix64(&rng);

    static const struct {
        const char *name;
        uint64_t (*run)(const table *, const uint64_t *, size_t);
    } cases[] = {
        {"global partner, inlined, on hashes", global_hashes},
        {"global partner, inlined, XXH3 of 8-byte keys", global_keys},
        {"global partner, one call per hash", global_call_hashes},
        {"global partner, one call per key (runtime length)", global_call_keys},
        {"page-local partner, inlined, XXH3 of keys", page_keys},
        {"same-line partner, inlined, on hashes", line_hashes},
        {"same-line partner, inlined, XXH3 of keys", line_keys},
        {"global partner, prefetched 32 ahead, on hashes", global_batch},
        {"page-local partner, prefetched 32 ahead, on hashes", page_batch},
    };
    printf("cf-lookup-floor: %llu items, %llu buckets of 6 bytes (%.1f MB), %d keys, best of 3\n",
           (unsigned long long)items, (unsigned long long)t.nb, (double)t.nb * 6 / 1e6, KEYS);
    uint64_t sink = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        double best = 0;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = bench_now_ns();
            sink += cases[c].run(&t, keys, KEYS);
            double ns = (bench_now_ns() - t0) / KEYS;
            if (rep == 0 || ns < best) best = ns;
        }
        printf("  %-52s %6.1f ns\n", cases[c].name, best);
    }
    free(keys);
    free(t.bytes);
    return sink == 0; /* random tables answer some lookups true */
}
