/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * bench_util.h -- the small pieces every part of the benchmark shares: a
 * monotonic clock, the splitmix64 key generator and a seeded xorshift RNG,
 * a median, the free memory.  The functions not inline here are defined in
 * bench_report.c.
 *
 * Keys are random 64-bit values so that every run with the same seed works on
 * exactly the same keys; they are passed to the filters as 8-byte strings, so
 * each filter hashes them itself (XXH3 everywhere, equal hashing cost).
 */
#ifndef CF_BENCH_UTIL_H
#define CF_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The compiler that built the benchmark, for the first line of its output. */
#if defined(__clang__)
#define BENCH_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define BENCH_COMPILER "gcc " __VERSION__
#else
#define BENCH_COMPILER "unknown compiler"
#endif

/* Keeps timed loops from being optimised away without costing a store per
 * operation: each loop folds its results into one value and sinks it once
 * (defined in bench_report.c). */
extern volatile uint64_t bench_sink;

/* Wall-clock nanoseconds from an arbitrary origin, never going backwards. */
static inline double bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU nanoseconds this thread has run, from an arbitrary origin: on a shared
 * machine, time spent descheduled is not counted (what the other jobs still
 * cost, through the caches and the memory bus, is). */
static inline double bench_thread_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* splitmix64: a full-period generator whose outputs are all distinct over
 * 2^64 calls, so positive keys never repeat within one stream. */
static inline uint64_t bench_splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* xorshift64*: cheap enough to sit inside timed loops (eviction victims in
 * the reference filter); state must be nonzero. */
static inline uint64_t bench_xorshift64s(uint64_t *state) {
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, n) without division (multiply-high). */
static inline uint64_t bench_below(uint64_t r, uint64_t n) {
    return (uint64_t)(((unsigned __int128)r * n) >> 64);
}

/* Parses "123", "10M", "1.5k", "2G" (a whole number from 1 to 1e15) into
 * *out; false on anything else.  The counts of every bench option. */
bool bench_parse_count(const char *s, uint64_t *out);

/* keys[i] for i < n: the splitmix64 stream from stream_seed, so that a seed
 * gives the same keys in every program. */
void bench_fill_keys(uint64_t *keys, uint64_t n, uint64_t stream_seed);

/* Median of n doubles (sorts v in place); 0 when n == 0. */
double bench_median(double *v, size_t n);

/* Free physical memory in bytes (INFINITY when unknown), so that a program
 * can skip a size that would not fit rather than swap or die. */
double bench_available_bytes(void);

#endif /* CF_BENCH_UTIL_H */
