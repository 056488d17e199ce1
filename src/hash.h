/*
 * hash.h -- the one hash function: XXH3-64 with the filter's seed, from
 * libxxhash used header-only (XXH_INLINE_ALL): no xxHash symbol is exported,
 * there is no runtime dependency, and the hash inlines into each operation
 * (a short key hashes in a few dozen instructions, so a call would be a
 * large share of a lookup).
 */
#ifndef CF_HASH_H
#define CF_HASH_H

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stddef.h>
#include <stdint.h>

static inline uint64_t cf__xxh3(const void *key, size_t len, uint64_t seed) {
    return XXH3_64bits_withSeed(len == 0 ? "" : key, len, seed);
}

#endif /* CF_HASH_H */
