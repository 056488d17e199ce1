/*
 * hash.c -- the one hash function: XXH3-64 with the filter's seed, from
 * libxxhash used header-only (XXH_INLINE_ALL), so no xxHash symbol is
 * exported and there is no runtime dependency.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cf_internal.h"

uint64_t cf__xxh3(const void *key, size_t len, uint64_t seed) {
    return XXH3_64bits_withSeed(len == 0 ? "" : key, len, seed);
}
