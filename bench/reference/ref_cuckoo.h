/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * ref_cuckoo.h -- the baseline: the cuckoo filter paper's reference code,
 * rendered in C from its published behaviour (docs: PERFORMANCE.md, "The
 * paper's reference code, precisely"), so the benchmark can set the library
 * against the code people compare cuckoo filters with, on the same machine,
 * in the same run.
 *
 * What it does, as that code does:
 *   - items are 64-bit integers, hashed by one 128-bit multiply-add:
 *       h     = (add + mul * (u128)item) >> 64      mul, add: 128-bit constants
 *       index = (h >> 32) & (nb - 1)                nb a power of two
 *       tag   = h & (2^f - 1), 0 replaced by 1      (0 marks an empty slot)
 *       alt   = (index ^ (tag * 0x5bd1e995)) & (nb - 1)
 *   - a bucket is four f-bit tags packed into 4f bits (f = 12: 6 bytes), read
 *     with one unaligned 64-bit load and tested for the tag in all four lanes
 *     at once;
 *   - a lookup checks the victim cache, then both buckets (both loaded, no
 *     early exit between them);
 *   - an insert takes the first free slot of its first bucket, then of its
 *     second, else walks at random for up to REF_MAX_KICKS kicks; the last
 *     homeless tag goes to a one-item victim cache (the insert still
 *     succeeds), and while the cache is taken every insert fails;
 *   - a delete removes the tag from either bucket (or the victim cache), then
 *     tries to give a cached victim a slot again.
 * There is no separate hash entry point: the paper's lookup includes its
 * cheap hash, so ref_cuckoo_contains(item) is what a caller of that code pays.
 *
 * The code is in ref_cuckoo_impl.h, static inline: ref_cuckoo_insert12 etc.
 * compile it into the caller with f = 12 a constant, as callers of the
 * paper's header-only C++ (CuckooFilter<uint64_t, 12>) get it; the functions
 * below call it out of line, the width picked at run time.
 *
 * Supported widths are f = 4, 8, 12 and 16, so that a bucket is a whole
 * number of bytes (2, 4, 6, 8).  The table is followed by 8 zero bytes, so
 * the last bucket's 64-bit load stays inside the allocation.  Bucket words
 * are read and written little-endian (as the paper's code does on x86).
 */
#ifndef CF_BENCH_REF_CUCKOO_H
#define CF_BENCH_REF_CUCKOO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REF_BUCKET_SIZE 4
#define REF_MAX_KICKS 500

typedef struct ref_cuckoo {
    uint8_t *table;        /* nb buckets of bucket_bytes, then 8 zero bytes   */
    uint64_t num_buckets;  /* nb, a power of two, at most 2^32 (index: h>>32) */
    unsigned __int128 mul; /* the multiply-add hash's constants, from the seed */
    unsigned __int128 add;
    uint64_t items;        /* tags stored, the victim cache's included        */
    uint64_t rng;          /* xorshift state for the random walk              */
    uint64_t total_kicks;  /* tags moved by random walks                      */
    unsigned fp_bits;      /* f: 4, 8, 12 or 16                               */
    unsigned bucket_bytes; /* 4f / 8                                          */
    bool has_victim;       /* the victim cache: one tag with no slot          */
    uint32_t victim_tag;
    uint64_t victim_index;
} ref_cuckoo;

/* The largest power of two <= x (x >= 1). */
uint64_t ref_cuckoo_floor_pow2(uint64_t x);

/* Allocates a zeroed table of num_buckets buckets (a power of two, at most
 * 2^32) of f = fp_bits bits per tag (4, 8, 12 or 16); the hash constants and
 * the walk's random numbers come from seed.  Returns false on a bad argument
 * or when memory runs out (r is then empty, and destroying it is harmless). */
bool ref_cuckoo_init(ref_cuckoo *r, uint64_t num_buckets, unsigned fp_bits, uint64_t seed);
void ref_cuckoo_destroy(ref_cuckoo *r);

/* True when the item is stored (in a bucket or, after a failed walk, in the
 * victim cache); false when the victim cache was already taken (nothing
 * changes then). */
bool ref_cuckoo_insert(ref_cuckoo *r, uint64_t item);
bool ref_cuckoo_contains(const ref_cuckoo *r, uint64_t item);
/* Removes one copy of the item's tag; false if neither bucket nor the victim
 * cache holds it. */
bool ref_cuckoo_delete(ref_cuckoo *r, uint64_t item);

/* Bytes of the buckets: nb * 4f / 8 (the 8 bytes of padding not counted). */
size_t ref_cuckoo_table_bytes(const ref_cuckoo *r);

#endif /* CF_BENCH_REF_CUCKOO_H */
