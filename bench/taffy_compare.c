/*
 * taffy_compare.c -- issue 22's taffy row: this library sized right and grown in
 * place against libfilter's taffy cuckoo filter (jbapple/libfilter, c/lib), in one
 * process, same keys (splitmix64, seed 42), same hash (XXH3-64 of the 8-byte key),
 * inserts in chunks and lookups in rounds taking turns.  Not built by CMake and no
 * libfilter code is kept here: build it by hand against a libfilter checkout in /tmp
 * (docs/BENCHMARKS.md, "Growth v2"):
 *
 *   for f in memory util taffy-cuckoo; do gcc -std=gnu11 -O3 -march=native \
 *     -I$LF/c/include -c $LF/c/lib/$f.c -o /tmp/$f.o; done
 *   gcc -std=gnu11 -O2 -Iinclude -I$LF/c/include bench/taffy_compare.c /tmp/taffy-cuckoo.o \
 *     /tmp/util.o /tmp/memory.o build/release/libcuckoofilter.a -lm -o /tmp/taffy_compare
 *   /tmp/taffy_compare [N]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "cuckoofilter.h"
#include "filter/taffy-cuckoo.h"
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}
static uint64_t sm(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static volatile uint64_t sink;
enum { K = 3, R = 5 };
int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 10000000, m = n < 10000000 ? n : 10000000;
    uint64_t *in = malloc(n * 8), *out = malloc(m * 8), *smp = malloc(m * 8), s = 42;
    for (size_t i = 0; i < n; i++) in[i] = sm(&s);
    for (size_t i = 0; i < m; i++) out[i] = sm(&s);
    for (size_t i = 0; i < m; i++) smp[i] = in[(size_t)((double)i * n / m)];
    cf_config c;
    cf_config_init(&c);
    c.target_fpp = 0.01;
    c.capacity = n;
    cf_filter *sized, *ip;
    cf_new(&c, &sized);
    c.capacity = 1000;
    c.flags = CF_GROW;
    c.growth_mode = CF_GROWTH_INPLACE;
    cf_new(&c, &ip);
    libfilter_taffy_cuckoo t = libfilter_taffy_cuckoo_create_with_bytes(2100);
    double ins[K] = {0};
    for (size_t b = 0; b < n; b += 1 << 20) {
        size_t e = b + (1 << 20) < n ? b + (1 << 20) : n;
        for (int j = 0; j < K; j++) {
            int k = (j + b / (1 << 20)) % K;
            double t0 = now();
            for (size_t i = b; i < e; i++) {
                if (k == 0)
                    cf_insert(sized, &in[i], 8);
                else if (k == 1)
                    cf_insert(ip, &in[i], 8);
                else
                    libfilter_taffy_cuckoo_add_hash(&t, XXH3_64bits(&in[i], 8));
            }
            ins[k] += now() - t0;
        }
    }
    double hit[K][R], miss[K][R];
    uint64_t fp[K], hits[K];
    for (int r = 0; r < R; r++)
        for (int j = 0; j < K; j++) {
            int k = (j + r) % K;
            for (int w = 0; w < 2; w++) {
                const uint64_t *ks = w ? out : smp;
                uint64_t h = 0;
                double t0 = now();
                for (size_t i = 0; i < m; i++) {
                    if (k == 0)
                        h += cf_contains(sized, &ks[i], 8);
                    else if (k == 1)
                        h += cf_contains(ip, &ks[i], 8);
                    else
                        h += libfilter_taffy_cuckoo_find_hash(&t, XXH3_64bits(&ks[i], 8));
                }
                double d = (now() - t0) / m;
                if (w) {
                    miss[k][r] = d;
                    fp[k] = h;
                } else {
                    hit[k][r] = d;
                    hits[k] = h;
                }
                sink += h;
            }
        }
    const char *nm[K] = {"ours sized right", "ours in place", "taffy cuckoo (libfilter)"};
    cf_stats a, b2;
    cf_get_stats(sized, &a);
    cf_get_stats(ip, &b2);
    double bits[K] = {a.bits_per_item, b2.bits_per_item,
                      8.0 * libfilter_taffy_cuckoo_size_in_bytes(&t) / n};
    printf("%zu keys, %zu lookups, median of %d rounds\n| filter | bits/item | FPP | insert ns | "
           "hit ns | miss ns | lost |\n| --- | --- | --- | --- | --- | --- | --- |\n",
           n, m, R);
    for (int k = 0; k < K; k++) {
        qsort(hit[k], R, 8, cmp);
        qsort(miss[k], R, 8, cmp);
        printf(
            "| %s | %.2f (%.2fx) | %.3f%% | %.0f (%.2fx) | %.0f (%.2fx) | %.0f (%.2fx) | %llu |\n",
            nm[k], bits[k], bits[k] / bits[0], 100.0 * fp[k] / m, ins[k] / n, ins[k] / ins[0],
            hit[k][R / 2], hit[k][R / 2] / hit[0][R / 2], miss[k][R / 2],
            miss[k][R / 2] / miss[0][R / 2], (unsigned long long)(m - hits[k]));
    }
    return 0;
}
