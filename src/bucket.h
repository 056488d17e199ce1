/*
 * bucket.h -- operations on one bucket of the bit-packed table.
 *
 * When a whole bucket (b * f bits) fits in one unaligned 64-bit load at any
 * of its bit offsets, a bucket is read as one word and searched without a
 * per-slot loop (SWAR: SIMD within a register).  With lanes of f bits,
 *
 *     x    = word ^ (fp * ONES)           lane == 0  <=>  slot holds fp
 *     hit  = (x - ONES) & ~x & HIGHS      nonzero    <=>  some lane of x is 0
 *
 *     word: [ lane 3 ][ lane 2 ][ lane 1 ][ lane 0 ]   ONES  = 0..01 per lane
 *                                                      HIGHS = 10..0 per lane
 * A borrow can only start at a zero lane, so the lowest set bit of `hit`
 * marks the first matching slot exactly (higher bits may be spurious).
 * Otherwise (e.g. b = 8 with f > 8) the slots are read one by one; both paths
 * are tested to give identical answers (tests/test_model.c forces each).
 */
#ifndef CF_BUCKET_H
#define CF_BUCKET_H

#include "cf_internal.h"

static inline uint64_t cf__bucket_word(const cf_filter *f, uint64_t bucket) {
    uint64_t bit = bucket * f->bucket_bits;
    return (cf__load64le(f->table + (bit >> 3)) >> (bit & 7)) & f->bucket_mask;
}

/* Bit mask with the top bit of every lane of w that is zero (lowest exact). */
static inline uint64_t cf__zero_lanes(const cf_filter *f, uint64_t w) {
    return (w - f->lane_ones) & ~w & f->lane_highs;
}

/* First slot of bucket holding value v (0 = first empty slot), or -1. */
static inline int cf__bucket_find(const cf_filter *f, uint64_t bucket, uint32_t v) {
    if (f->swar) {
        uint64_t x = cf__bucket_word(f, bucket) ^ (f->lane_ones * v);
        uint64_t z = cf__zero_lanes(f, x);
        return z == 0 ? -1 : (int)((unsigned)__builtin_ctzll(z) / f->fp_bits);
    }
    for (unsigned s = 0; s < f->bucket_size; s++)
        if (cf__slot_get(f, bucket, s) == v) return (int)s;
    return -1;
}

static inline bool cf__bucket_has(const cf_filter *f, uint64_t bucket, uint32_t v) {
    if (f->swar) {
        uint64_t x = cf__bucket_word(f, bucket) ^ (f->lane_ones * v);
        return cf__zero_lanes(f, x) != 0;
    }
    for (unsigned s = 0; s < f->bucket_size; s++)
        if (cf__slot_get(f, bucket, s) == v) return true;
    return false;
}

static inline unsigned cf__bucket_count(const cf_filter *f, uint64_t bucket, uint32_t v) {
    unsigned n = 0;
    for (unsigned s = 0; s < f->bucket_size; s++) n += cf__slot_get(f, bucket, s) == v;
    return n;
}

#endif /* CF_BUCKET_H */
