/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * bits.h -- the bit-level arithmetic every layer shares: little-endian
 * 64-bit loads and stores, where a bit of a byte array lives, the
 * division-free range reduction and a 64-bit mix.
 */
#ifndef CF_BITS_H
#define CF_BITS_H

#include <stdint.h>
#include <string.h>

/* Maps x uniformly onto [0, n) without division (Lemire's multiply-high). */
#if defined(__wasm__)
/* WebAssembly has no 64x64 -> 128-bit multiply: clang makes an __int128
 * product a call to compiler-rt's __multi3, which returns it through the
 * stack.  The same high word from four 32x32 -> 64-bit products, inline
 * (web/: docs/BENCHMARKS.md, "JavaScript package"). */
static inline uint64_t cf__range(uint64_t x, uint64_t n) {
    uint64_t xl = (uint32_t)x, xh = x >> 32, nl = (uint32_t)n, nh = n >> 32;
    uint64_t ll = xl * nl, lh = xl * nh, hl = xh * nl;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    return xh * nh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
#else
static inline uint64_t cf__range(uint64_t x, uint64_t n) {
    return (uint64_t)(((unsigned __int128)x * n) >> 64);
}
#endif

/* Mixes a 64-bit hash into 64 well-spread bits (splitmix64's finalizer): the
 * Bloom filter derives its double-hashing step from it (bloom.c). */
static inline uint64_t cf__mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* (c - i) mod n for i < n: an involution on [0, n) for any n and any c < n. */
static inline uint64_t cf__reflect(uint64_t c, uint64_t i, uint64_t n) {
    return c >= i ? c - i : c + (n - i);
}

static inline uint64_t cf__load64le(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline void cf__store64le(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, sizeof v);
}

/* Where bit `bit` of a table lives: every access to the bit-packed table
 * reads or writes the 8 bytes starting at the byte that holds it (the
 * CF__TABLE_PAD bytes after the table make that safe), shifted by the bit's
 * place in that byte.  The one owner of "bit offset -> load -> shift". */
typedef struct cf__bitpos {
    uint8_t *at;    /* the byte holding the bit */
    unsigned shift; /* the bit's place in it, 0..7 */
} cf__bitpos;

static inline cf__bitpos cf__bitpos_of(const uint8_t *table, uint64_t bit) {
    cf__bitpos p = {(uint8_t *)(uintptr_t)(table + (bit >> 3)), (unsigned)(bit & 7)};
    return p;
}

/* The table's bits from `bit` on, in the low end of a word (57 of them
 * whole, as a shift of up to 7 drops the rest). */
static inline uint64_t cf__bits_at(const uint8_t *table, uint64_t bit) {
    cf__bitpos p = cf__bitpos_of(table, bit);
    return cf__load64le(p.at) >> p.shift;
}

#endif /* CF_BITS_H */
