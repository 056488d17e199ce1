/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * hash.h -- the one hash function: XXH3-64 with the filter's seed, from
 * libxxhash used header-only (XXH_INLINE_ALL): no xxHash symbol is exported,
 * there is no runtime dependency, and the hash inlines into each operation
 * (a short key hashes in a few dozen instructions, so a call would be a
 * large share of a lookup).
 *
 * Keys of up to 16 bytes (integers, short strings: most keys) take a path
 * written here from XXH3's definition of its short inputs, with the part
 * that depends only on the seed computed once per filter (cf__hash_key):
 *
 *   len 0      h = avalanche64(seed ^ s[56..64) ^ s[64..72))       (constant)
 *   len 1..3   h = avalanche64(bytes and len ^ flip13)
 *   len 4..8   h = rrmxmx(first 4 bytes << 32 | last 4 bytes ^ flip48, len)
 *   len 9..16  lo = first 8 bytes ^ flip_lo, hi = last 8 bytes ^ flip_hi,
 *              h = avalanche3(len + bswap(lo) + hi + fold(lo * hi))
 *
 * (s = XXH3's default secret).  The result is XXH3_64bits_withSeed's, bit
 * for bit: tests/test_params.c compares the two for every length 0..16 and
 * many seeds, and files depend on it.  Longer keys call xxHash itself.
 */
#ifndef CF_HASH_H
#define CF_HASH_H

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/bits.h"

#if XXH_VERSION_NUMBER < 800
#error "xxHash 0.8 or newer is needed (XXH3 is stable from 0.8.0)"
#endif

/* The seed-dependent constants of XXH3's paths for keys of up to 16 bytes,
 * computed once per filter (hash.h). */
typedef struct cf__hash_key {
    uint64_t seed;
    uint64_t h0;      /* the hash of the empty key                        */
    uint64_t flip13;  /* keys of 1..3 bytes                               */
    uint64_t flip48;  /* keys of 4..8 bytes                               */
    uint64_t flip_lo; /* keys of 9..16 bytes, first 8 bytes               */
    uint64_t flip_hi; /* keys of 9..16 bytes, last 8 bytes                */
} cf__hash_key;

static inline uint32_t cf__le32(const void *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

static inline uint64_t cf__rotl64(uint64_t x, unsigned r) {
    return (x << r) | (x >> (64 - r));
}

/* XXH64's final mix, which XXH3 uses for keys of 0..3 bytes. */
static inline uint64_t cf__avalanche64(uint64_t h) {
    h ^= h >> 33;
    h *= 0xc2b2ae3d27d4eb4full;
    h ^= h >> 29;
    h *= 0x165667b19e3779f9ull;
    return h ^ (h >> 32);
}

/* XXH3's final mix for 9..16 bytes. */
static inline uint64_t cf__avalanche3(uint64_t h) {
    h ^= h >> 37;
    h *= 0x165667919e3779f9ull;
    return h ^ (h >> 32);
}

/* XXH3's stronger mix for 4..8 bytes. */
static inline uint64_t cf__rrmxmx(uint64_t h, uint64_t len) {
    h ^= cf__rotl64(h, 49) ^ cf__rotl64(h, 24);
    h *= 0x9fb21c651e98df25ull;
    h ^= (h >> 35) + len;
    h *= 0x9fb21c651e98df25ull;
    return h ^ (h >> 28);
}

static inline void cf__hash_key_init(cf__hash_key *k, uint64_t seed) {
    const uint8_t *s = XXH3_kSecret;
    uint64_t seed48 = seed ^ ((uint64_t)__builtin_bswap32((uint32_t)seed) << 32);
    k->seed = seed;
    k->h0 = cf__avalanche64(seed ^ cf__load64le(s + 56) ^ cf__load64le(s + 64));
    k->flip13 = (uint64_t)(cf__le32(s) ^ cf__le32(s + 4)) + seed;
    k->flip48 = (cf__load64le(s + 8) ^ cf__load64le(s + 16)) - seed48;
    k->flip_lo = (cf__load64le(s + 24) ^ cf__load64le(s + 32)) + seed;
    k->flip_hi = (cf__load64le(s + 40) ^ cf__load64le(s + 48)) - seed;
}

/* Keys over 16 bytes take XXH3's longer paths out of line, so that the
 * short-key path inlined into every operation needs few registers (with
 * all paths inlined, each lookup saved and restored four of them). */
__attribute__((noinline, unused)) static uint64_t cf__xxh3_long(const void *key, size_t len,
                                                                uint64_t seed) {
    return XXH3_64bits_withSeed(key, len, seed);
}

/* The hash of a 64-bit integer key as its 8 bytes in little-endian order:
 * cf__hash_keyed(k, bytes, 8) (the 4..8-byte path, whose two 32-bit reads
 * of those bytes are the integer's halves swapped), without the bytes. */
static inline uint64_t cf__hash_u64(const cf__hash_key *k, uint64_t key) {
    return cf__rrmxmx(cf__rotl64(key, 32) ^ k->flip48, 8);
}

/* XXH3_64bits_withSeed(key, len, k->seed).  key may be NULL when len is 0. */
static inline uint64_t cf__hash_keyed(const cf__hash_key *k, const void *key, size_t len) {
    const uint8_t *p = key;
    /* 8-byte keys (integers, pointers, digests) first: one load where the
     * 4..8-byte path below makes two, 4 instructions less per operation,
     * for one compare more on other lengths. */
    if (len == 8) return cf__hash_u64(k, cf__load64le(p));
    if (len > 8) {
        if (len > 16) return cf__xxh3_long(key, len, k->seed);
        uint64_t lo = cf__load64le(p) ^ k->flip_lo, hi = cf__load64le(p + len - 8) ^ k->flip_hi;
        unsigned __int128 m = (unsigned __int128)lo * hi;
        uint64_t acc = len + __builtin_bswap64(lo) + hi + ((uint64_t)m ^ (uint64_t)(m >> 64));
        return cf__avalanche3(acc);
    }
    if (len >= 4) {
        uint64_t in = ((uint64_t)cf__le32(p) << 32) + cf__le32(p + len - 4);
        return cf__rrmxmx(in ^ k->flip48, len);
    }
    if (len == 0) return k->h0;
    uint32_t combined = ((uint32_t)p[0] << 16) | ((uint32_t)p[len >> 1] << 24) |
                        (uint32_t)p[len - 1] | ((uint32_t)len << 8);
    return cf__avalanche64(combined ^ k->flip13);
}

/* For callers without a prepared key (the Bloom filter, cf_hash(NULL, ...)). */
static inline uint64_t cf__xxh3(const void *key, size_t len, uint64_t seed) {
    if (len > 16) return cf__xxh3_long(key, len, seed);
    return XXH3_64bits_withSeed(len == 0 ? "" : key, len, seed);
}

#endif /* CF_HASH_H */
