/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cuckoofilter_inline.h -- lookups compiled into the caller.
 *
 * A lookup behind a library call pays for the call and for reading the
 * filter's shape through a pointer on every key; in cache that is a large
 * share of the ~5 ns a lookup takes.  A cf_view is a copy of what a lookup
 * needs (the table's address and the per-filter constants), and the
 * functions below are static inline: the compiler keeps the constants in
 * registers across a loop of lookups and inlines the whole probe.
 *
 *     cf_view view;
 *     if (cf_view_init(&view, f) != CF_OK) ...   once, after building f
 *     const cf_view v = view;                     in the loop's function
 *     for (...) if (cf_view_contains_u64(&v, key)) ...
 *
 * Each function answers exactly as its library counterpart does on the
 * filter the view was made from: cf_view_contains_hash as cf_contains_hash,
 * cf_view_contains_u64 as cf_contains_u64, cf_view_contains as cf_contains.
 * Plain bucket layouts (every bucket within one 64-bit load) are probed
 * here; semi-sorted filters and wide buckets call the library.
 *
 * Validity: a view reads the filter's table in place.  It stays valid while
 * the filter is alive and keeps its kind: lookups through it may run beside
 * lookups on the filter, and see the inserts, deletes and cf_clear made
 * since (as cf_contains would, with the same threading rules: writes need
 * the caller's lock).  cf_free ends it (using the view after that reads
 * freed memory), and so do cf_make_concurrent and cf_make_growable (the
 * filter's writes then follow rules the view does not).  Grown (CF_GROW)
 * and CF_CONCURRENT filters have no view (their tables move or are written
 * without the caller's lock): cf_view_init returns CF_E_PARAM.
 *
 * The fields are private: they can change in any release, which is why
 * cf_view_init passes this header's CF_VIEW_ABI and sizeof(cf_view) to the
 * library, which refuses a mismatch (CF_E_VERSION) rather than fill a view
 * it does not know.  Nothing here needs more than the C standard library:
 * no xxHash header, no new run-time dependency.
 */
#ifndef CUCKOOFILTER_INLINE_H
#define CUCKOOFILTER_INLINE_H

#include "cuckoofilter.h"

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The layout of cf_view and the meaning of its fields; raised whenever
 * either changes. */
#define CF_VIEW_ABI 1

/* How a view probes a bucket. */
#define CF_VIEW_CALL 0  /* call cf_contains_hash (semi-sorted, wide buckets) */
#define CF_VIEW_BYTES 1 /* buckets start on bytes: one load at i * stride bytes */
#define CF_VIEW_BITS 2  /* one load at bit i * stride, shifted (<= 57 bits)   */

typedef struct cf_view {
    const uint8_t *table_;
    const cf_filter *filter_; /* the filter, for CF_VIEW_CALL and cf_hash */
    uint64_t num_buckets_;
    uint64_t stride_;      /* bytes (CF_VIEW_BYTES) or bits (CF_VIEW_BITS) per bucket */
    unsigned layout_;      /* CF_VIEW_*                                         */
    unsigned index_shift_; /* 64 - log2(nb) when nb is a power of two >= 2, else 0 */
    uint64_t fp_mask_;     /* 2^f - 1                                           */
    uint64_t lane_ones_;   /* bit 0 of each f-bit lane of a bucket              */
    uint64_t lane_highs_;  /* top bit of each lane                              */
    uint64_t alt_xmask_;   /* the partner map's constants (its hash_id)         */
    uint64_t alt_mul_;
    uint64_t flip48_; /* XXH3's seed-dependent constant for 8-byte keys     */
} cf_view;

/* Fills v from f (what cf_view_init does; call that instead).  abi and size
 * are the caller's CF_VIEW_ABI and sizeof(cf_view).  CF_OK;
 * CF_E_PARAM when v or f is NULL or f is grown or concurrent; CF_E_VERSION
 * when abi or size differ from the library's (a header of another release). */
CF_API cf_status cf_view_init_abi(cf_view *v, const cf_filter *f, unsigned abi, size_t size);

/* Makes v a view of f, valid as the top of this header says.  Statuses as
 * cf_view_init_abi.
 * For the fastest loops, copy the view into a local variable of the
 * function that runs the loop and pass that copy's address:
 *     const cf_view v = *view;   for (...) hits += cf_view_contains_u64(&v, k);
 * A view whose address went to a function the compiler cannot see (this
 * one, or any other) may have changed after any call as far as the
 * compiler knows, so it reloads the view's fields and retests its shape on
 * every key (gcc 12 and clang 14: 54-56 instructions a lookup through the
 * original, 46 and 39 through the copy; the paper's code inlined: 46, 42). */
static inline cf_status cf_view_init(cf_view *v, const cf_filter *f) {
    return cf_view_init_abi(v, f, CF_VIEW_ABI, sizeof(cf_view));
}

/* The lookups must be inlined to be worth having: clang's heuristics left
 * the probe out of line when a program called it from several loops. */
#if defined(__GNUC__) || defined(__clang__)
#define CF_VIEW_INLINE_ static inline __attribute__((always_inline))
#else
#define CF_VIEW_INLINE_ static inline
#endif

/* ---- internals of the inline lookups (not part of the API) ---- */
__extension__ typedef unsigned __int128 cf_view_u128_;

CF_VIEW_INLINE_ uint64_t cf_view_load64le_(const uint8_t *p) {
    uint64_t x;
    memcpy(&x, p, sizeof x);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

/* The library's lookup (docs/FORMAT.md): fingerprint from the low 32 bits,
 * first bucket by multiply-high (a shift when nb is a power of two), the
 * partner (c - i) mod nb with c from the mixed fingerprint, then both
 * buckets read before either is tested.  pow2 and bytes are constants in
 * each copy (cf_view_probe_), so each copy tests nothing of the shape. */
CF_VIEW_INLINE_ bool cf_view_probe_k_(const cf_view *v, uint64_t h, int pow2, int bytes) {
    uint32_t fp = (uint32_t)((((h & 0xffffffffu) * v->fp_mask_) >> 32) + 1);
    uint64_t m = (uint64_t)fp * 0x9e3779b97f4a7c15ull;
    m ^= (m >> 29) & v->alt_xmask_;
    m *= v->alt_mul_;
    uint64_t nb = v->num_buckets_, i1, i2, w1, w2;
    if (pow2) {
        i1 = h >> v->index_shift_;
        i2 = ((m >> v->index_shift_) - i1) & (nb - 1);
    } else {
        uint64_t c = (uint64_t)(((cf_view_u128_)m * nb) >> 64);
        i1 = (uint64_t)(((cf_view_u128_)h * nb) >> 64);
        i2 = c >= i1 ? c - i1 : c + (nb - i1);
    }
    if (bytes) {
        w1 = cf_view_load64le_(v->table_ + i1 * v->stride_);
        w2 = cf_view_load64le_(v->table_ + i2 * v->stride_);
    } else {
        uint64_t b1 = i1 * v->stride_, b2 = i2 * v->stride_;
        w1 = cf_view_load64le_(v->table_ + (b1 >> 3)) >> (b1 & 7);
        w2 = cf_view_load64le_(v->table_ + (b2 >> 3)) >> (b2 & 7);
    }
    uint64_t x1 = w1 ^ (v->lane_ones_ * fp), x2 = w2 ^ (v->lane_ones_ * fp);
    /* A lane of x is zero where the bucket holds fp: SWAR zero-lane test
     * (the bits above the bucket belong to the next one; lane_highs_
     * ignores them, and a borrow never moves down). */
    return (((x1 - v->lane_ones_) & ~x1) | ((x2 - v->lane_ones_) & ~x2)) & v->lane_highs_;
}

CF_VIEW_INLINE_ bool cf_view_probe_(const cf_view *v, uint64_t h) {
    switch (v->layout_ + (v->index_shift_ != 0 ? 4u : 0u)) {
    case CF_VIEW_BYTES + 4: return cf_view_probe_k_(v, h, 1, 1);
    case CF_VIEW_BYTES: return cf_view_probe_k_(v, h, 0, 1);
    case CF_VIEW_BITS + 4: return cf_view_probe_k_(v, h, 1, 0);
    case CF_VIEW_BITS: return cf_view_probe_k_(v, h, 0, 0);
    default: return cf_contains_hash(v->filter_, h);
    }
}

CF_VIEW_INLINE_ uint64_t cf_view_rotl64_(uint64_t x, unsigned r) {
    return (x << r) | (x >> (64 - r));
}

/* XXH3-64 of the 8 bytes of key in little-endian order, with the filter's
 * seed: cf_hash(f, bytes, 8), computed from the integer (XXH3's 4..8-byte
 * path: the two 32-bit halves swapped, xored with the seed's constant,
 * then its rrmxmx mix). */
CF_VIEW_INLINE_ uint64_t cf_view_hash_u64_(const cf_view *v, uint64_t key) {
    uint64_t h = cf_view_rotl64_(key, 32) ^ v->flip48_;
    h ^= cf_view_rotl64_(h, 49) ^ cf_view_rotl64_(h, 24);
    h *= 0x9fb21c651e98df25ull;
    h ^= (h >> 35) + 8;
    h *= 0x9fb21c651e98df25ull;
    return h ^ (h >> 28);
}

/* ---- the lookups ---- */

/* cf_contains_hash(f, h) of the view's filter. */
CF_VIEW_INLINE_ bool cf_view_contains_hash(const cf_view *v, uint64_t h) {
    return cf_view_probe_(v, h);
}

/* cf_contains_u64(f, key): the key hashed here, inline. */
CF_VIEW_INLINE_ bool cf_view_contains_u64(const cf_view *v, uint64_t key) {
    return cf_view_probe_(v, cf_view_hash_u64_(v, key));
}

/* cf_contains(f, key, len): 8-byte keys are hashed inline, other lengths by
 * cf_hash (a library call), then probed here.  false for a NULL key with
 * len > 0, as cf_contains. */
CF_VIEW_INLINE_ bool cf_view_contains(const cf_view *v, const void *key, size_t len) {
    if (key == NULL && len != 0) return false;
    if (len == 8) return cf_view_contains_u64(v, cf_view_load64le_((const uint8_t *)key));
    return cf_view_probe_(v, cf_hash(v->filter_, key, len));
}

#ifdef __cplusplus
}
#endif

#endif /* CUCKOOFILTER_INLINE_H */
