/*
 * ref_cuckoo.h -- the baseline: the founding article's cuckoo filter written
 * the straightforward way, so the benchmark can show what the library's
 * optimizations are worth on the same machine, in the same run.
 *
 * It follows the article (and the paper's reference code) on purpose:
 *   - b = 4 slots per bucket, one uint16_t per slot holding an f-bit
 *     fingerprint (f <= 16), 0 meaning empty;
 *   - nb is a power of two: i1 = h mod nb, i2 = i1 ^ (hash(fp) mod nb), which
 *     is an involution only because nb is a power of two;
 *   - lookups and deletes compare slot by slot;
 *   - inserts evict by random walk: swap with a random slot of a random
 *     candidate bucket, move the victim to its other bucket, up to 500 kicks;
 *     a victim that still has no home is kept in a one-entry stash (as the
 *     paper's code does) so the benchmark never loses a key, and further
 *     inserts fail while the stash is occupied.
 * Keys are hashed with XXH3-64 through an out-of-line call, as in the
 * library, so the hashing cost is the same on both sides.
 */
#ifndef CF_BENCH_REF_CUCKOO_H
#define CF_BENCH_REF_CUCKOO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REF_BUCKET_SIZE 4
#define REF_MAX_KICKS 500

typedef struct ref_cuckoo {
    uint16_t *slots;      /* nb * REF_BUCKET_SIZE fingerprints, 0 = empty       */
    uint64_t num_buckets; /* a power of two                                     */
    uint64_t items;       /* fingerprints stored, the stash included            */
    uint64_t seed;        /* hash seed for keys                                 */
    uint64_t rng;         /* xorshift state for the random walk                 */
    uint64_t total_kicks;
    unsigned fp_bits;     /* f, 1..16                                           */
    uint16_t fp_mask;
    bool has_victim;      /* the stash: one fingerprint with no slot            */
    uint16_t victim_fp;
    uint64_t victim_index;
} ref_cuckoo;

/* The largest power of two <= x (x >= 1). */
uint64_t ref_cuckoo_floor_pow2(uint64_t x);

/* Allocates a zeroed table of num_buckets (a power of two) buckets.
 * Returns false on a bad argument or when memory runs out. */
bool ref_cuckoo_init(ref_cuckoo *r, uint64_t num_buckets, unsigned fp_bits, uint64_t seed);
void ref_cuckoo_destroy(ref_cuckoo *r);

/* False when the filter is full (the key is then held in the stash, or, if
 * the stash was already taken, not stored at all). */
bool ref_cuckoo_insert(ref_cuckoo *r, const void *key, size_t len);
bool ref_cuckoo_contains(const ref_cuckoo *r, const void *key, size_t len);
/* The same on h = XXH3-64(key, seed), the hash cf_hash gives for the same
 * seed, so the benchmark can time both filters without hashing. */
bool ref_cuckoo_contains_hash(const ref_cuckoo *r, uint64_t h);
/* Removes one copy; false if the fingerprint is in neither bucket. */
bool ref_cuckoo_delete(ref_cuckoo *r, const void *key, size_t len);

/* Table bytes: nb * b * 2 (16-bit slots, whatever f is). */
size_t ref_cuckoo_table_bytes(const ref_cuckoo *r);

#endif /* CF_BENCH_REF_CUCKOO_H */
