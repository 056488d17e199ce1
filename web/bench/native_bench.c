/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * native_bench.c -- the package's bulk calls without WebAssembly: the same
 * C (web/src/cfjs.c) on the same keys as web/bench/bench.mjs ("key:0",
 * "key:1", ...; absent keys "miss:0", ...), compiled natively and linked
 * with the library, so that bench.mjs can set the package against it.
 *
 *   cc -O2 -Iinclude -Iweb/src web/bench/native_bench.c web/src/cfjs.c \
 *      web/src/cfjs_config.c build/release/libcuckoofilter.a -lm -o native_bench
 *   ./native_bench [N] [rounds]     (default 2^20 keys, 5 rounds)
 *
 * Prints one line per round: ns per key of cfjs_insert_many and of
 * cfjs_contains_many on present and on absent keys, in the thread's CPU
 * time (the machines here are shared: waiting for a core is not counted).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cfjs.h"

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* n keys "<prefix><i>" packed as the package packs them. */
static void pack(const char *prefix, size_t n, uint8_t **bytes, uint32_t **ends) {
    *bytes = malloc(n * 32);
    *ends = malloc(n * sizeof **ends);
    if (*bytes == NULL || *ends == NULL) exit(1);
    uint32_t end = 0;
    for (size_t i = 0; i < n; i++) {
        end += (uint32_t)snprintf((char *)*bytes + end, 32, "%s%zu", prefix, i);
        (*ends)[i] = end;
    }
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1u << 20;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    uint8_t *hit, *miss;
    uint32_t *hit_ends, *miss_ends;
    pack("key:", n, &hit, &hit_ends);
    pack("miss:", n, &miss, &miss_ends);
    bool *found = malloc(n);
    if (found == NULL) return 1;
    for (int r = 0; r < rounds; r++) {
        cf_filter *f;
        /* As CuckooFilter.create({ capacity: n, fpp: 0.001 }). */
        if (cfjs_new((double)n, 0.001, 0, 0, 0, 0, NAN, 0, 0, false, 0, &f) != CF_OK) return 1;
        size_t done;
        double t0 = now_ns();
        if (cfjs_insert_many(f, hit, hit_ends, n, false, &done) != CF_OK) return 1;
        double t1 = now_ns();
        size_t a = cfjs_contains_many(f, hit, hit_ends, n, found);
        double t2 = now_ns();
        size_t b = cfjs_contains_many(f, miss, miss_ends, n, found);
        double t3 = now_ns();
        if (a != n || b > n / 100) return 1;
        printf("native addMany %.1f ns/key, hasMany(hit) %.1f, hasMany(miss) %.1f\n",
               (t1 - t0) / (double)n, (t2 - t1) / (double)n, (t3 - t2) / (double)n);
        cf_free(f);
    }
    free(hit), free(miss), free(hit_ends), free(miss_ends), free(found);
    return 0;
}
