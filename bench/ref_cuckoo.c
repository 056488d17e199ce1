/*
 * ref_cuckoo.c -- the article's cuckoo filter, deliberately plain (see
 * ref_cuckoo.h for what "plain" means and why).
 *
 *   key --XXH3-64--> h:   fp = (h >> 32) & mask, 0 replaced by 1
 *                         i1 = h & (nb - 1)                  (h mod nb)
 *                         i2 = i1 ^ (hash(fp) & (nb - 1))    (article's XOR)
 *
 *   slots:  | b0 s0 | b0 s1 | b0 s2 | b0 s3 | b1 s0 | ...    uint16_t each
 *
 * The fingerprint hash is the paper code's multiplicative one (fp times
 * MurmurHash2's constant): cheap, which keeps the baseline honest rather
 * than slow on purpose.
 */
#include "ref_cuckoo.h"

#include "bench_util.h"

#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t ref_cuckoo_floor_pow2(uint64_t x) {
    uint64_t p = 1;
    while (p <= x / 2) p *= 2;
    return p;
}

bool ref_cuckoo_init(ref_cuckoo *r, uint64_t num_buckets, unsigned fp_bits, uint64_t seed) {
    memset(r, 0, sizeof *r);
    if (num_buckets == 0 || (num_buckets & (num_buckets - 1)) != 0) return false;
    if (fp_bits == 0 || fp_bits > 16) return false;
    if (num_buckets > SIZE_MAX / (REF_BUCKET_SIZE * sizeof(uint16_t))) return false;
    r->slots = calloc(num_buckets * REF_BUCKET_SIZE, sizeof(uint16_t));
    if (r->slots == NULL) return false;
    r->num_buckets = num_buckets;
    r->seed = seed;
    r->rng = seed ^ 0x6a09e667f3bcc909ull;
    if (r->rng == 0) r->rng = 1;
    r->fp_bits = fp_bits;
    r->fp_mask = (uint16_t)((1u << fp_bits) - 1);
    return true;
}

void ref_cuckoo_destroy(ref_cuckoo *r) {
    free(r->slots);
    memset(r, 0, sizeof *r);
}

size_t ref_cuckoo_table_bytes(const ref_cuckoo *r) {
    return (size_t)r->num_buckets * REF_BUCKET_SIZE * sizeof(uint16_t);
}

/* Out of line, as the library's hash is: inlined here, XXH3 would be
 * specialised for the benchmark's constant 8-byte keys (about 30 fewer
 * instructions per call), and the comparison would be about hashing, not
 * about the filters. */
__attribute__((noinline)) static uint64_t ref_hash(const void *key, size_t len, uint64_t seed) {
    return XXH3_64bits_withSeed(key, len, seed);
}

static void ref_split_hash(const ref_cuckoo *r, uint64_t h, uint16_t *fp, uint64_t *i1) {
    uint16_t f = (uint16_t)((h >> 32) & r->fp_mask);
    *fp = f == 0 ? 1 : f;
    *i1 = h & (r->num_buckets - 1);
}

static void ref_split(const ref_cuckoo *r, const void *key, size_t len, uint16_t *fp,
                      uint64_t *i1) {
    ref_split_hash(r, ref_hash(key, len, r->seed), fp, i1);
}

static uint64_t ref_alt(const ref_cuckoo *r, uint64_t i, uint16_t fp) {
    return (i ^ ((uint64_t)fp * 0x5bd1e995u)) & (r->num_buckets - 1);
}

static bool ref_bucket_put(ref_cuckoo *r, uint64_t i, uint16_t fp) {
    uint16_t *bucket = r->slots + i * REF_BUCKET_SIZE;
    for (unsigned s = 0; s < REF_BUCKET_SIZE; s++) {
        if (bucket[s] == 0) {
            bucket[s] = fp;
            return true;
        }
    }
    return false;
}

static bool ref_bucket_has(const ref_cuckoo *r, uint64_t i, uint16_t fp) {
    const uint16_t *bucket = r->slots + i * REF_BUCKET_SIZE;
    for (unsigned s = 0; s < REF_BUCKET_SIZE; s++) {
        if (bucket[s] == fp) return true;
    }
    return false;
}

static bool ref_bucket_take(ref_cuckoo *r, uint64_t i, uint16_t fp) {
    uint16_t *bucket = r->slots + i * REF_BUCKET_SIZE;
    for (unsigned s = 0; s < REF_BUCKET_SIZE; s++) {
        if (bucket[s] == fp) {
            bucket[s] = 0;
            return true;
        }
    }
    return false;
}

bool ref_cuckoo_insert(ref_cuckoo *r, const void *key, size_t len) {
    if (r->has_victim) return false;
    uint16_t fp;
    uint64_t i1;
    ref_split(r, key, len, &fp, &i1);
    uint64_t i2 = ref_alt(r, i1, fp);
    if (ref_bucket_put(r, i1, fp) || ref_bucket_put(r, i2, fp)) {
        r->items++;
        return true;
    }
    /* Random walk: kick a random resident out of a random candidate bucket. */
    uint64_t i = (bench_xorshift64s(&r->rng) >> 63) ? i2 : i1;
    for (unsigned kick = 0; kick < REF_MAX_KICKS; kick++) {
        unsigned s = (unsigned)bench_below(bench_xorshift64s(&r->rng), REF_BUCKET_SIZE);
        uint16_t *slot = r->slots + i * REF_BUCKET_SIZE + s;
        uint16_t evicted = *slot;
        *slot = fp;
        fp = evicted;
        r->total_kicks++;
        i = ref_alt(r, i, fp);
        if (ref_bucket_put(r, i, fp)) {
            r->items++;
            return true;
        }
    }
    /* The walk gave up: keep the homeless fingerprint so no key is lost. */
    r->has_victim = true;
    r->victim_fp = fp;
    r->victim_index = i;
    r->items++;
    return false;
}

bool ref_cuckoo_contains(const ref_cuckoo *r, const void *key, size_t len) {
    return ref_cuckoo_contains_hash(r, ref_hash(key, len, r->seed));
}

bool ref_cuckoo_contains_hash(const ref_cuckoo *r, uint64_t h) {
    uint16_t fp;
    uint64_t i1;
    ref_split_hash(r, h, &fp, &i1);
    uint64_t i2 = ref_alt(r, i1, fp);
    if (ref_bucket_has(r, i1, fp) || ref_bucket_has(r, i2, fp)) return true;
    return r->has_victim && r->victim_fp == fp &&
           (r->victim_index == i1 || r->victim_index == i2);
}

bool ref_cuckoo_delete(ref_cuckoo *r, const void *key, size_t len) {
    uint16_t fp;
    uint64_t i1;
    ref_split(r, key, len, &fp, &i1);
    uint64_t i2 = ref_alt(r, i1, fp);
    if (ref_bucket_take(r, i1, fp) || ref_bucket_take(r, i2, fp)) {
        r->items--;
        /* A freed slot may give the stashed victim a home again. */
        if (r->has_victim) {
            uint64_t v = r->victim_index;
            if (ref_bucket_put(r, v, r->victim_fp) ||
                ref_bucket_put(r, ref_alt(r, v, r->victim_fp), r->victim_fp))
                r->has_victim = false;
        }
        return true;
    }
    if (r->has_victim && r->victim_fp == fp && (r->victim_index == i1 || r->victim_index == i2)) {
        r->has_victim = false;
        r->items--;
        return true;
    }
    return false;
}
