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

/* Keys over 16 bytes take XXH3's longer paths out of line, so that the
 * short-key path inlined into every operation needs few registers (with
 * all paths inlined, each lookup saved and restored four of them). */
__attribute__((noinline, unused)) static uint64_t cf__xxh3_long(const void *key, size_t len,
                                                                 uint64_t seed) {
    return XXH3_64bits_withSeed(key, len, seed);
}

static inline uint64_t cf__xxh3(const void *key, size_t len, uint64_t seed) {
    if (len > 16) return cf__xxh3_long(key, len, seed);
    return XXH3_64bits_withSeed(len == 0 ? "" : key, len, seed);
}

#endif /* CF_HASH_H */
